/**
 * The quota checks run at synth, over real synthesized stacks, in the default app and in a user's own
 * CDK app: a stack pushed past a quota fails synth with the one-line message, and the default app exits
 * 2 as for every config error. The example fleet passes every quota.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ArnFormat, CfnResource, Stack, Stage, Validations } from 'aws-cdk-lib';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { CompositePrincipal, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import example from '../../../mcp-canary.config.ts';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { checkQuotas } from '../../../infra/quotas/check.ts';
import { ProbeRegionStack } from '../../../infra/constructs/probe-region-stack.ts';
import { Quotas } from '../../../infra/quotas/limits.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';
import { times } from '../../helpers/infra/quota-templates.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `n` targets in one region, each with a Secrets Manager header secret and a tool (the fleet). */
function credentialedFleet(n: number, extra: Partial<FleetInput> = {}): FleetInput {
  return {
    ...smallFleet(),
    probeRegions: ['us-east-1'],
    notify: {
      pages: [{ url: 'https://events.pagerduty.example.com/integration/abc/enqueue' }],
      canaryOwner: [{ email: 'owner@example.com' }],
    },
    targets: times(n, (i) => ({
      name: `svc-${String(i).padStart(4, '0')}`,
      url: `https://svc-${i}.mcp.example.com/mcp`,
      headerSecrets: { Authorization: { secretsManager: `mcp-canary/svc-${i}`, prefix: 'Bearer ' } },
      tool: { name: 'health_check', arguments: { deep: false } },
    })),
    ...extra,
  };
}

function synthError(build: (app: ReturnType<typeof newTestApp>['app']) => void): Error | undefined {
  const { app, cleanup } = newTestApp();
  try {
    build(app);
    app.synth();
    return undefined;
  } catch (e) {
    return e as Error;
  } finally {
    cleanup();
  }
}

