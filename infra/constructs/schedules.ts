/**
 * The EventBridge Scheduler schedules of one probe-region stack: one per payload of targets sharing a
 * rate. A missed run must stay missed (a late or repeated run would blur "N runs in a row"), so: no
 * flexible window, no retries, the shortest event age Scheduler allows, and a dead-letter queue that
 * the canary owner is alarmed on.
 */
import { Aws } from 'aws-cdk-lib';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { FleetNames } from '../plan/names.ts';
import type { SchedulePlan } from '../plan/plan.ts';

/** Scheduler's minimum: a run delivered later than this is dropped to the DLQ, not run late. */
export const SCHEDULE_MAX_EVENT_AGE_SECONDS = 60;
/** The default is 185 retries over 24 h; a canary run is either on time or not at all. */
export const SCHEDULE_RETRY_ATTEMPTS = 0;

export interface RunSchedulesProps {
  readonly names: FleetNames;
  readonly schedules: readonly SchedulePlan[];
  /** The run function that serves a rate, by its slug. */
  readonly functionArn: (rateSlug: string) => string;
  readonly deadLetterQueueArn: string;
  readonly groupName: string;
}

export class RunSchedules extends Construct {
  readonly role: Role;
  readonly schedules: CfnSchedule[] = [];

  constructor(scope: Construct, id: string, props: RunSchedulesProps) {
    super(scope, id);
    const functionArns = [...new Set(props.schedules.map((s) => props.functionArn(s.rateSlug)))];
    this.role = new Role(this, 'Role', {
      description: 'EventBridge Scheduler invokes the mcp-canary run function and dead-letters what it cannot deliver.',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } }),
      inlinePolicies: {
        invoke: new PolicyDocument({
          statements: [
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['lambda:InvokeFunction'], resources: functionArns }),
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: [props.deadLetterQueueArn] }),
          ],
        }),
      },
    });
    for (const s of props.schedules) {
      const name = props.names.schedule(s.rateSlug, s.index);
      this.schedules.push(
        new CfnSchedule(this, `Schedule-${s.rateSlug}-${s.index}`, {
          name,
          groupName: props.groupName,
          description: s.description,
          scheduleExpression: s.schedule,
          flexibleTimeWindow: { mode: 'OFF' },
          state: 'ENABLED',
          target: {
            arn: props.functionArn(s.rateSlug),
            roleArn: this.role.roleArn,
            input: s.input,
            retryPolicy: { maximumRetryAttempts: SCHEDULE_RETRY_ATTEMPTS, maximumEventAgeInSeconds: SCHEDULE_MAX_EVENT_AGE_SECONDS },
            deadLetterConfig: { arn: props.deadLetterQueueArn },
          },
        }),
      );
    }
  }
}
