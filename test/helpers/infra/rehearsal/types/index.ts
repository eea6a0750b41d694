/**
 * Every resource type the rehearsal knows, and how it is rehearsed (see handler.ts). moto_server 5.2's
 * CloudFormation creates: Lambda functions and permissions, log groups, IAM roles and policies (inline
 * and managed), SQS
 * queues, SNS topics, EventBridge rules, DynamoDB tables, dashboards and S3 buckets. It skips, and still reports
 * CREATE_COMPLETE: alarms (metric and composite), schedules and schedule groups, subscriptions, topic, queue and
 * bucket policies, event-invoke configs, alarm mute rules and all of CloudFront; moto has no API at all for mute
 * rules, saved Logs Insights queries and CloudFront response headers policies. The runner checks this table against what moto actually did on every deploy.
 */
import { alarm, alarmMuteRule, compositeAlarm, dashboard } from './cloudwatch.ts';
import { distribution, originAccessControl, responseHeadersPolicy } from './cloudfront.ts';
import { cdkMetadata, crossRegionExportReader, crossRegionExportWriter } from './cdk.ts';
import { table } from './dynamodb.ts';
import { logGroupHandler, queryDefinition, rule } from './events-logs.ts';
import type { Handler } from './handler.ts';
import { managedPolicy, policy, role } from './iam.ts';
import { eventInvokeConfig, lambdaFunction, permission } from './lambda.ts';
import { queue, queuePolicy, subscription, topic, topicPolicy } from './messaging.ts';
import { bucket, bucketPolicy } from './s3.ts';
import { schedule, scheduleGroup } from './scheduler.ts';

export const HANDLERS: Readonly<Record<string, Handler>> = {
  'AWS::CloudWatch::Alarm': alarm,
  'AWS::CloudFront::Distribution': distribution,
  'AWS::CloudFront::OriginAccessControl': originAccessControl,
  'AWS::CloudFront::ResponseHeadersPolicy': responseHeadersPolicy,
  'AWS::CloudWatch::AlarmMuteRule': alarmMuteRule,
  'AWS::CloudWatch::CompositeAlarm': compositeAlarm,
  'AWS::CloudWatch::Dashboard': dashboard,
  'AWS::CDK::Metadata': cdkMetadata,
  'AWS::DynamoDB::Table': table,
  'AWS::Events::Rule': rule,
  'AWS::IAM::ManagedPolicy': managedPolicy,
  'AWS::IAM::Policy': policy,
  'AWS::IAM::Role': role,
  'AWS::Lambda::EventInvokeConfig': eventInvokeConfig,
  'AWS::Lambda::Function': lambdaFunction,
  'AWS::Lambda::Permission': permission,
  'AWS::Logs::LogGroup': logGroupHandler,
  'AWS::Logs::QueryDefinition': queryDefinition,
  'AWS::S3::Bucket': bucket,
  'AWS::S3::BucketPolicy': bucketPolicy,
  'AWS::Scheduler::Schedule': schedule,
  'AWS::Scheduler::ScheduleGroup': scheduleGroup,
  'AWS::SNS::Subscription': subscription,
  'AWS::SNS::Topic': topic,
  'AWS::SNS::TopicPolicy': topicPolicy,
  'AWS::SQS::Queue': queue,
  'AWS::SQS::QueuePolicy': queuePolicy,
  'Custom::CrossRegionExportReader': crossRegionExportReader,
  'Custom::CrossRegionExportWriter': crossRegionExportWriter,
};

export type { Deployed, Handler, ResourceContext } from './handler.ts';
