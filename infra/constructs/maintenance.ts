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
import { durationMinutes } from '../../functions/base/config/schema/maintenance.ts';
import type { MuteRulePlan } from '../plan/placement.ts';

export interface MaintenanceStackProps extends StackProps {
  /** The rules this stack holds (placement.ts splits a fleet's rules by size). */
  readonly rules: readonly MuteRulePlan[];
}

export class MaintenanceStack extends Stack {
  readonly rules: AlarmMuteRule[] = [];

  constructor(scope: Construct, id: string, props: MaintenanceStackProps) {
    super(scope, id, props);
    for (const r of props.rules) {
      const w = r.window;
      this.rules.push(
        new AlarmMuteRule(this, r.id, {
          alarmMuteRuleName: r.ruleName,
          description: r.description,
          schedule: ScheduleExpression.expression(w.schedule.trim(), w.timezone ? TimeZone.of(w.timezone) : undefined),
          duration: Duration.minutes(durationMinutes(w.duration)!),
          // Construct ids may not hold '/', which alarm names do: the id says the same with '-'.
          alarms: r.alarmNames.map((name) => Alarm.fromAlarmName(this, `${r.id}-${name.replace(/\//g, '-')}`, name)),
        }),
      );
    }
  }
}
