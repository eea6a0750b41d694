/**
 * The canary's dead-letter queues (runs that did not happen, briefs that failed, notifications SNS could
 * not deliver) are alike: encrypted by SQS, TLS only, kept the longest SQS allows, and each one is
 * watched by a canary-owner alarm (owner-alarm.ts), so nothing waits in them unseen.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** Dead-lettered messages are evidence for the canary owner: kept the longest SQS allows. */
export const DLQ_RETENTION = Duration.days(14);

/** `holds`: what the queue is the dead-letter queue of, for the cdk-nag acknowledgement. */
export function deadLetterQueue(scope: Construct, id: string, queueName: string, holds: string): Queue {
  // SSE-SQS: SNS, Scheduler and Lambda can send to it without a KMS key policy.
  const queue = new Queue(scope, id, {
    queueName,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DLQ_RETENTION,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is the dead-letter queue of ${holds}; a DLQ of a DLQ would hide what it holds.`,
  });
  return queue;
}
