/**
 * Every physical name the fleet deploys, derived from the fleet name alone: stable across deploys (a
 * paging tool keys incidents on alarm names; the brief finds log groups by name in every region) and
 * never from construct hashes. Cross-stack references are by these names, so no stack exports a value
 * another stack imports.
 */
import { alarmName, canaryAlarmName, fleetAlarmPattern, type AlarmKind } from '../../functions/base/common/alarm-words.ts';
import { configError } from '../../functions/base/common/errors.ts';
import { FLEET_NAME_PATTERN } from '../../functions/base/config/aws/aws-names.ts';

export { FLEET_NAME_PATTERN };

export type TopicKind = 'pages' | 'tickets' | 'canary-owner' | 'briefs';

export class FleetNames {
  constructor(readonly fleet: string) {
    if (!FLEET_NAME_PATTERN.test(fleet)) {
      throw configError(
        `McpCanaryFleet name ${JSON.stringify(fleet)} must be 1–32 letters, digits or "-", starting with a letter: it prefixes every stack, alarm, topic and function. Set another \`name\` in the fleet config (or pass another construct id or the name option).`,
      );
    }
  }

  stack(part: string): string {
    return `${this.fleet}-${part}`;
  }

  topic(kind: TopicKind): string {
    return `${this.fleet}-${kind}`;
  }

  /** The same name in every probe region: the brief reads it in each. */
  get runLogGroup(): string {
    return `/mcp-canary/${this.fleet}/run`;
  }

  get briefLogGroup(): string {
    return `/mcp-canary/${this.fleet}/brief`;
  }

  runFunction(rateSlug: string): string {
    return `${this.fleet}-run-${rateSlug}`;
  }

  get briefFunction(): string {
    return `${this.fleet}-brief`;
  }

  /** The status page's function, its log group and its schedule (home region; infra/constructs/status-stack.ts). */
  get statusFunction(): string {
    return `${this.fleet}-status`;
  }

  get statusLogGroup(): string {
    return `/mcp-canary/${this.fleet}/status`;
  }

  get scheduleGroup(): string {
    return this.fleet;
  }

  schedule(rateSlug: string, index: number): string {
    return `${this.fleet}-${rateSlug}-${String(index).padStart(3, '0')}`;
  }

  get scheduleDlq(): string {
    return `${this.fleet}-schedule-dlq`;
  }

  /** Notifications SNS could not deliver to a subscriber (one per region that has fleet topics). */
  get deliveryDlq(): string {
    return `${this.fleet}-delivery-dlq`;
  }

  get briefDlq(): string {
    return `${this.fleet}-brief-dlq`;
  }

  alarm(target: string, kind: AlarmKind): string {
    return alarmName(this.fleet, target, kind);
  }

  /** The canary's own alarms (per region): `<fleet>/canary/<what>`. */
  canaryAlarm(what: string): string {
    return canaryAlarmName(this.fleet, what);
  }

  /** Matches every alarm of this fleet and of no other (see `alarmName`). */
  get alarmPattern(): string {
    return fleetAlarmPattern(this.fleet);
  }

  get dashboard(): string {
    return this.fleet;
  }
}
