/**
 * The deployed side of client certificates, private CAs and proxies: TLS references and the proxy's
 * credentials are granted like every other reference (under mcp-canary/, one scope per account and
 * region); a file reference or a proxy URL with a password is refused at synth with the fix; the
 * fleet's proxy reaches the run function as MCP_CANARY_PROXY (its credentials a reference, never a
 * value); its VPC puts the functions in the named subnets and security groups, with the network
 * interface permissions scoped to them; cdk-nag's AwsSolutions pack passes and the quotas hold.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { EnvVar, readRunEnv } from '../../../functions/base/config/env/env.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { checkQuotas } from '../../../infra/quotas/check.ts';
import { render } from '../../helpers/infra/cfn.ts';
import { newTestApp, resourcesOf, synthFleet } from '../../helpers/infra/synth.ts';

const VPC = {
  vpcId: 'vpc-0abc12345def67890',
  subnetIds: ['subnet-0aaa1111bbbb22223', 'subnet-0ccc3333dddd44445'],
  securityGroupIds: ['sg-0eee5555ffff66667'],
};

function fleet(over: Partial<FleetInput> = {}): FleetInput {
  return {
    homeRegion: 'eu-west-1',
    probeRegions: ['eu-west-1'],
    targets: [
      {
        name: 'mesh',
        url: 'https://mesh.internal.example.com/mcp',
        tls: {
          clientCertificate: { secretsManager: 'mcp-canary/mesh/cert' },
          clientKey: { secretsManager: 'mcp-canary/mesh/key' },
          passphrase: { ssmParameter: '/mcp-canary/mesh/passphrase' },
          ca: { secretsManager: 'mcp-canary/private-ca' },
        },
      },
    ],
    proxy: {
      url: 'http://proxy.internal:3128',
      credentials: { secretsManager: 'mcp-canary/proxy' },
      noProxy: ['.internal.example.com'],
      vpcs: { 'eu-west-1': VPC },
    },
    ...over,
  };
}

function statements(template: ReturnType<ReturnType<typeof synthFleet>['json']>): Array<{ Action: unknown; Resource: unknown }> {
  const policies = [
    ...resourcesOf(template, 'AWS::IAM::Role')
      .flatMap(([, r]) => (r.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? [])
      .map((p) => p.PolicyDocument),
    ...resourcesOf(template, 'AWS::IAM::Policy').map(([, p]) => p.PolicyDocument),
  ] as Array<{ Statement: Array<{ Action: unknown; Resource: unknown }> }>;
  return policies.flatMap((p) => p.Statement);
}

describe('TLS references, the proxy and its VPC, deployed', () => {
  it('grants the TLS and proxy references under mcp-canary/ and nothing else', () => {
    const plan = planFleet(fleet());
    expect(plan.regions[0]!.secretScopes).toEqual([{ service: 'secretsmanager' }, { service: 'ssm' }]);
    expect(plan.targets[0]!.secretRefs.map((r) => r.field)).toEqual([
      'tls.clientCertificate.secretsManager',
      'tls.clientKey.secretsManager',
      'tls.passphrase.ssmParameter',
      'tls.ca.secretsManager',
    ]);
  });

  it('refuses a TLS reference outside mcp-canary/, a file reference, and proxy credentials outside the prefix, each with the fix', () => {
    const outside = fleet();
    (outside.targets[0]!.tls as Record<string, unknown>).ca = { secretsManager: 'team/ca' };
    expect(() => planFleet(outside)).toThrow(/targets\[0\] \("mesh"\)\.tls\.ca\.secretsManager \("team\/ca"\) is outside mcp-canary\//);
    const file = fleet();
    (file.targets[0]!.tls as Record<string, unknown>).clientKey = 'file:./client.key';
    expect(() => planFleet(file)).toThrow(
      /targets\[0\] \("mesh"\)\.tls\.clientKey is a file reference, which only the CLI can read: store the PEM in Secrets Manager/,
    );
    const proxyOutside = fleet({ proxy: { url: 'http://proxy.internal:3128', credentials: { secretsManager: 'corp/proxy' } } });
    expect(() => planFleet(proxyOutside)).toThrow(/proxy\.credentials\.secretsManager \("corp\/proxy"\) is outside mcp-canary\//);
  });

  it('grants proxy credentials in SSM like every other SSM reference, and refuses one outside /mcp-canary/ with the fix', () => {
    const ssm = fleet({ proxy: { url: 'http://proxy.internal:3128', credentials: { ssmParameter: '/mcp-canary/proxy' } } });
    const t = ssm.targets[0]!.tls as Record<string, unknown>;
    delete t.passphrase;
    expect(planFleet(ssm).regions[0]!.secretScopes).toEqual([{ service: 'secretsmanager' }, { service: 'ssm' }]);
    const outside = fleet({ proxy: { url: 'http://proxy.internal:3128', credentials: { ssmParameter: '/corp/proxy' } } });
    expect(() => planFleet(outside)).toThrow(
      /proxy\.credentials\.ssmParameter \("\/corp\/proxy"\) is outside \/mcp-canary\/.*"\/mcp-canary\/corp\/proxy"/,
    );
    expect(() => planFleet(fleet({ proxy: { url: 'http://proxy.internal:3128', credentials: 'canary:hunter2' as never } }))).toThrow(
      /proxy\.credentials must be a reference, never the credentials themselves/,
    );
  });

  it('refuses a proxy URL with a password (it would be in the template) and a probe region without its VPC', () => {
    expect(() => planFleet(fleet({ proxy: { url: 'http://user:hunter2-secret@proxy.internal:3128' } }))).toThrow(
      /proxy\.url carries credentials before its host .* reference it in proxy\.credentials/,
    );
    expect(() => planFleet(fleet({ probeRegions: ['eu-west-1', 'us-east-1'] }))).toThrow(
      /proxy\.vpcs has no VPC for probe region us-east-1/,
    );
  });

  it('passes the proxy to the run function as MCP_CANARY_PROXY, which the run reads back; the credentials stay a reference', () => {
    const s = synthFleet(fleet());
    const stack = [...s.templates.keys()].find(
      (k) =>
        /eu-west-1|Probe/.test(k) && resourcesOf(s.json(k), 'AWS::Lambda::Function').length > 0 && /Run/.test(JSON.stringify(s.json(k))),
    )!;
    const fns = resourcesOf(s.json(stack), 'AWS::Lambda::Function').filter(([, f]) =>
      String(f.Description).startsWith('mcp-canary: judges'),
    );
    expect(fns.length).toBeGreaterThan(0);
    for (const [, fn] of fns) {
      const env = (fn.Environment as { Variables: Record<string, string> }).Variables;
      // The ledger's table name is a Ref in the template: only the literal variables are read back here.
      const literal = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === 'string'));
      const run = readRunEnv({ ...literal, AWS_REGION: 'eu-west-1' });
      expect(run.proxy).toEqual({
        url: 'http://proxy.internal:3128',
        credentials: { secretsManager: 'mcp-canary/proxy' },
        noProxy: ['.internal.example.com'],
      });
      expect(env[EnvVar.proxy]).not.toMatch(/@/);
      expect(fn.VpcConfig).toEqual({ SubnetIds: VPC.subnetIds, SecurityGroupIds: VPC.securityGroupIds });
    }
    const eni = statements(s.json(stack)).filter((st) => JSON.stringify(st.Action).includes('ec2:'));
    const rendered = eni.map((st) => ({
      Action: st.Action,
      Resource: ([] as unknown[]).concat(st.Resource).map((r) => (typeof r === 'string' ? r : render(r))),
    }));
    const create = rendered.find((st) => st.Action === 'ec2:CreateNetworkInterface')!;
    expect(create.Resource).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/:ec2:eu-west-1:\$\{AWS::AccountId\}:network-interface\/\*$/),
        expect.stringMatching(/subnet\/subnet-0aaa1111bbbb22223$/),
        expect.stringMatching(/security-group\/sg-0eee5555ffff66667$/),
      ]),
    );
    expect(rendered.find((st) => JSON.stringify(st.Action).includes('Describe'))!.Resource).toEqual(['*']);
  });

  it('no VPC and no proxy variable without a proxy setting', () => {
    const s = synthFleet(fleet({ proxy: undefined }));
    for (const name of s.templates.keys()) {
      for (const [, fn] of resourcesOf(s.json(name), 'AWS::Lambda::Function')) {
        expect(fn.VpcConfig).toBeUndefined();
        expect(JSON.stringify(fn.Environment ?? {})).not.toContain(EnvVar.proxy);
      }
    }
  });

  it('passes cdk-nag AwsSolutions and the quota checks with the proxy, its VPC and the TLS grants', () => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', fleet());
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      const assembly = app.synth();
      // The added statements stay inside IAM's role-policy sizes and every other quota infra/quotas checks.
      expect(checkQuotas(assembly)).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
