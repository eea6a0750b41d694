/**
 * Issue 16's "Synth accepts what cannot work (exit 0)" list, one fleet config each, with what the
 * refusal must say. The CDK app (test/unit/infra/config-errors.test.ts) and `mcp-canary check --config`
 * (test/unit/cli/config-errors.test.ts) are both fed these files: each was accepted before, and each must
 * now fail naming the field, in one line.
 */
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import type { HeaderSecretRef } from '../../../functions/base/config/schema/target.ts';

// Port 9 on loopback refuses at once: a config the CLI wrongly accepted fails fast as unreachable (exit 1).
const target = { name: 'rates', url: 'http://127.0.0.1:9/mcp' };
const base: FleetInput = { homeRegion: 'us-east-1', targets: [target] };
const withSecret = (ref: HeaderSecretRef): FleetInput => ({ ...base, targets: [{ ...target, headerSecrets: { Authorization: ref } }] });

export interface Bullet {
  readonly name: string;
  readonly config: FleetInput;
  /** Fragments the one-line message must contain, in order. */
  readonly says: readonly string[];
  /** The CLI reads the field (it runs the fleet's targets): the CLI refuses it too. */
  readonly cli: boolean;
}

export const BULLETS: readonly Bullet[] = [
  {
    name: 'region eu-nowhere-9',
    config: { ...base, homeRegion: 'eu-nowhere-9' },
    says: ['homeRegion is not an AWS region: got "eu-nowhere-9"', "Use a region code from AWS's list"],
    cli: true,
  },
  {
    name: 'a probe region one letter off',
    config: { ...base, probeRegions: ['us-east-1', 'eu-wset-1'] },
    says: ['probeRegions[1] is not an AWS region: got "eu-wset-1". Did you mean "eu-west-1"?'],
    cli: true,
  },
  {
    name: 'rate(1 minutes)',
    config: { ...base, schedule: 'rate(1 minutes)' },
    says: ['schedule rate(1 minutes) is not valid: EventBridge Scheduler wants "minute" for 1. Write rate(1 minute)'],
    cli: true,
  },
  {
    name: 'a malformed secret ARN',
    config: withSecret({ secretsManager: 'arn:aws:secretsmanager:us-east-1:mcp-canary/rates' }),
    says: ['targets[0] ("rates").headerSecrets.Authorization.secretsManager', 'a Secrets Manager secret ARN, e.g. arn:aws:secretsmanager:'],
    cli: true,
  },
  {
    name: 'an S3 ARN as a secret',
    config: withSecret({ secretsManager: 'arn:aws:s3:::mcp-canary-secrets/rates' }),
    says: ['targets[0] ("rates").headerSecrets.Authorization.secretsManager is an S3 ARN, not a Secrets Manager secret ARN'],
    cli: true,
  },
  {
    name: 'sqsQueueArn: "arn:junk"',
    config: { ...base, notify: { pages: [{ sqsQueueArn: 'arn:junk' }] } },
    says: ['notify.pages[0].sqsQueueArn is not a complete ARN', 'give an SQS queue ARN, e.g. arn:aws:sqs:us-east-1:111122223333:'],
    cli: true,
  },
  {
    name: 'an SSM parameter name with spaces',
    config: withSecret({ ssmParameter: '/mcp canary/rates key' }),
    says: ['targets[0] ("rates").headerSecrets.Authorization.ssmParameter has a space at character 5 in the parameter name'],
    cli: true,
  },
  {
    name: 'namespace AWS/Lambda',
    config: { ...base, namespace: 'AWS/Lambda' },
    says: ['namespace is "AWS/Lambda", in the AWS/ namespaces CloudWatch reserves', 'no metric would be published'],
    cli: true,
  },
  {
    name: 'a maintenance window in 2001',
    config: {
      ...base,
      maintenance: [{ name: 'y2k-cleanup', schedule: 'at(2001-01-01T02:00)', duration: '2 hours', timezone: 'Europe/Berlin' }],
    },
    // The window ended at 03:00 UTC: 02:00 in Berlin (UTC+1 in January) plus two hours.
    says: [
      'maintenance[0] ("y2k-cleanup").schedule at(2001-01-01T02:00) (Europe/Berlin) ended at 2001-01-01 03:00 UTC',
      'Remove the window',
    ],
    // The CLI mutes no alarm: it ignores windows, and an old window must not break a local check.
    cli: false,
  },
  {
    name: 'a raw validator message ("Too small: expected number to be >=1")',
    config: { ...base, quorum: 0 },
    says: ['quorum must be at least 1, got 0'],
    cli: true,
  },
  {
    name: 'a misspelt field',
    config: { ...base, targets: [{ ...target, toool: { name: 'get_rate' } } as never] },
    says: ['targets[0] ("rates") has unknown field(s) "toool" (did you mean "tool"?)'],
    cli: true,
  },
];
