/**
 * The refresher in the synthesized fleet: only where delegated grants are, one writer (reserved
 * concurrency 1), a schedule carrying the grants, IAM on exactly the named secrets, the canary owner's
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
    t.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'McpCanary-refresh', ReservedConcurrentExecutions: 1 });
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
    expect(policies).toContain('secret:mcp-canary/jira/grant/access-??????');
    expect(policies).not.toMatch(/mcp-canary\/jira\/grant\*|secret:mcp-canary\/\*"[^]*PutSecretValue/);
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'McpCanary/canary/jira-credential',
      MetricName: 'CanaryCredentialRefused',
      AlarmDescription: Match.stringLikeRegexp(
        'mcp-canary login https://mcp.atlassian.example.com/v1/mcp --store-secret mcp-canary/jira/grant',
      ),
    });
  });

  it('is not there without delegated grants', () => {
    const t = homeTemplate(smallFleet());
    expect(Object.keys(t.findResources('AWS::Lambda::Function', { Properties: { FunctionName: 'McpCanary-refresh' } }))).toEqual([]);
  });
});
