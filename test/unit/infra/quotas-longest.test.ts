/**
 * Values are measured as AWS will see them once CloudFormation resolves them, at their longest: each
 * intrinsic against what it resolves to, written out by hand here.
 */
import { describe, expect, it } from 'vitest';
import { LONGEST, Longest } from '../../../infra/quotas/longest.ts';
import type { CfnTemplate } from '../../../infra/quotas/template.ts';

const template: CfnTemplate = {
  Parameters: { Env: { Type: 'String', Default: 'production' }, Secret: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/p' } },
  Mappings: { Sizes: { small: { mem: '128' }, large: { mem: '10240' } } },
  Resources: {
    Named: { Type: 'AWS::SQS::Queue', Properties: { QueueName: { 'Fn::Sub': '${AWS::StackName}-dlq' } } },
    Unnamed: { Type: 'AWS::SQS::Queue' },
    Topic: { Type: 'AWS::SNS::Topic', Properties: { TopicName: 'pages' } },
    Fn: { Type: 'AWS::Lambda::Function' },
    Logs: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/mcp/run' } },
  },
};
const inRegion = (region?: string, account?: string) => new Longest({ stackName: 'Fleet-probe', template, region, account });
const x = (n: number) => 'x'.repeat(n);

describe('longest form of a template value', () => {
  it('resolves the pseudo parameters of a stack with a known environment exactly', () => {
    const l = inRegion('eu-west-1', '111122223333');
    expect(l.string({ 'Fn::Sub': '${AWS::Partition}/${AWS::Region}/${AWS::AccountId}/${AWS::URLSuffix}/${AWS::StackName}' })).toBe(
      'aws/eu-west-1/111122223333/amazonaws.com/Fleet-probe',
    );
    expect(inRegion('cn-north-1').string({ 'Fn::Sub': '${AWS::Partition} ${AWS::URLSuffix}' })).toBe('aws-cn amazonaws.com.cn');
    expect(inRegion('us-gov-west-1').string({ Ref: 'AWS::Partition' })).toBe('aws-us-gov');
  });

  it('counts an environment-agnostic stack at the longest region, partition and a 12-digit account', () => {
    const l = inRegion();
    const arn = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sqs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':q']],
    };
    expect(l.string(arn)).toBe('arn:aws-us-gov:sqs:us-isof-south-1:123456789012:q');
    expect(LONGEST.account).toHaveLength(12);
  });

  it('resolves Ref and Fn::GetAtt of a resource to its name and ARN, or the longest name the service allows', () => {
    const l = inRegion('us-east-1', '111122223333');
    expect(l.string({ 'Fn::GetAtt': ['Named', 'Arn'] })).toBe('arn:aws:sqs:us-east-1:111122223333:Fleet-probe-dlq');
    expect(l.string({ 'Fn::GetAtt': 'Named.QueueName' })).toBe('Fleet-probe-dlq');
    expect(l.string({ Ref: 'Named' })).toBe('https://sqs.us-east-1.amazonaws.com/111122223333/Fleet-probe-dlq');
    // No QueueName: CloudFormation generates one, at most 80 characters.
    expect(l.string({ 'Fn::GetAtt': ['Unnamed', 'Arn'] })).toBe(`arn:aws:sqs:us-east-1:111122223333:${x(80)}`);
    expect(l.string({ Ref: 'Topic' })).toBe('arn:aws:sns:us-east-1:111122223333:pages');
    expect(l.string({ Ref: 'Fn' })).toBe(x(64));
    expect(l.string({ 'Fn::GetAtt': ['Fn', 'Arn'] })).toBe(`arn:aws:lambda:us-east-1:111122223333:function:${x(64)}`);
    expect(l.string({ 'Fn::GetAtt': ['Logs', 'Arn'] })).toBe('arn:aws:logs:us-east-1:111122223333:log-group:/mcp/run:*');
  });

  it('resolves Fn::Sub with its own variables and resource attributes, and keeps ${!literal}', () => {
    const l = inRegion('us-east-1', '111122223333');
    expect(l.string({ 'Fn::Sub': ['${Named.QueueName}:${Who}:${!Literal}', { Who: { Ref: 'Env' } }] })).toBe(
      'Fleet-probe-dlq:production:${Literal}',
    );
  });

  it('counts an import, an unknown parameter value and the longer branch of a condition at their longest', () => {
    const l = inRegion('us-east-1');
    expect(l.string({ 'Fn::ImportValue': 'Shared-TopicArn' })).toHaveLength(2_048);
    expect(l.string({ Ref: 'Secret' })).toHaveLength(4_096);
    expect(l.string({ 'Fn::If': ['IsProd', 'short', 'much longer'] })).toBe('much longer');
    expect(l.string({ 'Fn::FindInMap': ['Sizes', 'large', 'mem'] })).toBe('10240');
    expect(l.string({ 'Fn::FindInMap': ['Sizes', { Ref: 'AWS::Region' }, 'mem'] })).toBe('10240');
  });

  it('drops AWS::NoValue and resolves lists (Fn::Split, Fn::Select)', () => {
    const l = inRegion('us-east-1');
    expect(l.value({ A: 'a', B: { Ref: 'AWS::NoValue' }, C: ['c', { Ref: 'AWS::NoValue' }] })).toEqual({ A: 'a', C: ['c'] });
    expect(l.string({ 'Fn::Select': [1, { 'Fn::Split': [',', 'a,bb,ccc'] }] })).toBe('bb');
  });
});
