/**
 * The region list (functions/base/config/aws/regions.ts) against the two machine-readable lists at hand: the AWS
 * SDK's endpoint partitions (which gain a region when AWS opens it) and aws-cdk-lib's RegionInfo. When
 * an SDK upgrade brings a region this list lacks, the first test names it: add it to regions.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { partition } from '@aws-sdk/core/client';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { ALL_REGIONS, PARTITIONS, partitionOf, regionProblem } from '../../../../functions/base/config/aws/regions.ts';

interface SdkPartitions {
  partitions: Array<{ id: string; regions: Record<string, unknown> }>;
}

/** The SDK's partitions.json as @aws-sdk/core ships it (the clients' own dependency). */
function sdkPartitions(): SdkPartitions {
  const fromClient = createRequire(createRequire(import.meta.url).resolve('@aws-sdk/client-cloudwatch'));
  const root = dirname(fromClient.resolve('@aws-sdk/core/package.json'));
  const text = readFileSync(join(root, 'dist-es/submodules/client/util-endpoints/lib/aws/partitions.js'), 'utf8');
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as SdkPartitions;
}

const SUPPORTED = PARTITIONS.map((p) => p.id);

describe('the region list', () => {
  it('has every region the AWS SDK knows in the supported partitions, and none it does not', () => {
    const sdk = sdkPartitions().partitions.filter((p) => SUPPORTED.includes(p.id));
    expect(sdk.map((p) => p.id).sort()).toEqual([...SUPPORTED].sort());
    for (const p of sdk) {
      const known = Object.keys(p.regions).filter((r) => !r.endsWith('-global'));
      expect(PARTITIONS.find((q) => q.id === p.id)!.regions, `add the missing ones to ${p.id} in regions.ts`).toEqual(known.sort());
    }
  });

  it('puts each region in the partition the SDK and the CDK put it in', () => {
    for (const region of ALL_REGIONS) {
      expect(partitionOf(region)!.id, region).toBe(partition(region).name);
      const cdk = RegionInfo.get(region).partition;
      // The CDK lags the SDK by a release or two: a region it does not know yet has no partition there.
      if (RegionInfo.regions.some((r) => r.name === region)) expect(cdk, region).toBe(partitionOf(region)!.id);
    }
    const cdkSupported = RegionInfo.regions.filter((r) => SUPPORTED.includes(r.partition ?? '')).map((r) => r.name);
    expect(cdkSupported.filter((r) => !ALL_REGIONS.includes(r))).toEqual([]);
  });

  it('refuses the ISO partitions with the reason, not as a typo', () => {
    const iso = sdkPartitions()
      .partitions.filter((p) => p.id.startsWith('aws-iso'))
      .flatMap((p) => Object.keys(p.regions).filter((r) => !r.endsWith('-global')));
    expect(iso.length).toBeGreaterThan(0);
    for (const r of iso) expect(regionProblem(r), r).toMatch(/ISO partitions, which the canary does not support/);
  });

  it.each([
    ['eu-west-9', '"eu-west-1" or "eu-west-2" or "eu-west-3"'],
    ['us-est-1', '"us-east-1" or "us-west-1"'],
    ['eu-centrl-1', '"eu-central-1"'],
    ['EU-WEST-1', '"eu-west-1"'],
    ['ap-southeast-22', '"ap-southeast-2"'],
  ])('suggests the nearest for %s', (typo, near) => {
    expect(regionProblem(typo)).toContain(`Did you mean ${near}?`);
  });

  it('suggests nothing for a name nowhere near one, and shows what a region looks like', () => {
    expect(regionProblem('europe')).toBe(
      `is not an AWS region: got "europe". Use a region code from AWS's list, e.g. eu-west-1 or us-east-1`,
    );
  });
});

describe('one fleet, one partition', () => {
  const fleet = { homeRegion: 'us-east-1', targets: [{ name: 'a', url: 'https://a.example.com/mcp' }] };
  const error = (raw: unknown) => {
    try {
      parseFleet(raw);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('accepted');
  };

  it('refuses a probe region in another partition than the home region', () => {
    expect(error({ ...fleet, probeRegions: ['us-east-1', 'us-gov-west-1'] })).toContain(
      "probeRegions[1] is us-gov-west-1, in the aws-us-gov partition: the fleet lives in one partition, its homeRegion's (us-east-1, aws)",
    );
    expect(error({ ...fleet, targets: [{ ...fleet.targets[0], probeRegions: ['cn-north-1'] }] })).toContain(
      'targets[0].probeRegions[0] is cn-north-1, in the aws-cn partition',
    );
  });

  it('refuses a secret or subscription ARN in another partition', () => {
    const secret = { secretsManager: 'arn:aws-cn:secretsmanager:cn-north-1:111122223333:secret:rates' };
    expect(error({ ...fleet, targets: [{ ...fleet.targets[0], headerSecrets: { Authorization: secret } }] })).toContain(
      'targets[0].headerSecrets.Authorization.secretsManager is in the aws-cn partition',
    );
    expect(
      error({ ...fleet, notify: { pages: [{ lambdaArn: 'arn:aws-us-gov:lambda:us-gov-west-1:111122223333:function:p' }] } }),
    ).toContain('notify.pages[0].lambdaArn is in the aws-us-gov partition');
  });

  it('accepts a fleet wholly in another partition', () => {
    const cn = {
      homeRegion: 'cn-north-1',
      probeRegions: ['cn-north-1', 'cn-northwest-1'],
      notify: { pages: [{ sqsQueueArn: 'arn:aws-cn:sqs:cn-north-1:111122223333:pages' }] },
      targets: [
        {
          name: 'a',
          url: 'https://a.example.cn/mcp',
          headerSecrets: { Authorization: { secretsManager: 'arn:aws-cn:secretsmanager:cn-northwest-1:111122223333:secret:a' } },
        },
      ],
    };
    expect(() => parseFleet(cn)).not.toThrow();
  });
});
