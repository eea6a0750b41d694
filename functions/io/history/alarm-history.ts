/**
 * The fleet's alarm state changes, from DescribeAlarmHistory (CloudWatch keeps them 30 days): what the
 * alarms actually did, beside what the rule says they should have. One paginated stream for the whole
 * fleet (StateUpdate items, 100 per page), kept to this fleet's target alarms by their names.
 */
import { DescribeAlarmHistoryCommand, DescribeAlarmsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { AlarmKind, parseAlarmName } from '../../base/common/alarm-words.ts';
import type { Incident } from './timeline.ts';

/** How long CloudWatch keeps alarm history. */
export const ALARM_HISTORY_DAYS = 30;
const PAGE = 100;

export type AlarmStateValue = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface AlarmTransition {
  readonly target: string;
  readonly kind: AlarmKind;
  readonly atMs: number;
  readonly from: AlarmStateValue | null;
  readonly to: AlarmStateValue;
}

/** One DescribeAlarmHistory item as the API returns it. */
export interface AlarmHistoryItem {
  readonly AlarmName?: string | undefined;
  readonly Timestamp?: Date | undefined;
  readonly HistoryItemType?: string | undefined;
  readonly HistoryData?: string | undefined;
}

/** Parses the items of this fleet's target alarms; anything else (other fleets, unreadable data) is skipped. */
export function transitionsOf(fleetName: string, items: readonly AlarmHistoryItem[]): AlarmTransition[] {
  const out: AlarmTransition[] = [];
  for (const item of items) {
    if (item.HistoryItemType !== undefined && item.HistoryItemType !== 'StateUpdate') continue;
    const named = item.AlarmName ? parseAlarmName(fleetName, item.AlarmName) : null;
    if (!named || !item.Timestamp || !item.HistoryData) continue;
    let data: { oldState?: { stateValue?: string }; newState?: { stateValue?: string } };
    try {
      data = JSON.parse(item.HistoryData) as typeof data;
    } catch {
      continue;
    }
    const to = stateOf(data.newState?.stateValue);
    if (!to) continue;
    out.push({ ...named, atMs: item.Timestamp.getTime(), from: stateOf(data.oldState?.stateValue), to });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

function stateOf(v: string | undefined): AlarmStateValue | null {
  return v === 'OK' || v === 'ALARM' || v === 'INSUFFICIENT_DATA' ? v : null;
}

export async function readAlarmHistory(
  client: CloudWatchClient,
  fleetName: string,
  fromMs: number,
  toMs: number,
  cost: { alarmHistoryCalls: number },
): Promise<AlarmTransition[]> {
  const items: AlarmHistoryItem[] = [];
  let token: string | undefined;
  do {
    const res = await client.send(
      new DescribeAlarmHistoryCommand({
        HistoryItemType: 'StateUpdate',
        StartDate: new Date(fromMs),
        EndDate: new Date(toMs),
        MaxRecords: PAGE,
        NextToken: token,
      }),
    );
    cost.alarmHistoryCalls++;
    items.push(...(res.AlarmHistoryItems ?? []));
    token = res.NextToken;
  } while (token);
  return transitionsOf(fleetName, items);
}

/** DescribeAlarms takes at most this many names per call. */
export const ALARM_NAMES_PER_CALL = 100;

/**
 * Which of these alarm names exist: an empty history says "not paged" only for an alarm that is there (a
 * fleet read under another name has no history either, and no alarms). One DescribeAlarms call per 100
 * names; the alarms are metric alarms (infra/constructs/target-alarms.ts).
 */
export async function existingAlarms(
  client: CloudWatchClient,
  names: readonly string[],
  cost: { describeAlarmsCalls: number },
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let first = 0; first < names.length; first += ALARM_NAMES_PER_CALL) {
    let token: string | undefined;
    do {
      const res = await client.send(
        new DescribeAlarmsCommand({
          AlarmNames: names.slice(first, first + ALARM_NAMES_PER_CALL),
          MaxRecords: ALARM_NAMES_PER_CALL,
          NextToken: token,
        }),
      );
      cost.describeAlarmsCalls++;
      for (const a of res.MetricAlarms ?? []) if (a.AlarmName) found.add(a.AlarmName);
      token = res.NextToken;
    } while (token);
  }
  return found;
}

/** Did the page alarm go to ALARM for this incident? `unknown` when the incident predates the history kept. */
export type Confirmation = 'paged' | 'not-paged' | 'unknown';

/**
 * An incident is confirmed when the critical alarm was in ALARM for it: it entered ALARM between the
 * incident's start (or its page, for one already open when the window began) and its end, within a
 * period after (CloudWatch evaluates seconds after the period closes); or its first change after the
 * start leaves ALARM, so it was in ALARM already (an outage open at the window's start, or one that
 * followed another before the alarm went back to OK).
 */
export function confirmIncident(
  i: Incident,
  transitions: readonly AlarmTransition[],
  historyFromMs: number,
  periodMs: number,
): Confirmation {
  if (i.startMs < historyFromMs) return 'unknown';
  const from = Math.min(i.startMs, i.pagedAtMs - periodMs);
  // An incident still open at the window's end ends there for this question: an ALARM after it (history is
  // read to now, and `--end` may be days back) belongs to whatever came later.
  const until = i.startMs + i.durationMs + periodMs;
  const critical = transitions.filter((t) => t.kind === AlarmKind.critical);
  if (critical.some((t) => t.to === 'ALARM' && t.atMs >= from && t.atMs <= until)) return 'paged';
  const next = critical.find((t) => t.atMs >= i.startMs);
  return next && next.atMs <= until && next.from === 'ALARM' ? 'paged' : 'not-paged';
}
