/**
 * AWS's regions, by partition: the one list the fleet schema, the run's environment and the ARN checks
 * read. A region outside it is refused at `cdk synth` and by `mcp-canary check --config`, naming the
 * field, with "did you mean" when it is a typo.
 *
 * Sources (AWS docs): https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html
 * (aws), https://docs.amazonaws.cn/en_us/aws/latest/userguide/endpoints-Beijing.html (aws-cn),
 * https://docs.aws.amazon.com/govcloud-us/latest/UserGuide/using-govcloud-endpoints.html (aws-us-gov),
 * https://docs.aws.eu/ (aws-eusc, the AWS European Sovereign Cloud, GA 2026-01-15).
 *
 * To add a region AWS has opened: add its code to its partition's list below (and a new partition to
 * PARTITIONS). test/unit/base/config/regions.test.ts compares this list with the AWS SDK's endpoint data and
 * names any region the SDK knows and this list lacks, so an SDK upgrade tells you.
 *
 * Supported: the public partitions anyone can open an account in. Refused with a reason: the ISO
 * partitions (aws-iso, aws-iso-b, aws-iso-e, aws-iso-f) — air-gapped clouds whose service lists are not
 * public, so nothing here can promise EventBridge Scheduler or alarm mute rules there.
 */
import { closest } from '../words/did-you-mean.ts';

export interface Partition {
  /** The ARN partition, e.g. `aws-cn` in `arn:aws-cn:sns:cn-north-1:…`. */
  readonly id: string;
  readonly name: string;
  readonly regions: readonly string[];
}

export const PARTITIONS: readonly Partition[] = [
  {
    id: 'aws',
    name: 'AWS commercial',
    regions: [
      'af-south-1',
      'ap-east-1',
      'ap-east-2',
      'ap-northeast-1',
      'ap-northeast-2',
      'ap-northeast-3',
      'ap-south-1',
      'ap-south-2',
      'ap-southeast-1',
      'ap-southeast-2',
      'ap-southeast-3',
      'ap-southeast-4',
      'ap-southeast-5',
      'ap-southeast-6',
      'ap-southeast-7',
      'ca-central-1',
      'ca-west-1',
      'eu-central-1',
      'eu-central-2',
      'eu-north-1',
      'eu-south-1',
      'eu-south-2',
      'eu-west-1',
      'eu-west-2',
      'eu-west-3',
      'il-central-1',
      'me-central-1',
      'me-south-1',
      'me-west-1',
      'mx-central-1',
      'sa-east-1',
      'sa-west-1',
      'us-east-1',
      'us-east-2',
      'us-west-1',
      'us-west-2',
    ],
  },
  { id: 'aws-cn', name: 'AWS China', regions: ['cn-north-1', 'cn-northwest-1'] },
  { id: 'aws-us-gov', name: 'AWS GovCloud (US)', regions: ['us-gov-east-1', 'us-gov-west-1'] },
  { id: 'aws-eusc', name: 'AWS European Sovereign Cloud', regions: ['eusc-de-east-1'] },
];

/** Region codes of the ISO partitions, by their shape: refused with the reason, not as a typo. */
const ISO_REGION = /^(us|eu)-iso[a-z]?-[a-z]+-\d+$/;

const BY_REGION = new Map(PARTITIONS.flatMap((p) => p.regions.map((r) => [r, p] as const)));

export const ALL_REGIONS: readonly string[] = [...BY_REGION.keys()];

/** The partition a listed region is in; undefined for anything else. */
export function partitionOf(region: string): Partition | undefined {
  return BY_REGION.get(region);
}

/** Why `region` is not one the canary can deploy to, or null when it is. Phrased to follow a field name. */
export function regionProblem(region: string): string | null {
  if (BY_REGION.has(region)) return null;
  if (ISO_REGION.test(region)) {
    return `is ${JSON.stringify(region)}, a region of AWS's ISO partitions, which the canary does not support (their service lists are not public, so EventBridge Scheduler and alarm mute rules cannot be promised there): use a region of aws, aws-cn, aws-us-gov or aws-eusc`;
  }
  const near = closestRegions(region);
  const hint = near.length > 0 ? ` Did you mean ${near.map((r) => JSON.stringify(r)).join(' or ')}?` : '';
  return `is not an AWS region: got ${JSON.stringify(region)}.${hint} Use a region code from AWS's list, e.g. eu-west-1 or us-east-1`;
}

/** `EU-West-1 ` → `eu-west-1`; `eu-west-9` → `eu-west-1`, `eu-west-2`, `eu-west-3`. */
function closestRegions(region: string): string[] {
  const plain = region.trim().toLowerCase();
  return BY_REGION.has(plain) ? [plain] : closest(plain, ALL_REGIONS);
}