describe('quotas at synth', () => {
  it('passes the example fleet: every stack within every quota', () => {
    const { app, cleanup } = newTestApp();
    try {
      const fleet = new McpCanaryFleet(app, 'McpCanary', example);
      const assembly = app.synth();
      expect(fleet.quotas.findings).toEqual([]);
      expect(checkQuotas(assembly)).toEqual([]);
      expect(assembly.stacks.length).toBeGreaterThan(3);
    } finally {
      cleanup();
    }
  });

  it('refuses the run role of 200 credentialed targets in one region, naming the role, the secrets and the fix', () => {
    const e = synthError((app) => {
      const fleet = new McpCanaryFleet(app, 'McpCanary', credentialedFleet(200));
      // Grant the run role one resource per secret, as today's design does, so this stays over the quota
      // however the fleet's own grants are shaped.
      const probe = fleet.probeStacks.find((s): s is ProbeRegionStack => s instanceof ProbeRegionStack)!;
      const role = [...probe.functions.values()][0]!.role!;
      const arns = times(200, (i) =>
        probe.formatArn({
          service: 'secretsmanager',
          resource: 'secret',
          resourceName: `mcp-canary/svc-${i}-??????`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      );
      role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: arns }));
    });
    // CDK moves statements past its own (token-short) estimate of the inline limit into overflow managed
    // policies; at their longest those pass IAM's 6,144 per managed policy, which is what AWS would refuse.
    const message = e?.message ?? '';
    const inline = /McpCanary-probe-us-east-1: RunRole\w+ \(role RunRole\) has [\d,]+ characters of inline policy/.test(message);
    const overflow =
      /McpCanary-probe-us-east-1: RunRoleOverflowPolicy\w+ \(managed policy OverflowPolicy\d+\) has [\d,]+ characters of policy/.test(
        message,
      );
    expect(inline || overflow, message).toBe(true);
    if (inline) expect(message).toContain('IAM allows 10,240 per role');
    else expect(message).toContain('IAM allows 6,144 per managed policy');
    expect(message).toContain('Fix: ');
  });

  it('refuses a probe stack whose template is over 1 MB, counting the file as cdk deploy uploads it', () => {
    const e = synthError((app) => {
      const fleet = new McpCanaryFleet(app, 'McpCanary', smallFleet());
      new CfnResource(fleet.probeStacks[0]!, 'Ballast', { type: 'AWS::CloudFormation::WaitConditionHandle' }).addMetadata(
        'ballast',
        'x'.repeat(1_000_000),
      );
    });
    expect(e?.message).toMatch(
      /McpCanary-probe-us-east-1: the template has 1,0\d\d,\d{3} bytes of template .*CloudFormation allows 1,000,000 per template from S3/,
    );
  });

  it("fails synth in a user's own CDK app, and leaves the user's own stacks beside it to them", () => {
    let fleet: McpCanaryFleet | undefined;
    const e = synthError((app) => {
      fleet = new McpCanaryFleet(app, 'Canary', smallFleet(), { name: 'Canary' });
      const theirs = new Stack(app, 'TheirStack', { env: { region: 'us-east-1' } });
      new Alarm(theirs, 'Long', {
        alarmName: 'y'.repeat(300),
        metric: new Metric({ namespace: 'N', metricName: 'M' }),
        threshold: 1,
        evaluationPeriods: 1,
      });
      const ours = fleet.home;
      new Alarm(ours, 'Long', {
        alarmName: 'z'.repeat(300),
        metric: new Metric({ namespace: 'N', metricName: 'M' }),
        threshold: 1,
        evaluationPeriods: 1,
      });
    });
    expect(e?.name).toBe('ValidationFailed');
    expect(e?.message).toContain(`Canary-home: Long`);
    expect(e?.message).toContain('has 300 characters in its name (at its longest); CloudWatch allows 255 per alarm name');
    expect(fleet!.quotas.findings.map((f) => f.stack)).toEqual(['Canary-home']);
  });

  it('checks a fleet inside a Stage (as CDK Pipelines deploys it)', () => {
    let fleet: McpCanaryFleet | undefined;
    const e = synthError((app) => {
      fleet = new McpCanaryFleet(new Stage(app, 'Prod'), 'McpCanary', smallFleet());
      new CfnResource(fleet.home, 'Ballast', { type: 'AWS::CloudFormation::WaitConditionHandle' }).addMetadata(
        'ballast',
        'x'.repeat(1_000_000),
      );
    });
    expect(e?.message).toContain('McpCanary-home: the template has');
    expect(fleet!.quotas.findings.map((f) => f.rule)).toEqual([Quotas.templateBytes.id]);
  });

  it('lets an account with a raised quota acknowledge an adjustable finding, and not a hard one', () => {
    const trust = (app: ReturnType<typeof newTestApp>['app'], acknowledge: string | undefined) => {
      const fleet = new McpCanaryFleet(app, 'McpCanary', smallFleet());
      // 60 service principals: about 2,300 characters of trust policy, over the default 2,048.
      const principals = times(60, (i) => new ServicePrincipal(`service${i}.example.amazonaws.com`));
      new Role(fleet.home, 'WideTrust', { assumedBy: new CompositePrincipal(...principals) });
      if (acknowledge)
        Validations.of(fleet).acknowledge({
          id: `mcp-canary-quotas::${acknowledge}`,
          reason: 'trust policy length raised to 4,096 for this account',
        });
    };
    expect(synthError((app) => trust(app, undefined))?.message).toContain('characters of trust policy');
    expect(synthError((app) => trust(app, Quotas.trustPolicySize.id))).toBeUndefined();
    const hard = synthError((app) => {
      const fleet = new McpCanaryFleet(app, 'McpCanary', smallFleet());
      new CfnResource(fleet.home, 'Ballast', { type: 'AWS::CloudFormation::WaitConditionHandle' }).addMetadata(
        'ballast',
        'x'.repeat(1_000_000),
      );
      Validations.of(fleet).acknowledge({ id: `mcp-canary-quotas::${Quotas.templateBytes.id}`, reason: 'no account can raise this one' });
    });
    expect(hard?.message).toContain('CloudFormation allows 1,000,000 per template');
  });

  it("reports a stack over 500 resources in one line instead of cdk's stack trace, and the default app exits 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-quotas-'));
    dirs.push(dir);
    // 520 ticket subscribers: one AWS::SNS::Subscription each, all in the home stack.
    const config = join(dir, 'fleet.json');
    const tickets = times(520, (i) => ({ email: `oncall-${i}@example.com` }));
    writeFileSync(config, JSON.stringify({ ...smallFleet(), notify: { ...smallFleet().notify, tickets } }));
    const env = {
      ...process.env,
      MCP_CANARY_CONFIG: config,
      CDK_OUTDIR: join(dir, 'out'),
      CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
    };
    const result = await run('npx', ['tsx', 'infra/app.ts'], { cwd: root, env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/McpCanary-home: the template has 5\d\d resources; CloudFormation allows 500 per stack\. Fix: /);
    expect(result.stderr).not.toContain('TooManyResourcesInStack');
  }, 120_000);
});
