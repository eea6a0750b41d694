/**
 * The status stack: absent without `statusPage`; a private bucket always (public access blocked, SSL only,
 * encrypted, access-logged); CloudFront with Origin Access Control only when `public`; a role that writes
 * exactly the two objects; a 5-minute schedule whose input carries display names and nothing private;
 * cdk-nag clean both ways.
 */
import { Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { newTestApp, resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const SECRET = 'Bearer-PLANTED-prefix-0042 ';
function statusFleet(page: FleetInput['statusPage']): FleetInput {
  const base = smallFleet();
  return {
    ...base,
    statusPage: page,
    targets: [
      {
        ...base.targets[0]!,
        headerSecrets: { 'X-Api-Key': { secretsManager: 'mcp-canary/rates', prefix: SECRET } },
        status: { name: 'Rates <b>API</b>' },
      },
      { name: 'secret-admin-tool', url: 'https://admin.internal.example.com/mcp', probeRegions: ['sa-east-1'], status: { hidden: true } },
      { name: 'search-prod', url: 'https://search.example.com/mcp' },
    ],
  };
}

describe('status stack', () => {
  it('is not deployed without statusPage', () => {
    const s = synthFleet(smallFleet());
    expect(s.fleet.status).toBeUndefined();
    expect([...s.templates.keys()].some((n) => n.includes('status'))).toBe(false);
  });

  it('keeps the bucket private and writes only its two objects (private page)', () => {
    const s = synthFleet(statusFleet({ title: 'Acme status' }));
    const t = s.template('McpCanary-status');
    const json = s.json('McpCanary-status');
    t.resourceCountIs('AWS::CloudFront::Distribution', 0);
    const buckets = resourcesOf(json, 'AWS::S3::Bucket');
    expect(buckets).toHaveLength(2);
    for (const [, b] of buckets) {
      expect(b.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(JSON.stringify(b.BucketEncryption)).toContain('AES256');
      expect(b.WebsiteConfiguration).toBeUndefined();
    }
    const page = buckets.find(([, b]) => b.LoggingConfiguration !== undefined);
    expect(page, 'the page bucket logs its access').toBeDefined();
    for (const [, p] of resourcesOf(json, 'AWS::S3::BucketPolicy')) {
      const statements = (p.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement;
      expect(statements.some((st) => st.Effect === 'Deny' && JSON.stringify(st.Condition).includes('aws:SecureTransport'))).toBe(true);
      expect(statements.some((st) => st.Effect === 'Allow' && JSON.stringify(st.Principal).includes('"*"'))).toBe(false);
    }
    const role = resourcesOf(json, 'AWS::IAM::Role').find(([id]) => id.startsWith('Role'))!;
    const statements = JSON.stringify(role[1].Policies);
    expect(statements).toContain('s3:PutObject');
    expect(statements).toMatch(/\/index\.html"/);
    expect(statements).toMatch(/\/status\.json"/);
    expect(statements).not.toMatch(/s3:\*|s3:GetObject|s3:DeleteObject|"\/\*"/);
    const actions = (role[1].Policies as Array<{ PolicyDocument: { Statement: Array<{ Action: string | string[] }> } }>).flatMap((p) =>
      p.PolicyDocument.Statement.flatMap((st) => st.Action),
    );
    expect(actions.sort()).toEqual([
      'cloudwatch:GetMetricData',
      'logs:CreateLogStream',
      'logs:FilterLogEvents',
      'logs:PutLogEvents',
      's3:PutObject',
    ]);
    // Failure classes: FilterLogEvents on the run log group in each probe region of a shown target, nothing else
    // (the hidden target's own region is not readable).
    const reads = (role[1].Policies as Array<{ PolicyDocument: { Statement: Array<{ Action: string; Resource: unknown }> } }>)
      .flatMap((p) => p.PolicyDocument.Statement)
      .filter((st) => st.Action === 'logs:FilterLogEvents')
      .flatMap((st) => st.Resource as unknown[])
      .map((r) =>
        JSON.stringify(r)
          .replace(/\{"Ref":"AWS::(\w+)"\}/g, '<$1>')
          .replace(/"Fn::Join":|[{}"[\]]|,/g, ''),
      );
    expect(reads.sort()).toEqual(
      ['ap-southeast-2', 'eu-west-1', 'us-east-1'].flatMap((r) => [
        `arn:<Partition>:logs:${r}:<AccountId>:log-group:/mcp-canary/McpCanary/run`,
        `arn:<Partition>:logs:${r}:<AccountId>:log-group:/mcp-canary/McpCanary/run:*`,
      ]),
    );
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } }),
    });
    const [, schedule] = resourcesOf(json, 'AWS::Scheduler::Schedule')[0]!;
    const input = JSON.parse((schedule.Target as { Input: string }).Input) as { title: string; targets: Array<{ name: string }> };
    expect(input.title).toBe('Acme status');
    expect(input.targets.map((x) => x.name)).toEqual(['Rates <b>API</b>', 'search-prod']);
    const whole = JSON.stringify(json);
    for (const leak of [SECRET, 'secret-admin-tool', 'admin.internal', 'https://rates.example.com', 'mcp-canary/rates'])
      expect(whole, leak).not.toContain(leak);
  });

  it('puts CloudFront with Origin Access Control in front of the still-private bucket (public page)', () => {
    const s = synthFleet(statusFleet({ public: true }));
    const t = s.template('McpCanary-status');
    const json = s.json('McpCanary-status');
    t.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https', ResponseHeadersPolicyId: Match.anyValue() }),
        Origins: [Match.objectLike({ OriginAccessControlId: Match.anyValue(), S3OriginConfig: { OriginAccessIdentity: '' } })],
      }),
    });
    t.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: Match.objectLike({ ContentSecurityPolicy: Match.stringLikeRegexp("default-src 'none'") }),
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 31536000 }),
          FrameOptions: Match.objectLike({ FrameOption: 'DENY' }),
        }),
      }),
    });
    const pagePolicy = resourcesOf(json, 'AWS::S3::BucketPolicy')
      .map(([, p]) => JSON.stringify(p.PolicyDocument))
      .find((d) => d.includes('cloudfront.amazonaws.com'))!;
    expect(pagePolicy).toContain('AWS:SourceArn');
    expect(pagePolicy).toContain('s3:GetObject');
    for (const [, b] of resourcesOf(json, 'AWS::S3::Bucket'))
      expect((b.PublicAccessBlockConfiguration as Record<string, boolean>).BlockPublicPolicy).toBe(true);
  });

  it('serves a custom domain with its certificate and TLS 1.2', () => {
    const certificateArn = 'arn:aws:acm:us-east-1:111122223333:certificate/12345678-1234-1234-1234-123456789012';
    const s = synthFleet(statusFleet({ public: true, domainName: 'status.example.com', certificateArn }));
    s.template('McpCanary-status').hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['status.example.com'],
        ViewerCertificate: Match.objectLike({ AcmCertificateArn: certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021' }),
      }),
    });
  });

  it.each([
    ['private', { title: 'Acme' }],
    ['public', { public: true }],
    [
      'public on a custom domain',
      {
        public: true,
        domainName: 'status.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/12345678-1234-1234-1234-123456789012',
      },
    ],
  ] as const)('passes cdk-nag (%s)', (_name, page) => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', statusFleet(page));
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).not.toThrow();
    } finally {
      cleanup();
    }
  });
});

