/**
 * The queue SNS moves a notification to when it could not deliver it to a subscriber (a pager down for
 * longer than the delivery policy's hour of retries, a deleted queue, a Lambda without permission), and
 * the canary owner's alarm on it: a page that never reached the pager is never silent.
 */
import { Duration } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FleetNames } from '../plan/names.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { deadLetterMetric, ownerAlarm } from './owner-alarm.ts';

/** The queue: create it before the topics whose subscriptions redrive to it. */
export function deliveryDeadLetterQueue(scope: Construct, names: FleetNames): Queue {
  return deadLetterQueue(scope, 'DeliveryDlq', names.deliveryDlq, "the fleet's SNS subscriptions");
}

/** The canary owner's alarm on it: a message there is a notification nobody got. */
export function alarmOnDeliveryDeadLetters(scope: Construct, names: FleetNames, queue: Queue, ownerTopicArn: string): void {
  ownerAlarm(scope, 'DeliveryDlqAlarm', {
    alarmName: names.canaryAlarm('delivery-dlq'),
    description: `SNS could not deliver mcp-canary notifications to a subscriber in ${names.fleet} (pages, tickets or the canary owner's) after retrying for up to an hour: they are in the SQS queue ${names.deliveryDlq}. For the canary owner. Read a message: it is the undelivered notification (an ALARM nobody was paged for, or an OK that never closed an incident). Fix the subscription, act on the message, then purge the queue.`,
    metric: deadLetterMetric(queue, Duration.minutes(1)),
    ownerTopicArn,
  });
}
