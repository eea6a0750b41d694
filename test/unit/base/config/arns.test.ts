/** ARN and resource-name shapes, per service, as each service's API reference states them. */
import { describe, expect, it } from 'vitest';
import {
  arnProblem,
  LAMBDA_FUNCTION_ARN,
  secretRefProblem,
  SQS_QUEUE_ARN,
  ssmNameLengthProblem,
  ssmRefProblem,
} from '../../../../functions/base/config/aws/arns.ts';
import { namespaceProblem } from '../../../../functions/base/config/aws/aws-names.ts';

describe('Secrets Manager references', () => {
  it.each([
    'mcp-canary/rates-prod',
    'prod/api+key=v1@team.x_y',
    'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/billing',
    'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/billing-AbCdEf',
    'arn:aws-cn:secretsmanager:cn-north-1:111122223333:secret:x',
    'arn:aws-us-gov:secretsmanager:us-gov-west-1:111122223333:secret:x',
  ])('accepts %s', (ref) => expect(secretRefProblem(ref)).toBeNull());

  it.each([
    ['arn:aws:secretsmanager:us-east-1:oops', 'is not a complete ARN'],
    ['arn:aws:s3:::bucket/key', 'is an S3 ARN, not a Secrets Manager secret ARN'],
    [
      'arn:aws:ssm:us-east-1:111122223333:parameter/x',
      'is an SSM ARN, not a Secrets Manager secret ARN (an SSM parameter belongs in { ssmParameter: "<name>" })',
    ],
    [
      'arn:aws:secretsmanager:eu-nowhere-9:111122223333:secret:x',
      'names region "eu-nowhere-9", which is not an AWS region the canary supports',
    ],
    [
      'arn:aws:secretsmanager:cn-north-1:111122223333:secret:x',
      'has partition "aws", but its region cn-north-1 is in aws-cn: write arn:aws-cn:…',
    ],
    ['arn:aws:secretsmanager:us-east-1:1111:secret:x', 'has account "1111"; an AWS account ID is 12 digits'],
    ['arn:aws:secretsmanager:us-east-1:111122223333:key:x', 'has resource "key:x"; a secret\'s is "secret:<name>"'],
    ['my secret', 'has a space at character 3 in the secret name'],
    // Read as an ARN, not as a name with a ":" at character 4.
    [
      'ARN:aws:secretsmanager:us-east-1:111122223333:secret:x',
      'is an ARN written "ARN:": an ARN starts with "arn:" exactly (lower case, no space before it): write "arn:aws:secretsmanager:us-east-1:111122223333:secret:x"',
    ],
    [' arn:aws:secretsmanager:us-east-1:111122223333:secret:x', 'is an ARN written " arn:"'],
    ['x'.repeat(513), 'is a secret name of 513 characters; Secrets Manager allows 512'],
  ])('refuses %s', (ref, why) => expect(secretRefProblem(ref)).toContain(why));
});

