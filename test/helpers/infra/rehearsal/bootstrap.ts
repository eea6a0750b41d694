/**
 * What `cdk bootstrap` and the CLI's asset publishing do before a stack deploys: the CDK CLI's own
 * bootstrap template (the one `cdk bootstrap` deploys, from the pinned aws-cdk package) deployed as the
 * `CDKToolkit` stack in every region — assets bucket, bootstrap version parameter and roles — then each
 * stack's file assets zipped (directories) or copied (files) into that bucket, as cdk-assets does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { zipSync } from 'fflate';
import type { AssemblyStack, FileAssetToPublish } from './assembly.ts';
import { RehearsalError } from './assembly.ts';
import type { Aws } from './aws.ts';
import { createStackAndWait } from './stack-status.ts';

export const TOOLKIT_STACK = 'CDKToolkit';
const DEFAULT_QUALIFIER = 'hnb659fds';
const DEFAULT_VERSION_PARAMETER = `/cdk-bootstrap/${DEFAULT_QUALIFIER}/version`;

const bootstrapTemplate = readFileSync(createRequire(import.meta.url).resolve('aws-cdk/lib/api/bootstrap/bootstrap-template.yaml'), 'utf8');

/** Deploys the bootstrap stack in each region the stacks need, with the qualifier their version parameter names. */
export async function bootstrap(aws: Aws, stacks: readonly AssemblyStack[]): Promise<void> {
  const byRegion = new Map<string, string>();
  for (const s of stacks) {
    const parameter = s.bootstrapVersionParameter ?? DEFAULT_VERSION_PARAMETER;
    const qualifier = /^\/cdk-bootstrap\/([^/]+)\/version$/.exec(parameter)?.[1];
    if (!qualifier)
      throw new RehearsalError(`${s.stackName}: bootstrap version parameter ${parameter} is not /cdk-bootstrap/<qualifier>/version.`);
    for (const region of new Set([s.region, ...s.assets.map((a) => a.region || s.region)])) {
      const other = byRegion.get(region);
      if (other !== undefined && other !== qualifier)
        throw new RehearsalError(`${region} is bootstrapped with qualifiers ${other} and ${qualifier}.`);
      byRegion.set(region, qualifier);
    }
  }
  await bootstrapRegions(aws, byRegion);
}

/** `cdk bootstrap` of each region, with its qualifier (the CDK's default one unless told). */
export async function bootstrapRegions(aws: Aws, regions: ReadonlyMap<string, string> | readonly string[]): Promise<void> {
  const byRegion = Array.isArray(regions) ? new Map(regions.map((r) => [r, DEFAULT_QUALIFIER])) : (regions as ReadonlyMap<string, string>);
  await Promise.all(
    [...byRegion].map(async ([region, qualifier]) => {
      // Like `cdk bootstrap`, nothing to do where the toolkit stack is already deployed.
      const cfn = aws.at(region).cloudFormation;
      const existing = await cfn.send(new DescribeStacksCommand({ StackName: TOOLKIT_STACK })).then(
        (out) => out.Stacks?.[0]?.StackStatus,
        () => undefined,
      );
      if (existing === 'CREATE_COMPLETE') return;
      await createStackAndWait(cfn, {
        StackName: TOOLKIT_STACK,
        TemplateBody: bootstrapTemplate,
        Parameters: [{ ParameterKey: 'Qualifier', ParameterValue: qualifier }],
        Capabilities: ['CAPABILITY_NAMED_IAM'],
      });
    }),
  );
}

/** Uploads a stack's file assets to their (bootstrapped) buckets. */
export async function publishAssets(aws: Aws, stack: AssemblyStack): Promise<void> {
  await Promise.all(stack.assets.map((a) => publish(aws, a, a.region || stack.region)));
}

async function publish(aws: Aws, asset: FileAssetToPublish, region: string): Promise<void> {
  const fill = (s: string) => substitutePlaceholders(s, { account: aws.account, partition: aws.partition, region });
  const body = asset.packaging === 'zip' ? zipDirectory(asset.path) : readFileSync(asset.path);
  await aws.at(region).s3.send(new PutObjectCommand({ Bucket: fill(asset.bucketName), Key: fill(asset.objectKey), Body: body }));
}

/** The asset manifest's `${AWS::AccountId}` / `${AWS::Partition}` / `${AWS::Region}`, as cdk-assets fills them. */
export function substitutePlaceholders(s: string, env: { account: string; partition: string; region: string }): string {
  return s
    .replaceAll('${AWS::AccountId}', env.account)
    .replaceAll('${AWS::Partition}', env.partition)
    .replaceAll('${AWS::Region}', env.region);
}

function zipDirectory(dir: string): Uint8Array {
  if (!statSync(dir).isDirectory()) throw new RehearsalError(`zip asset ${dir} is not a directory.`);
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files[relative(dir, full).split('\\').join('/')] = readFileSync(full);
    }
  };
  walk(dir);
  return zipSync(files);
}
