/**
 * A synthesized cloud assembly (`cdk.out`) as the CDK CLI reads it before `cdk deploy --all`: every
 * stack, nested assemblies included, in dependency order (the CLI's own reader sorts them), each with its
 * region, template, the bootstrap version it requires and the file assets it publishes first.
 */
import { AssetManifestArtifact, CloudAssembly, type CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import type { FileAsset } from 'aws-cdk-lib/cloud-assembly-schema';
import { join } from 'node:path';

/** A failure of the rehearsal: it names the stack and resource (or the step) and what to do. */
export class RehearsalError extends Error {
  override readonly name = 'RehearsalError';
}

export interface Template {
  readonly Parameters?: Record<string, { readonly Type: string; readonly Default?: unknown }>;
  readonly Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  readonly Conditions?: Record<string, unknown>;
  readonly Rules?: Record<
    string,
    { readonly RuleCondition?: unknown; readonly Assertions: ReadonlyArray<{ Assert: unknown; AssertDescription?: string }> }
  >;
  readonly Resources: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Condition?: string; readonly Export?: { readonly Name: unknown } }>;
}

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
  readonly Condition?: string;
  readonly Metadata?: Record<string, unknown>;
}

export interface FileAssetToPublish {
  readonly id: string;
  /** Absolute path of the file or directory. */
  readonly path: string;
  readonly packaging: 'file' | 'zip';
  /** With `${AWS::AccountId}`-style placeholders, as the asset manifest writes them. */
  readonly bucketName: string;
  readonly objectKey: string;
  readonly region: string;
}

export interface AssemblyStack {
  readonly artifactId: string;
  readonly stackName: string;
  readonly region: string;
  readonly template: Template;
  /** The template asset's `s3://bucket/key` (placeholders unresolved): where a large template is read from. */
  readonly templateUrl: string | undefined;
  readonly requiresBootstrapVersion: number | undefined;
  readonly bootstrapVersionParameter: string | undefined;
  readonly assets: readonly FileAssetToPublish[];
}

export function readAssembly(dir: string): AssemblyStack[] {
  const assembly = new CloudAssembly(dir);
  return assembly.stacksRecursively.map((s) => readStack(s));
}

function readStack(s: CloudFormationStackArtifact): AssemblyStack {
  const region = s.environment.region;
  if (!region || region.startsWith('unknown')) {
    throw new RehearsalError(
      `Stack ${s.stackName} has no region: give it env.region (the rehearsal deploys each stack in its own region).`,
    );
  }
  const manifests = s.dependencies.filter(AssetManifestArtifact.isAssetManifestArtifact);
  return {
    artifactId: s.id,
    stackName: s.stackName,
    region,
    template: s.template as Template,
    templateUrl: s.stackTemplateAssetObjectUrl,
    requiresBootstrapVersion: s.requiresBootstrapStackVersion,
    bootstrapVersionParameter: s.bootstrapStackVersionSsmParameter,
    assets: manifests.flatMap((m) => fileAssets(m)),
  };
}

function fileAssets(m: AssetManifestArtifact): FileAssetToPublish[] {
  const base = join(m.file, '..');
  const out: FileAssetToPublish[] = [];
  const contents = m.contents;
  if (Object.keys(contents.dockerImages ?? {}).length > 0) {
    throw new RehearsalError(`${m.id} has container image assets: the rehearsal publishes file assets only (there is no Docker here).`);
  }
  for (const [id, asset] of Object.entries<FileAsset>(contents.files ?? {})) {
    if (!asset.source.path)
      throw new RehearsalError(`File asset ${id} of ${m.id} has no source path (an executable asset): not rehearsed.`);
    for (const d of Object.values(asset.destinations)) {
      out.push({
        id,
        path: join(base, asset.source.path),
        packaging: asset.source.packaging === 'zip' ? 'zip' : 'file',
        bucketName: d.bucketName,
        objectKey: d.objectKey,
        region: d.region ?? '',
      });
    }
  }
  return out;
}
