/**
 * The refresher in the synthesized fleet: only where delegated grants are, one writer by its lease and
 * no reserved concurrency (a new account could not deploy it), a schedule carrying the grants, IAM on exactly the named secrets, the canary owner's
 * alarm per grant with the fix, cdk-nag clean and AWS's quotas still checked at synth.
 */
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';

const delegated = () =>
  smallFleet({
    targets: [
      ...smallFleet().targets,
      {
        name: 'jira',
        url: 'https://mcp.atlassian.example.com/v1/mcp',
        probeRegions: ['us-east-1', 'eu-west-1'],
        tool: { name: 'getAccessibleAtlassianResources' },
        auth: { authorizationCode: { store: { secretsManager: 'mcp-canary/jira/grant' }, refreshTokenLifetimeDays: 90 } },
      },
    ],
  } as never);

function homeTemplate(config: ReturnType<typeof smallFleet>) {
  const { app, cleanup } = newTestApp();
  try {
    const fleet = new McpCanaryFleet(app, 'McpCanary', config);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
    return Template.fromStack(fleet.home);
  } finally {
    cleanup();
  }
}

describe('the refresher', () => {
  it('synthesizes cdk-nag clean with one writer, its schedule and exactly the named secrets', () => {
    const t = homeTemplate(delegated());
    // No reservation: Lambda keeps 100 of an account's concurrency unreserved, and a new account may have no more.
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'McpCanary-refresh', ReservedConcurrentExecutions: Match.absent() });
    const rules = t.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(5 minutes)' } });
    const input = JSON.parse(Object.values(rules)[0]!.Properties.Targets[0].Input as string);
    expect(input).toEqual({
      grants: [
        {
          target: 'jira',
          url: 'https://mcp.atlassian.example.com/v1/mcp',
          secret: 'mcp-canary/jira/grant',
          regions: ['us-east-1', 'eu-west-1'],
          refreshTokenLifetimeDays: 90,
          allowPrivateNetwork: false,
        },
      ],
    });
    const policies = JSON.stringify(t.findResources('AWS::IAM::Role'));
    expect(policies).toContain('secret:mcp-canary/jira/grant-??????');
    // The access tokens by their name pattern, one resource per probe region.
    expect(policies).toContain('secret:mcp-canary/*/access-??????');
    expect(policies).not.toContain('secret:mcp-canary/jira/grant/access-??????');
    expect(policies).not.toMatch(/mcp-canary\/jira\/grant\*|secret:mcp-canary\/\*"[^]*PutSecretValue/);
    // No private CA: nothing more to read.
    expect(policies).not.toContain('ssm:GetParameter');
    expect(policies.match(/secretsmanager:GetSecretValue/g)).toHaveLength(2);
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'McpCanary/canary/jira-credential',
      MetricName: 'CanaryCredentialRefused',
      AlarmDescription: Match.stringLikeRegexp(
        'mcp-canary login https://mcp.atlassian.example.com/v1/mcp --store-secret mcp-canary/jira/grant',
      ),
    });
  });

  it("refuses more grants than the refresher's schedule input holds with a config error naming the field", () => {
    const targets = Array.from({ length: 60 }, (_, i) => ({
      name: `jira-${i}`,
      url: `https://mcp${i}.atlassian.example.com/v1/mcp`,
      auth: { authorizationCode: { store: { secretsManager: `mcp-canary/jira-${i}/grant` } } },
    }));
    const error = (() => {
      try {
        homeTemplate(smallFleet({ probeRegions: ['us-east-1'], targets } as never));
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    // A CanaryError: the app prints its message alone and exits 2 (it was a plain Error, a stack trace).
    expect(error?.name).toBe('CanaryError');
    expect(error?.message).toMatch(
      /^mcp-canary fleet config: 60 targets with auth\.authorizationCode make the refresher's schedule input \d+ characters, over the 8192 EventBridge allows a rule target's Input: shorten their grant secret names \(auth\.authorizationCode\.store\.secretsManager\)/,
    );
  });

  it('keeps its role policy the same size however many delegated targets there are, within IAM at 30 × 5 regions', () => {
    const regions = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'];
    const targets = Array.from({ length: 30 }, (_, i) => ({
      name: `jira-${i}`,
      url: `https://mcp${i}.atlassian.example.com/v1/mcp`,
      auth: { authorizationCode: { store: { secretsManager: `mcp-canary/jira-${i}/grant` } } },
    }));
    const { app, cleanup } = newTestApp();
    try {
      const fleet = new McpCanaryFleet(app, 'McpCanary', smallFleet({ probeRegions: regions, targets } as never));
      app.synth();
      // One access-token resource per region, not 30 × 5 (which put the role over IAM's 10,240 characters).
      expect(fleet.quotas.findings.map((f) => f.message)).toEqual([]);
      const role = Object.values(Template.fromStack(fleet.home).findResources('AWS::IAM::Role')).find((r) =>
        JSON.stringify(r).includes('/access-'),
      );
      expect(JSON.stringify(role).match(/\/access-\?{6}/g)).toHaveLength(regions.length);
    } finally {
      cleanup();
    }
  });

  it("carries each target's private CA to the refresher and lets it read them, one resource per scope, cdk-nag and quota clean", () => {
    // Each target its own CA secret (the worst case for the policy), one in SSM, one by ARN in another account.
    const ca = (i: number) =>
      i === 0
        ? { ssmParameter: '/mcp-canary/corp/ca' }
        : i === 1
          ? { secretsManager: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:mcp-canary/shared/ca', jsonKey: 'pem' }
          : { secretsManager: `mcp-canary/jira-${i}/ca` };
    const targets = Array.from({ length: 20 }, (_, i) => ({
      name: `jira-${i}`,
      url: `https://mcp${i}.corp.example.com/v1/mcp`,
      // The last probed from ap-southeast-2 alone: its runs read the plain name there, and so does the refresher.
      ...(i === 19 ? { probeRegions: ['ap-southeast-2'] } : {}),
      tls: { ca: ca(i) },
      auth: { authorizationCode: { store: { secretsManager: `mcp-canary/jira-${i}/grant` } } },
    }));
    const { app, cleanup } = newTestApp();
    try {
      const fleet = new McpCanaryFleet(app, 'McpCanary', smallFleet({ probeRegions: ['us-east-1', 'eu-west-1'], targets } as never));
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      app.synth();
      expect(fleet.quotas.findings.map((f) => f.message)).toEqual([]);
      const t = Template.fromStack(fleet.home);
      const rules = t.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(5 minutes)' } });
      const input = JSON.parse(Object.values(rules)[0]!.Properties.Targets[0].Input as string) as { grants: Array<{ ca?: unknown }> };
      expect(input.grants.map((g) => g.ca)).toEqual(targets.map((x) => x.tls.ca));
      const role = Object.values(t.findResources('AWS::IAM::Role')).find((r) => JSON.stringify(r).includes('/access-'));
      const statements = (
        role!.Properties.Policies as Array<{ PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } }>
      )
        .flatMap((p) => p.PolicyDocument.Statement)
        .map((st) => ({ action: st.Action, resource: JSON.stringify(st.Resource) }));
      const reads = statements.filter((st) => st.action === 'secretsmanager:GetSecretValue');
      // Plain names where the runs read them (home, or the only probe region), the ARN in its own: three resources for 19 secrets.
      expect(reads).toHaveLength(1);
      expect(reads[0]!.resource).toContain('arn:aws:secretsmanager:eu-west-1:111122223333:secret:mcp-canary/*');
      expect(reads[0]!.resource).toMatch(/:us-east-1:.*secret:mcp-canary\/\*"/);
      expect(reads[0]!.resource).toMatch(/:ap-southeast-2:.*secret:mcp-canary\/\*"/);
      expect(reads[0]!.resource.match(/mcp-canary\/\*"/g)).toHaveLength(3);
      const ssm = statements.filter((st) => st.action === 'ssm:GetParameter');
      expect(ssm).toHaveLength(1);
      expect(ssm[0]!.resource).toMatch(/:us-east-1:.*parameter\/mcp-canary\/\*"/);
    } finally {
      cleanup();
    }
  });

  it('is not there without delegated grants', () => {
    const t = homeTemplate(smallFleet());
    expect(Object.keys(t.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'McpCanary-refresh' } }))).toEqual([]);
  });
});