describe('status page limits and config errors', () => {
  it('refuses a page whose schedule input would pass Lambda’s 256 KB, in the status page’s words', () => {
    const targets = Array.from({ length: 2000 }, (_, i) => ({
      name: `t${i}`,
      url: `https://t${i}.example.com/mcp`,
      status: { name: `Service ${i} `.padEnd(80, 'x') },
    }));
    expect(() => planFleet({ ...smallFleet({ targets }), statusPage: {} })).toThrow(
      /statusPage shows 2000 targets, \d+ bytes as its schedule input, more than 245760 .*status\.hidden/,
    );
  });

  it.each([
    [{ domainName: 'status.example.com', public: true }, /statusPage\.certificateArn.*both domainName and certificateArn/],
    [
      {
        domainName: 'status.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/12345678-1234-1234-1234-123456789012',
      },
      /statusPage\.public.*must be true/,
    ],
    [
      {
        public: true,
        certificateArn: 'arn:aws:acm:eu-west-1:111122223333:certificate/12345678-1234-1234-1234-123456789012',
        domainName: 'status.example.com',
      },
      /us-east-1/,
    ],
    [{ titel: 'typo' }, /statusPage has unknown field\(s\) "titel" \(did you mean "title"\?\)/],
  ])('names the field and the fix for a bad statusPage %#', (statusPage, message) => {
    expect(() => planFleet({ ...smallFleet(), statusPage } as FleetInput)).toThrow(message);
  });

  it('refuses two shown targets with one display name', () => {
    const base = smallFleet();
    const targets = [
      { name: 'a', url: 'https://a.example.com/mcp', status: { name: 'Search' } },
      { name: 'b', url: 'https://b.example.com/mcp', status: { name: 'Search' } },
    ];
    expect(() => planFleet({ ...base, targets, statusPage: {} })).toThrow(
      /targets\[1\] \("b"\)\.status\.name "Search" is already the status-page name of targets\[0\]/,
    );
  });
});
