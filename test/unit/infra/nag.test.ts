/**
 * cdk-nag's AwsSolutions pack over the whole fleet: it passes, every acknowledgement carries a reason,
 * and the check is live (a non-compliant resource added to the same app fails synth).
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import example from '../../../mcp-canary.config.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';

function acknowledgements(root: IConstruct): Array<{ path: string; id: string; reason: string }> {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['the example fleet', example, undefined],
    ['a fleet with every subscriber kind and two rates', smallFleet(), undefined],
    // The account docs/package.md's CDK-app snippet sets: acknowledgements must follow the ARNs it makes literal.
    ['the example fleet in account 111122223333', example, '111122223333'],
    ['a fleet with every subscriber kind in account 111122223333', smallFleet(), '111122223333'],
  ])('passes for %s', (_name, config, account) => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', config, { account });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).not.toThrow();
    } finally {
      cleanup();
    }
  });

  it('acknowledges only what it must, each with a reason', () => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', smallFleet());
      const acks = acknowledgements(app);
      expect([...new Set(acks.map((a) => a.id.replace(/\[.*\]$/, '[…]')))].sort()).toEqual([
        'AwsSolutions-IAM5[…]',
        'AwsSolutions-SNS2',
        'AwsSolutions-SQS3',
      ]);
      for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(60);
      expect(
        acks
          .filter((a) => a.id.startsWith('AwsSolutions-IAM5'))
          .map((a) => a.id)
          .sort(),
      ).toEqual(
        [
          ...REGIONS.map(
            (r) => `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:${r}:<AWS::AccountId>:log-group:/mcp-canary/McpCanary/run:*]`,
          ),
          ...Array(3).fill('AwsSolutions-IAM5[Resource::*]'),
          // The secret rule (infra/plan/secret-scope.ts): one wildcard per service, account and region, never per secret.
          ...REGIONS.flatMap((r) => [
            `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:${r}:<AWS::AccountId>:secret:mcp-canary/*]`,
            `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:${r}:<AWS::AccountId>:parameter/mcp-canary/*]`,
          ]),
        ].sort(),
      );
    } finally {
      cleanup();
    }
  });

  it('fails synth for a non-compliant resource in the same app', () => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', smallFleet());
      new Topic(new Stack(app, 'Extra', { env: { region: 'us-east-1' } }), 'PlainTopic');
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).toThrow(/AwsSolutions-SNS3|Validation failed/);
    } finally {
      cleanup();
    }
  });
});
