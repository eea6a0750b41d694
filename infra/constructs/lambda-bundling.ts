/**
 * How our Lambdas are built and run: Node 24 on arm64, one ESM file bundled locally by esbuild (no
 * Docker), with the run engineer's esbuild options (`infra/constructs/bundle.ts`) so the deployed file is the one
 * the bundle test imported. In this repository `NodejsFunction` bundles the `.ts` entry at synth; the
 * installed package has neither esbuild nor `.ts` sources, so `npm run build` bundles each handler with
 * the same options into `dist/lambda/<name>/index.mjs` and the construct deploys that file as it is.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CfnResource } from 'aws-cdk-lib';
import { Architecture, Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat, type BundlingOptions, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IConstruct } from 'constructs';
import { createRequire } from 'node:module';
import { HANDLER_SIDE_FILES, nodejsFunctionBundling, RUN_HANDLER_NAME, sideFileCommands } from './bundle.ts';

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
  // `infra/constructs/bundle.ts` spells the format as esbuild does; NodejsFunction wants its enum.
  format: nodejsFunctionBundling.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
  target: nodejsFunctionBundling.target,
  mainFields: [...nodejsFunctionBundling.mainFields],
  minify: nodejsFunctionBundling.minify,
  sourceMap: nodejsFunctionBundling.sourceMap,
  banner: nodejsFunctionBundling.banner,
  externalModules: [...nodejsFunctionBundling.externalModules],
  forceDockerBundling: false,
};

/** Our Lambda handlers: the source entry, and where `npm run build` puts its bundle. */
export const HANDLERS = {
  run: { entry: 'functions/lambdas/run/handler.ts', asset: 'lambda/run' },
  brief: { entry: 'functions/lambdas/brief/handler.ts', asset: 'lambda/brief' },
  refresh: { entry: 'functions/lambdas/refresh/handler.ts', asset: 'lambda/refresh' },
  status: { entry: 'functions/lambdas/status/handler.ts', asset: 'lambda/status' },
} as const;
export type HandlerName = keyof typeof HANDLERS;

/**
 * Where a function's code comes from, as `NodejsFunction` props. Compiled (this file is `.js`, inside the
 * installed package's `dist/`): the pre-built bundle beside it, deployed as it is; from source: the `.ts`
 * entry, bundled at synth with `LAMBDA_BUNDLING`. Both are built with `infra/constructs/bundle.ts`'s options.
 */
export function handlerCode(
  name: HandlerName,
): Pick<NodejsFunctionProps, 'code' | 'handler' | 'entry' | 'projectRoot' | 'depsLockFilePath' | 'bundling'> {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) {
    const asset = fileURLToPath(new URL(`../../${HANDLERS[name].asset}/`, import.meta.url));
    if (!existsSync(`${asset}index.mjs`)) {
      // A broken install, not a config error, so a plain Error on purpose: the CDK app (app.ts) ends every
      // CanaryError as a config error (exit 2, the message alone), and this stays the crash it has been.
      throw new Error(
        `mcp-canary: the ${name} function's bundle is missing (${asset}index.mjs). Reinstall the package, or run \`npm run build\` in a checkout.`,
      );
    }
    return { code: Code.fromAsset(asset), handler: RUN_HANDLER_NAME };
  }
  const source = entry(HANDLERS[name].entry);
  return {
    entry: source,
    handler: 'handler',
    projectRoot: PACKAGE_ROOT,
    depsLockFilePath: DEPS_LOCK_FILE,
    bundling: HANDLER_SIDE_FILES.has(source) ? { ...LAMBDA_BUNDLING, commandHooks: sideFileHooks(source) } : LAMBDA_BUNDLING,
  };
}

/** Builds a handler's side files (the telemetry export) into the asset, after NodejsFunction's own esbuild run. */
function sideFileHooks(source: string): NonNullable<BundlingOptions['commandHooks']> {
  const esbuildBin = createRequire(import.meta.url).resolve('esbuild/bin/esbuild');
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => sideFileCommands(source, outputDir, esbuildBin),
  };
}

/**
 * CDK adds `DependsOn: <role>` to every function given a role, although `Role: !GetAtt role.Arn` already
 * orders them; cfn-lint flags that redundancy (W3005). Told on this resource only, so it stays on elsewhere.
 */
export function allowRedundantRoleDependency(fn: IConstruct): void {
  (fn.node.defaultChild as CfnResource).addMetadata('cfn-lint', { config: { ignore_checks: ['W3005'] } });
}