describe('SSM parameter references', () => {
  it.each([
    'api-key',
    '/mcp-canary/docs/api-key',
    `/${Array.from({ length: 15 }, (_, i) => `l${i}`).join('/')}`,
    'arn:aws:ssm:eu-west-1:111122223333:parameter/mcp/key',
    'arn:aws:ssm:eu-west-1:111122223333:parameter/key',
  ])('accepts %s', (ref) => expect(ssmRefProblem(ref)).toBeNull());

  it.each([
    ['/mcp canary/key', 'has a space at character 5 in the parameter name'],
    ['/mcp/key#1', 'has the character "#" at character 9'],
    ['mcp/key', 'is in a hierarchy but does not start with "/": write "/mcp/key"'],
    ['/mcp//key', 'has an empty level'],
    ['/mcp/key/', 'has an empty level'],
    [`/${Array.from({ length: 16 }, (_, i) => `l${i}`).join('/')}`, 'has 16 levels; SSM allows at most 15'],
    ['awsKey', 'starts with "aws" or "ssm"'],
    ['/SSM/key', 'starts with "aws" or "ssm"'],
    ['/aws/reference/secretsmanager/rates', 'reference it directly: { secretsManager: "rates" }'],
    [
      'arn:aws:secretsmanager:us-east-1:111122223333:secret:x',
      'is a Secrets Manager ARN, not an SSM parameter ARN (a secret belongs in { secretsManager: "<name or ARN>" })',
    ],
    ['arn:aws:ssm:us-east-1:111122223333:document/x', 'has resource "document/x"; a parameter\'s is "parameter/<name>"'],
    ['Arn:aws:ssm:us-east-1:111122223333:parameter/mcp/x', 'is an ARN written "Arn:": an ARN starts with "arn:" exactly'],
  ])('refuses %s', (ref, why) => expect(ssmRefProblem(ref)).toContain(why));

  it('counts the ARN before the name in the 1,011 characters, per region', () => {
    const prefix = 'arn:aws:ssm:us-east-1:111122223333:parameter'.length;
    const fits = `/${'a'.repeat(1011 - prefix - 1)}`;
    expect(ssmNameLengthProblem(fits, 'aws', 'us-east-1')).toBeNull();
    expect(ssmNameLengthProblem(`${fits}b`, 'aws', 'us-east-1')).toMatch(
      /in us-east-1 SSM allows \d+ \(1011 including the \d+-character ARN before the name\)/,
    );
    // A longer region name leaves less room.
    expect(ssmNameLengthProblem(fits, 'aws', 'ap-southeast-2')).not.toBeNull();
  });
});

describe('subscription ARNs', () => {
  it('takes an SQS standard queue, not a FIFO one (a standard topic cannot deliver to it)', () => {
    expect(arnProblem('arn:aws:sqs:us-east-1:111122223333:mcp-pages', SQS_QUEUE_ARN)).toBeNull();
    expect(arnProblem('arn:aws:sqs:us-east-1:111122223333:mcp-pages.fifo', SQS_QUEUE_ARN)).toContain('names a FIFO queue');
    expect(arnProblem('arn:aws:sqs:us-east-1:111122223333:my/queue', SQS_QUEUE_ARN)).toContain('a queue name is 1–80 letters');
    expect(arnProblem('arn:junk', SQS_QUEUE_ARN)).toContain('is not a complete ARN');
    expect(arnProblem('https://sqs.us-east-1.amazonaws.com/111122223333/q', SQS_QUEUE_ARN)).toContain(
      'is not an ARN: give an SQS queue ARN',
    );
    expect(arnProblem('arn:aws:sns:us-east-1:111122223333:topic', SQS_QUEUE_ARN)).toContain('is an SNS ARN, not an SQS queue ARN');
  });

  it('takes a Lambda function, with or without a version or alias', () => {
    for (const ok of ['function:pager', 'function:pager:$LATEST', 'function:pager:7', 'function:pager:live'])
      expect(arnProblem(`arn:aws:lambda:us-east-1:111122223333:${ok}`, LAMBDA_FUNCTION_ARN)).toBeNull();
    expect(arnProblem('arn:aws:lambda:us-east-1:111122223333:layer:x:1', LAMBDA_FUNCTION_ARN)).toContain(
      'a function\'s is "function:<name>"',
    );
    expect(arnProblem('arn:aws:lambda:us-east-1:111122223333:function:a.b', LAMBDA_FUNCTION_ARN)).toContain('a function name is 1–64');
    expect(arnProblem('arn:aws:lambda:us-east-1:111122223333:function:a:b:c', LAMBDA_FUNCTION_ARN)).toContain('has qualifier "b:c"');
  });
});

describe('CloudWatch namespaces', () => {
  it.each(['McpCanary', 'Acme/McpCanary', 'acme.mcp#1:prod', 'aws/mine'])('accepts %s', (ns) => expect(namespaceProblem(ns)).toBeNull());
  it.each([
    ['AWS/Lambda', 'in the AWS/ namespaces CloudWatch reserves'],
    ['AWS/', 'in the AWS/ namespaces CloudWatch reserves'],
    ['', 'is 0 characters; a CloudWatch namespace is 1–255'],
    ['x'.repeat(256), 'is 256 characters'],
    ['Acme Canary', '(no spaces)'],
    [':Acme', 'cannot start with ":"'],
  ])('refuses %j', (ns, why) => expect(namespaceProblem(ns)).toContain(why));
});
