/**
 * A target's SLO burn alarms as synthesized, replayed through the CloudWatch timing model (timing.ts):
 * the window alarms as metric alarms, their two composites evaluated on the windows' state changes as
 * CloudWatch does (ALARM() is false for OK and INSUFFICIENT_DATA), and the page composite's actions held
 * back by its ActionsSuppressor (the target's critical alarm, replayed beside them).
 */
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { alarmsOf, render, type AlarmProps } from './cfn.ts';
import { resourcesOf, synthFleet, type Synthesized } from './synth.ts';
import { replayTimed, type Notification, type TimedScenario } from './timing.ts';

export interface CompositeProps {
  readonly AlarmName: string;
  readonly AlarmRule: string;
  readonly AlarmActions: unknown[];
  readonly OKActions: unknown[];
  readonly ActionsSuppressor?: string;
  readonly ActionsSuppressorWaitPeriod?: number;
  readonly ActionsSuppressorExtensionPeriod?: number;
}

export interface CompositeChange {
  readonly alarm: string;
  readonly state: 'OK' | 'ALARM';
  readonly at: number;
  readonly afterRun: number;
  readonly topics: readonly string[];
  /** Its actions held back by its ActionsSuppressor (CloudWatch: in ALARM now, within the wait period, or the extension after). */
  readonly suppressed: boolean;
}

export interface BurnAlarms {
  readonly fleet: Synthesized;
  /** The target's window alarms, in template order. */
  readonly windows: readonly AlarmProps[];
  readonly composites: readonly CompositeProps[];
  /** The target's paging alarm, the page composite's suppressor. */
  readonly critical: readonly AlarmProps[];
  /**
   * The composites' changes over a scenario; `windows` replays only those window alarms (the others stay
   * in `initial`: a composite that needs them stays OK).
   */
  replay(s: TimedScenario, initial?: 'OK' | 'INSUFFICIENT_DATA', windows?: readonly AlarmProps[]): CompositeChange[];
}

/** The burn alarms of `target` in a fleet synthesized from `config` (named McpCanary). */
export function burnAlarmsOf(config: FleetInput, target: string): BurnAlarms {
  const fleet = synthFleet(config);
  const prefix = `McpCanary/${target}/`;
  const burnJson = fleet.json('McpCanary-slo-burn');
  const windows = alarmsOf(burnJson as never).filter((a) => a.AlarmName.startsWith(prefix));
  const composites = resourcesOf(burnJson, 'AWS::CloudWatch::CompositeAlarm')
    .map(([, p]) => p as unknown as CompositeProps)
    .filter((c) => c.AlarmName.startsWith(prefix));
  const critical = [...fleet.templates]
    .filter(([n]) => n.includes('-alarms-'))
    .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
    .filter((a) => a.AlarmName === `${prefix}critical`);
  return {
    fleet,
    windows,
    composites,
    critical,
    replay: (s, initial = 'OK', replayed = windows) => {
      // Ten healthy runs settle every window as well as a day of them (timing.ts's default for a day window):
      // the windows treat missing data as `ignore`, and a healthy period never counts toward M.
      const settled = { baseline: 10, ...s };
      return evaluateComposites(composites, windows, replayTimed(replayed, settled), initial, replayTimed(critical, settled));
    },
  };
}

/** Whether a composite's change at `at` is suppressed by the suppressor's own notifications, as CloudWatch documents it. */
function suppressedAt(c: CompositeProps, suppressor: readonly Notification[], at: number): boolean {
  if (!c.ActionsSuppressor) return false;
  const wait = c.ActionsSuppressorWaitPeriod!;
  const extension = c.ActionsSuppressorExtensionPeriod!;
  const mine = suppressor.filter((n) => n.alarm === c.ActionsSuppressor);
  const stateAt = (t: number) => mine.filter((n) => n.at <= t).at(-1)?.state;
  if (stateAt(at) === 'ALARM') return true;
  if (mine.some((n) => n.state === 'ALARM' && n.at > at && n.at <= at + wait)) return true;
  return mine.some((n) => n.from === 'ALARM' && n.at < at && n.at >= at - extension);
}

/** Composite alarms over the windows' notifications: re-evaluated at every change of a window they name. */
function evaluateComposites(
  composites: readonly CompositeProps[],
  windows: readonly AlarmProps[],
  changes: readonly Notification[],
  initial: 'OK' | 'INSUFFICIENT_DATA',
  suppressor: readonly Notification[],
): CompositeChange[] {
  const state = new Map(windows.map((w) => [w.AlarmName, initial as string]));
  const current = new Map<string, string>(composites.map((c) => [c.AlarmName, 'INSUFFICIENT_DATA']));
  const out: CompositeChange[] = [];
  for (const n of changes) {
    state.set(n.alarm, n.state);
    for (const c of composites) {
      // (ALARM("a") AND ALARM("b")) OR (…): the rule as synthesized, read back.
      const alarmed = c.AlarmRule.split(' OR ').some((term) =>
        [...term.matchAll(/ALARM\("([^"]+)"\)/g)].every((m) => state.get(m[1]!) === 'ALARM'),
      );
      const next = alarmed ? 'ALARM' : 'OK';
      if (next !== current.get(c.AlarmName)) {
        out.push({
          alarm: c.AlarmName,
          state: next,
          at: n.at,
          afterRun: n.afterRun,
          topics: (next === 'ALARM' ? c.AlarmActions : c.OKActions).map(render),
          suppressed: suppressedAt(c, suppressor, n.at),
        });
        current.set(c.AlarmName, next);
      }
    }
  }
  return out;
}

/** The composite's changes into ALARM, by the last segment of its name (`/slo-burn-page`). */
export function alarmsBy(cs: readonly CompositeChange[], suffix: string): CompositeChange[] {
  return cs.filter((c) => c.alarm.endsWith(suffix) && c.state === 'ALARM');
}
