/**
 * The package as a user gets it: `npm pack` (which builds through prepack), the tarball installed into
 * an empty folder with production dependencies only, then the CLI run with npx against a real MCP
 * server, the engine imported, a consumer type-checked against the declarations, and a two-line CDK app
 * synthesized with the construct, deploying the Lambda bundles the package ships.
 * Needs the npm registry (or npm's cache) for the dependencies; nothing else leaves 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP } from '../../../functions/cli/help.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';

const ROOT = join(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};
const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
/** npm quietly: no audit, no fund, no update notice, the cache first; and no CDK telemetry. */
const ENV = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_prefer_offline: 'true',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
};
const SLOW = 300_000;

let dir: string;
let app: string;
let tarball: string;
let packed: string[];
let api: RatesApi;
let server: RunningServer;

async function run(command: string, args: string[], cwd = app): Promise<Finished> {
  return runToEnd(command, args, { cwd, env: ENV, killAfterMs: SLOW });
}

function ok(r: Finished, what: string): Finished {
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`.slice(0, 4000));
  return r;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-pack-'));
  app = join(dir, 'app');
  mkdirSync(app);
  const pack = ok(await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT), 'npm pack');
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, info!.filename);
  packed = info!.files.map((f) => f.path);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  ok(await run('npm', ['install', '--omit=dev', tarball]), 'npm install --omit=dev');
  api = await startRatesApi();
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
}, SLOW);

afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the packed ${pkg.name}`, () => {
  it('carries the built code and no sources or tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/cli/start.mjs',
        'dist/functions/index.js',
        'dist/functions/index.d.ts',
        'dist/infra/index.js',
        'dist/lambda/run/index.mjs',
        'dist/lambda/brief/index.mjs',
      ]),
    );
    expect(packed.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(packed.filter((f) => f.startsWith('test/') || f.includes('cdk.out') || f.includes('node_modules'))).toEqual([]);
  });

  it('carries no path of the machine it was built on', () => {
    const installed = join(app, 'node_modules', pkg.name);
    const leaks = packed.filter((f) => readFileSync(join(installed, f), 'utf8').includes(ROOT));
    expect(leaks).toEqual([]);
  });

  it('installs with production dependencies only: no tsx, esbuild or TypeScript at run time', () => {
    for (const tool of ['tsx', 'esbuild', 'typescript', 'vitest']) expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    expect(existsSync(join(app, 'node_modules/.bin/mcp-canary'))).toBe(true);
  });

  it('npx mcp-canary check judges a real MCP server healthy', async () => {
    const r = await run('npx', [
      '--no-install',
      'mcp-canary',
      'check',
      server.url,
      '--tool',
      'get_rate',
      '--args',
      '{"pair":"EURUSD"}',
      '--expect-json',
      'rate=1.08',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [v] = JSON.parse(r.stdout);
    expect(v).toMatchObject({ outcome: 'healthy', failure: null, revision: '2026-07-28' });
    expect(v.probes.map((p: { name: string }) => p.name)).toEqual(['discover', 'tools/list', 'tools/call']);
  });

  it('npx mcp-canary check exits 1 with the failure when the server is gone', async () => {
    const r = await run('npx', ['--no-install', 'mcp-canary', 'check', 'http://127.0.0.1:1/mcp', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject([{ outcome: 'failed', failure: 'unreachable' }]);
  });

  it('npx mcp-canary --help prints the help text', async () => {
    const r = await run('npx', ['--no-install', 'mcp-canary', '--help']);
    expect(r).toMatchObject({ code: 0, stdout: `${HELP}\n`, stderr: '' });
  });

  it("exports the engine: import { judge, Target } from 'mcp-canary'", async () => {
    const script = `import { judge, Target } from 'mcp-canary';
const v = await judge(Target.parse({ name: 'rates', url: ${JSON.stringify(server.url)}, tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectText: 'EURUSD 1.08' } }));
process.stdout.write(JSON.stringify({ outcome: v.outcome, probes: v.probes.length }));`;
    const r = ok(await run(process.execPath, ['--input-type=module', '-e', script]), 'import mcp-canary');
    expect(JSON.parse(r.stdout)).toEqual({ outcome: 'healthy', probes: 3 });
  });

  it('its declarations type-check a consumer (and are not any)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { judge, Target, type Verdict } from 'mcp-canary';
import { McpCanaryFleet, type McpCanaryFleetOptions } from 'mcp-canary/cdk';
export const verdict: Promise<Verdict> = judge(Target.parse({ name: 'x', url: 'https://mcp.example.com/mcp' }));
export const options: McpCanaryFleetOptions = { runMemorySize: 256 };
export { McpCanaryFleet };
// @ts-expect-error an outcome is one of four words (unused if the types were any)
export const wrong: Verdict['outcome'] = 'fine';
`,
    );
    // The peers the construct's declarations name, as the user's CDK app has them.
    ok(
      await run('npm', ['install', `aws-cdk-lib@${pkg.devDependencies['aws-cdk-lib']}`, `constructs@${pkg.devDependencies.constructs}`]),
      'npm install the peers',
    );
    const typeRoots = join(ROOT, 'node_modules/@types'); // @types/node, as any TypeScript user on Node has it
    const r = await run(process.execPath, [
      TSC,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      typeRoots,
      'consumer.ts',
    ]);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('synthesizes a two-line CDK app with the construct, deploying the Lambda bundles it ships', async () => {
    if (!existsSync(join(app, 'node_modules/aws-cdk-lib')))
      ok(
        await run('npm', ['install', `aws-cdk-lib@${pkg.devDependencies['aws-cdk-lib']}`, `constructs@${pkg.devDependencies.constructs}`]),
        'npm install the peers',
      );
    writeFileSync(
      join(app, 'app.mjs'),
      `import { App } from 'aws-cdk-lib'; import { McpCanaryFleet } from 'mcp-canary/cdk';
new McpCanaryFleet(new App({ outdir: 'cdk.out' }), 'Canary', { homeRegion: 'us-east-1', targets: [{ name: 'rates', url: 'https://mcp.example.com/mcp' }] }).node.root.synth();
`,
    );
    ok(await run(process.execPath, ['app.mjs']), 'synth');
    const out = join(app, 'cdk.out');
    const shipped = join(app, 'node_modules', pkg.name, 'dist/lambda');
    const assets = readdirSync(out).filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')));
    expect(assets.map((a) => sha256(join(out, a, 'index.mjs'))).sort()).toEqual(
      [sha256(join(shipped, 'run/index.mjs')), sha256(join(shipped, 'brief/index.mjs'))].sort(),
    );

    const functions = readdirSync(out)
      .filter((f) => f.endsWith('.template.json'))
      .flatMap((f) =>
        Object.values(
          (
            JSON.parse(readFileSync(join(out, f), 'utf8')) as {
              Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
            }
          ).Resources,
        ),
      )
      .filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBe(2);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs24.x', Architectures: ['arm64'] });
      expect(assets.map((a) => `${a.slice('asset.'.length)}.zip`)).toContain((fn.Properties.Code as { S3Key: string }).S3Key);
    }
  });
});
