/**
 * Schedules beyond what one probe-region stack holds (CloudFormation's 500 resources): the same
 * schedule group, run functions and dead-letter queue as the region's main stack, found by name.
 */
import { ArnFormat, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { FleetNames } from '../plan/names.ts';
import type { SchedulePlan } from '../plan/plan.ts';
import { RunSchedules } from './schedules.ts';

export interface ProbeScheduleStackProps extends StackProps {
  readonly names: FleetNames;
  readonly schedules: readonly SchedulePlan[];
}

export class ProbeScheduleStack extends Stack {
  constructor(scope: Construct, id: string, props: ProbeScheduleStackProps) {
    super(scope, id, props);
    const { names } = props;
    new RunSchedules(this, 'Schedules', {
      names,
      schedules: props.schedules,
      functionArn: (slug) =>
        this.formatArn({
          service: 'lambda',
          resource: 'function',
          resourceName: names.runFunction(slug),
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      deadLetterQueueArn: this.formatArn({ service: 'sqs', resource: names.scheduleDlq }),
      groupName: names.scheduleGroup,
    });
  }
}
