/**
 * The run's secret permissions: one wildcard per service, account and region under `mcp-canary/`,
 * whatever the fleet's size, and every reference outside that rule refused at synth with the target,
 * the field and the fix named. Where a reference is read decides its grant (functions/io/secrets/reader.ts):
 * a name in the probe region, an ARN in the ARN's region and account.
 */
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { MAX_SECRET_SCOPES_PER_REGION } from '../../../infra/plan/secret-scope.ts';
import { render } from '../../helpers/infra/cfn.ts';
import { resourcesOf, synthFleet } from '../../helpers/infra/synth.ts';

const HOME_ARN = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/shared-AbCdEf';

function fleet(targets: FleetInput['targets'], probeRegions = ['us-east-1', 'eu-west-1']): FleetInput {
  return { homeRegion: 'us-east-1', probeRegions, targets };
}

function credentialed(n: number, ref: (i: number) => Record<string, unknown>): FleetInput['targets'] {
  return Array.from({ length: n }, (_, i) => ({
    name: `svc-${i}`,
    url: `https://svc-${i}.example.com/mcp`,
    headerSecrets: { Authorization: { ...ref(i), prefix: 'Bearer ' } },
  })) as unknown as FleetInput['targets'];
}

/** The run role's inline policy as IAM counts it: resolved to its longest form, whitespace removed. */
function runPolicy(config: FleetInput, stack: string, account?: string): { chars: number; secretResources: string[] } {
  const s = synthFleet(config, { account });
  const [, role] = resourcesOf(s.json(stack), 'AWS::IAM::Role').find(([, p]) => String(p.Description).startsWith('mcp-canary run'))!;
  const policies = role.Policies as Array<{ PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } }>;
  const longest = (v: unknown): unknown =>
    typeof v === 'object' && v !== null && ('Fn::Join' in v || 'Fn::Sub' in v || 'Fn::GetAtt' in v || 'Ref' in v)
      ? render(v)
          .replace('${AWS::Partition}', 'aws-iso-b')
          .replace('${AWS::AccountId}', '111122223333')
          .replace(/\$\{[^}]+\}/g, 'x'.repeat(200))
      : Array.isArray(v)
        ? v.map(longest)
        : typeof v === 'object' && v !== null
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, longest(x)]))
          : v;
  const statements = policies.flatMap((p) => p.PolicyDocument.Statement);
  const secretResources = statements
    // BatchGetSecretValue has no resource type ('*'): it returns only what the GetSecretValue grants allow.
    .filter((x) => /secretsmanager|ssm/.test(JSON.stringify(x.Action)) && x.Action !== 'secretsmanager:BatchGetSecretValue')
    .flatMap((x) => (Array.isArray(x.Resource) ? x.Resource : [x.Resource]).map(render));
  return { chars: JSON.stringify(longest(policies)).replace(/\s/g, '').length, secretResources };
}

describe('the run role reads secrets by a rule, not by a list', () => {
  it('keeps the same policy for 3 and for 150 credentialed targets (the first release passed IAM’s 10,240 characters at ~120)', () => {
    const names = (i: number) => ({ secretsManager: `mcp-canary/svc-${i}` });
    const few = runPolicy(fleet(credentialed(3, names), ['eu-west-1']), 'McpCanary-probe-eu-west-1');
    const many = runPolicy(fleet(credentialed(150, names), ['eu-west-1']), 'McpCanary-probe-eu-west-1');
    expect(many.chars).toBe(few.chars);
    expect(many.chars).toBeLessThan(2_000);
    expect(many.secretResources).toEqual(['arn:${AWS::Partition}:secretsmanager:eu-west-1:${AWS::AccountId}:secret:mcp-canary/*']);
  });

  it("reads a home-region ARN from every probe region in the ARN's own region and account", () => {
    const config = fleet(
      credentialed(5, () => ({ secretsManager: HOME_ARN })),
      ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
    );
    for (const region of ['us-east-1', 'eu-west-1', 'ap-southeast-2']) {
      expect(runPolicy(config, `McpCanary-probe-${region}`).secretResources).toEqual([
        'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/*',
      ]);
    }
  });

  it('grants names, ARNs, SSM parameters and OAuth material each once per scope, and literal ARNs in a set account', () => {
    const config = fleet([
      {
        name: 'a',
        url: 'https://a.example.com/mcp',
        headerSecrets: {
          'X-Token': { secretsManager: 'mcp-canary/a' },
          'X-Key': { ssmParameter: '/mcp-canary/a/key' },
          'X-Other': { ssmParameter: 'arn:aws:ssm:eu-central-1:444455556666:parameter/mcp-canary/a/other' },
        },
        auth: {
          oauth: {
            clientId: 'canary',
            clientSecret: { secretsManager: HOME_ARN },
            tokenUrl: 'https://auth.example.com/token',
          },
        },
      },
      {
        name: 'b',
        url: 'https://b.example.com/mcp',
        auth: {
          oauth: {
            clientId: 'canary',
            privateKeyJwt: { privateKey: { ssmParameter: '/mcp-canary/b/private-key' } },
            tokenUrl: 'https://auth.example.com/token',
          },
        },
      },
    ]);
    expect(runPolicy(config, 'McpCanary-probe-eu-west-1', '111122223333').secretResources).toEqual([
      'arn:${AWS::Partition}:secretsmanager:eu-west-1:111122223333:secret:mcp-canary/*',
      'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/*',
      'arn:${AWS::Partition}:ssm:eu-west-1:111122223333:parameter/mcp-canary/*',
      'arn:aws:ssm:eu-central-1:444455556666:parameter/mcp-canary/*',
    ]);
  });
});

