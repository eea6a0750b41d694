/**
 * How our Lambdas are built and run: Node 24 on arm64, one ESM file bundled locally by esbuild (no
 * Docker), with the run engineer's esbuild options (`infra/bundle.ts`) so the deployed file is the one
 * the bundle test imported.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CfnResource } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IConstruct } from 'constructs';
import { nodejsFunctionBundling } from '../bundle.ts';

export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;

/** The package root: entry points and the lock file are found from here, wherever the package is installed. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function entry(relativePath: string): string {
  return fileURLToPath(new URL(`../../${relativePath}`, import.meta.url));
}

const lockFile = fileURLToPath(new URL('../../package-lock.json', import.meta.url));
export const DEPS_LOCK_FILE: string | undefined = existsSync(lockFile) ? lockFile : undefined;

export const LAMBDA_BUNDLING: BundlingOptions = {
  // `infra/bundle.ts` spells the format as esbuild does; NodejsFunction wants its enum.
  format: nodejsFunctionBundling.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
  target: nodejsFunctionBundling.target,
  mainFields: [...nodejsFunctionBundling.mainFields],
  minify: nodejsFunctionBundling.minify,
  sourceMap: nodejsFunctionBundling.sourceMap,
  banner: nodejsFunctionBundling.banner,
  externalModules: [...nodejsFunctionBundling.externalModules],
  forceDockerBundling: false,
};

/**
 * CDK adds `DependsOn: <role>` to every function given a role, although `Role: !GetAtt role.Arn` already
 * orders them; cfn-lint flags that redundancy (W3005). Told on this resource only, so it stays on elsewhere.
 */
export function allowRedundantRoleDependency(fn: IConstruct): void {
  (fn.node.defaultChild as CfnResource).addMetadata('cfn-lint', { config: { ignore_checks: ['W3005'] } });
}
