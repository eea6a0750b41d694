/**
 * Maintenance windows as CloudWatch alarm mute rules (`AWS::CloudWatch::AlarmMuteRule`), in their own
 * home-region stack, deployed after the alarm stacks. A window mutes the *actions* of the paging
 * (critical) and ticket (warning) alarms of its targets: the alarms still change state and the
 * dashboard still shows them, only nobody is told. The canary owner's alarms (dead-man, Lambda
 * errors, schedule DLQ) are never muted. Alarms are named through `FleetNames`, not taken from alarm
 * objects, so a rule always points at the names the alarm stacks deploy.
 */
import { Duration, Stack, TimeZone, type StackProps } from 'aws-cdk-lib';
import { Alarm, AlarmMuteRule, ScheduleExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { AlarmKind } from '../../functions/brief/alarm-words.ts';
import { durationMinutes, type MaintenanceWindow } from '../../functions/config/maintenance.ts';
import type { FleetNames } from '../names.ts';

/** CloudWatch: a mute rule targets at most 100 alarms; a bigger window becomes several rules. */
export const MAX_ALARMS_PER_MUTE_RULE = 100;

/** The alarm kinds a window mutes: the target owner's. Never `dead-man`: that is the canary owner's. */
export const MUTED_KINDS: readonly AlarmKind[] = [AlarmKind.critical, AlarmKind.warning];

export interface MaintenanceStackProps extends StackProps {
  readonly names: FleetNames;
  readonly windows: readonly MaintenanceWindow[];
  /** Every target of the fleet: a window without `targets` mutes them all. */
  readonly targets: readonly string[];
}

export class MaintenanceStack extends Stack {
  readonly rules: AlarmMuteRule[] = [];

  constructor(scope: Construct, id: string, props: MaintenanceStackProps) {
    super(scope, id, props);
    const { names } = props;
    for (const w of props.windows) {
      const alarmNames = (w.targets ?? props.targets).flatMap((t) => MUTED_KINDS.map((kind) => names.alarm(t, kind)));
      const chunks = chunk(alarmNames, MAX_ALARMS_PER_MUTE_RULE);
      chunks.forEach((part, i) => {
        const suffix = chunks.length > 1 ? `-${i + 1}` : '';
        const rule = new AlarmMuteRule(this, `${w.name}${suffix}`, {
          alarmMuteRuleName: `${names.fleet}-maintenance-${w.name}${suffix}`,
          description: `mcp-canary ${names.fleet}: maintenance window ${w.name} (${w.schedule}, ${w.duration}) mutes the paging and ticket alarms of ${(w.targets ?? props.targets).length} target(s); canary-owner alarms stay live`,
          schedule: ScheduleExpression.expression(w.schedule.trim(), w.timezone ? TimeZone.of(w.timezone) : undefined),
          duration: Duration.minutes(durationMinutes(w.duration)!),
          // Construct ids may not hold '/', which alarm names do: the id says the same with '-'.
          alarms: part.map((name) => Alarm.fromAlarmName(this, `${w.name}${suffix}-${name.replace(/\//g, '-')}`, name)),
        });
        this.rules.push(rule);
      });
    }
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
