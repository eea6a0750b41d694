/**
 * The canary owner's alarms all read the same way: something of the canary's own (a function's errors,
 * a dead-letter queue, a fault the run counted) is at least 1 in N periods (in a row, or of M); no data is no problem; ALARM and OK both go
 * to the canary-owner topic, never to a target owner.
 */
import type { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface OwnerAlarmProps {
  readonly alarmName: string;
  /** What broke, what it means, where to look. */
  readonly description: string;
  readonly metric: IMetric;
  /** The canary-owner topic of the alarm's region. */
  readonly ownerTopicArn: string;
  /**
   * Periods the metric must be ≥ 1 in, among the last `outOf`.
   * @default 1 - the first one tells
   */
  readonly periods?: number;
  /**
   * The periods evaluated.
   * @default - `periods`: that many in a row
   */
  readonly outOf?: number;
}

export function ownerAlarm(scope: Construct, id: string, p: OwnerAlarmProps): Alarm {
  const periods = p.periods ?? 1;
  const alarm = new Alarm(scope, id, {
    alarmName: p.alarmName,
    alarmDescription: p.description,
    metric: p.metric,
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: Math.max(periods, p.outOf ?? periods),
    datapointsToAlarm: periods,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const owner = new SnsAction(Topic.fromTopicArn(scope, `${id}Owner`, p.ownerTopicArn));
  alarm.addAlarmAction(owner);
  alarm.addOkAction(owner);
  return alarm;
}

/** "Messages are waiting in this dead-letter queue": each one is a run or a brief that never happened. */
export function deadLetterMetric(queue: IQueue, period: Duration): IMetric {
  return queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
}