describe('a reference outside the rule fails synth, naming the target, the field and the fix', () => {
  const refused = (targets: FleetInput['targets']) => {
    try {
      planFleet(fleet(targets));
    } catch (e) {
      expect((e as Error).name).toBe('CanaryError');
      return (e as Error).message;
    }
    throw new Error('planFleet accepted it');
  };
  const one = (extra: Record<string, unknown>) =>
    [{ name: 'rates', url: 'https://rates.example.com/mcp', ...extra }] as FleetInput['targets'];

  it.each([
    [
      'a secret name',
      one({ headerSecrets: { Authorization: { secretsManager: 'prod/rates-token' } } }),
      'targets[0] ("rates").headerSecrets.Authorization.secretsManager ("prod/rates-token") is outside mcp-canary/',
      'Store it as "mcp-canary/prod/rates-token"',
    ],
    [
      'a secret ARN',
      one({ headerSecrets: { Authorization: { secretsManager: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:rates-AbCdEf' } } }),
      'headerSecrets.Authorization.secretsManager ("arn:aws:secretsmanager:us-east-1:111122223333:secret:rates-AbCdEf") is outside mcp-canary/',
      'and reference that ARN',
    ],
    [
      'an SSM parameter',
      one({ headerSecrets: { 'X-Api-Key': { ssmParameter: '/team/rates/key' } } }),
      'targets[0] ("rates").headerSecrets.X-Api-Key.ssmParameter ("/team/rates/key") is outside /mcp-canary/',
      'Store it as "/mcp-canary/team/rates/key"',
    ],
    [
      'an OAuth client secret',
      one({ auth: { oauth: { clientId: 'c', clientSecret: { secretsManager: 'oauth/rates' }, tokenUrl: 'https://auth.example.com/t' } } }),
      'targets[0] ("rates").auth.oauth.clientSecret.secretsManager ("oauth/rates") is outside mcp-canary/',
      '"mcp-canary/oauth/rates"',
    ],
    [
      'an OAuth private key',
      one({
        auth: {
          oauth: { clientId: 'c', privateKeyJwt: { privateKey: { ssmParameter: '/keys/rates' } }, tokenUrl: 'https://auth.example.com/t' },
        },
      }),
      'targets[0] ("rates").auth.oauth.privateKeyJwt.privateKey.ssmParameter ("/keys/rates") is outside /mcp-canary/',
      '"/mcp-canary/keys/rates"',
    ],
    [
      'an SSM name without its leading slash',
      one({ headerSecrets: { 'X-Api-Key': { ssmParameter: 'mcp-canary/rates/key' } } }),
      // The config's own SSM name rule (functions/base/config/aws/arns.ts) refuses it first, with the same fix.
      'headerSecrets.X-Api-Key.ssmParameter is in a hierarchy but does not start with "/"',
      'write "/mcp-canary/rates/key"',
    ],
    [
      'an ARN of another service',
      one({ headerSecrets: { Authorization: { secretsManager: 'arn:aws:s3:::mcp-canary/token' } } }),
      // Refused by the config's ARN shapes (functions/base/config/aws/arns.ts) before the scope is looked at.
      'headerSecrets.Authorization.secretsManager is an S3 ARN, not a Secrets Manager secret ARN',
      'give a Secrets Manager secret ARN, e.g. arn:aws:secretsmanager:',
    ],
  ])('%s', (_what, targets, where, fix) => {
    const message = refused(targets);
    expect(message).toContain(where);
    expect(message).toContain(fix);
  });

  it(`refuses more than ${MAX_SECRET_SCOPES_PER_REGION} accounts and regions of secrets per probe region, naming the one past it`, () => {
    const accounts = (i: number) => String(100000000000 + i);
    const targets = credentialed(MAX_SECRET_SCOPES_PER_REGION + 1, (i) => ({
      secretsManager: `arn:aws:secretsmanager:us-east-1:${accounts(i)}:secret:mcp-canary/t`,
    }));
    expect(refused(targets)).toContain(
      `targets[${MAX_SECRET_SCOPES_PER_REGION}] ("svc-${MAX_SECRET_SCOPES_PER_REGION}").headerSecrets.Authorization.secretsManager`,
    );
    expect(() => planFleet(fleet(targets.slice(0, MAX_SECRET_SCOPES_PER_REGION)))).not.toThrow();
  });

  it('counts a scope as service, partition, region and account, and says so: 21 accounts in one region, each with a secret and a parameter, are 42', () => {
    // Prepare: only 21 account-and-region pairs, but two services each
    const account = (i: number) => String(100000000000 + Math.floor(i / 2));
    const targets = credentialed(42, (i) =>
      i % 2 === 0
        ? { secretsManager: `arn:aws:secretsmanager:us-east-1:${account(i)}:secret:mcp-canary/t` }
        : { ssmParameter: `arn:aws:ssm:us-east-1:${account(i)}:parameter/mcp-canary/t` },
    );
    // Act
    const message = refused(targets);
    // Assess: the words match what is counted
    expect(message).toContain('targets[40] ("svc-40").headerSecrets.Authorization.secretsManager');
    expect(message).toContain('to 41; the run role allows at most 40');
    expect(message).toContain('A scope is one combination of service, partition, region and account: Secrets Manager and SSM count apart');
    expect(message).not.toMatch(/account-and-region pairs/);
  });
});
