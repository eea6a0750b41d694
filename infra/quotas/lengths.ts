/**
 * Properties whose string value has a maximum length, checked on their longest form (a name built from
 * the fleet name and a target name can pass every schema and still be too long once resolved). Each
 * service states these in its API reference; the CloudFormation resource schemas carry the same figures.
 */
import { SHORTER_NAMES, Source } from './limits.ts';

export interface LengthRule {
  readonly type: string;
  /** Under Properties. */
  readonly property: string;
  /** Characters (UTF-16 code units, as the APIs count string length). */
  readonly max: number;
  readonly what: string;
  readonly source: string;
  readonly fix: string;
}

const rule = (type: string, property: string, max: number, what: string, source: string, fix = SHORTER_NAMES): LengthRule => ({
  type,
  property,
  max,
  what,
  source,
  fix,
});
const SHORTEN = 'shorten it';

export const LENGTH_RULES: readonly LengthRule[] = [
  rule('AWS::Lambda::Function', 'FunctionName', 64, 'function name', Source.createFunction),
  rule('AWS::Lambda::Function', 'Description', 256, 'function description', Source.createFunction, SHORTEN),
  rule('AWS::Scheduler::Schedule', 'Name', 64, 'schedule name', Source.createSchedule),
  rule('AWS::Scheduler::Schedule', 'GroupName', 64, 'schedule group name', Source.createSchedule),
  rule(
    'AWS::Scheduler::Schedule',
    'Description',
    512,
    'schedule description',
    Source.createSchedule,
    'shorten the target names it lists (targets[].name)',
  ),
  rule('AWS::Scheduler::Schedule', 'ScheduleExpression', 256, 'schedule expression', Source.createSchedule, SHORTEN),
  rule('AWS::Scheduler::ScheduleGroup', 'Name', 64, 'schedule group name', Source.createSchedule),
  rule('AWS::CloudWatch::Dashboard', 'DashboardName', 255, 'dashboard name', Source.putDashboard),
  rule(
    'AWS::CloudWatch::AlarmMuteRule',
    'Name',
    255,
    'mute rule name',
    Source.alarmMuteRule,
    'shorten the maintenance window name or the fleet name (`name` in the fleet config)',
  ),
  rule(
    'AWS::CloudWatch::AlarmMuteRule',
    'Description',
    1024,
    'mute rule description',
    Source.alarmMuteRule,
    'shorten the maintenance window reason',
  ),
  rule('AWS::SNS::Topic', 'TopicName', 256, 'topic name', Source.createTopic),
  rule('AWS::SQS::Queue', 'QueueName', 80, 'queue name', Source.sqsQueue),
  rule('AWS::Logs::LogGroup', 'LogGroupName', 512, 'log group name', Source.createLogGroup),
  rule('AWS::Events::Rule', 'Name', 64, 'rule name', Source.putRule),
  rule('AWS::Events::Rule', 'Description', 512, 'rule description', Source.putRule, SHORTEN),
  rule('AWS::IAM::Role', 'RoleName', 64, 'role name', Source.iam),
  rule('AWS::IAM::Role', 'Description', 1000, 'role description', Source.iam, SHORTEN),
  rule('AWS::IAM::Role', 'Path', 512, 'role path', Source.iam, SHORTEN),
  rule('AWS::IAM::Policy', 'PolicyName', 128, 'policy name', Source.iam, SHORTEN),
];
