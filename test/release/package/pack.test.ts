/**
 * The package as a user gets it: `npm pack` (which builds through prepack) into a folder named as
 * docs/package.md's sibling clone, then its "As a package" lines typed in an empty project beside it
 * (install the tarball, `npx mcp-canary check`, install it with the CDK peers), its import
 * lines, the CLI against a real MCP server, a `.ts` config loaded by the built CLI, a consumer
 * type-checked against the declarations, and a two-line CDK app synthesized with the construct,
 * deploying the Lambda bundles the package ships. `npm publish --dry-run` is clean.
 * Needs the npm registry (or npm's cache) for the dependencies; nothing else leaves 127.0.0.1.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP } from '../../../functions/cli/help.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { readmeCommands } from '../../helpers/readme-commands.ts';

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
const DOC = readFileSync(join(ROOT, 'docs/package.md'), 'utf8');
/** docs/package.md's lines for a project that installs the tarball, in order. */
const PACKAGE_LINES = readmeCommands(DOC)
  .filter((c) => c.section === 'As a package')
  .map((c) => c.command);

let dir: string;
let app: string;
let tarball: string;
let packed: string[];
let api: RatesApi;
let server: RunningServer;
/** What each of the doc's lines printed, by line. */
const typed = new Map<string, Finished>();

async function run(command: string, args: string[], cwd = app): Promise<Finished> {
  return runToEnd(command, args, { cwd, env: ENV, killAfterMs: SLOW });
}

function ok(r: Finished, what: string): Finished {
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`.slice(0, 4000));
  return r;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A user's shell in the project: this suite's Node first; the doc's placeholder endpoint is the local server. */
function sh(line: string): Promise<Finished> {
  const local = line.replace(/https:\/\/mcp\.example\.com\/mcp(?=\s|$)/g, server.url);
  return runToEnd('bash', ['-c', local], {
    cwd: app,
    env: { ...ENV, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) },
    killAfterMs: SLOW,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-pack-'));
  // As docs/package.md lays it out: the clone (here, where the tarball lands) beside the user's project.
  const clone = join(dir, pkg.name);
  app = join(dir, 'app');
  mkdirSync(app);
  mkdirSync(clone);
  const pack = ok(await run('npm', ['pack', '--json', '--pack-destination', clone], ROOT), 'npm pack');
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(clone, info!.filename);
  packed = info!.files.map((f) => f.path);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  api = await startRatesApi();
  server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
  // The doc's lines after the pack, typed in order (the first, `npm ci && npm pack`, is the pack above).
  for (const line of PACKAGE_LINES.slice(1)) typed.set(line, ok(await sh(line), line));
}, SLOW);

afterAll(async () => {
  await Promise.all([server?.close(), api?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the packed ${pkg.name}`, () => {
  it("is what docs/package.md's install lines name, typed as the doc shows them", () => {
    expect(PACKAGE_LINES[0]).toBe('npm ci && npm pack');
    const file = tarball.slice(tarball.lastIndexOf('/') + 1);
    expect(PACKAGE_LINES.slice(1)).toEqual([
      `npm install ../${pkg.name}/${file}`,
      'npx mcp-canary check https://mcp.example.com/mcp',
      `npm install ../${pkg.name}/${file} aws-cdk-lib constructs`,
    ]);
    const check = typed.get('npx mcp-canary check https://mcp.example.com/mcp')!;
    expect(check.stdout).toMatch(/^HEALTHY {2}2026-07-28 /m);
    for (const dep of ['mcp-canary', 'aws-cdk-lib', 'constructs'])
      expect(existsSync(join(app, 'node_modules', dep, 'package.json')), dep).toBe(true);
  });

  it("runs docs/package.md's import lines", async () => {
    const block = /## As a package[\s\S]*?```ts\n([\s\S]*?)```/.exec(DOC)![1]!;
    const imports = block.split('\n').filter((l) => l.startsWith('import '));
    expect(imports).toHaveLength(2);
    const script = `${imports.join('\n')}\nprocess.stdout.write(typeof judge + ' ' + typeof McpCanaryFleet);`;
    const r = ok(await run(process.execPath, ['--input-type=module', '-e', script]), "the doc's imports");
    expect(r.stdout).toBe('function function');
  });

  it('publishes clean: npm publish --dry-run names no problem, only that nobody is logged in here', async () => {
    const r = ok(await run('npm', ['publish', '--dry-run', '--ignore-scripts'], ROOT), 'npm publish --dry-run');
    const warnings = r.stderr.split('\n').filter((l) => /^npm (warn|error)/.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
    expect(r.stdout).toContain(`+ ${pkg.name}@${pkg.version}`);
  });

  it('carries exactly the built code, the README, LICENSE and package.json: no sources, tests or stray files', () => {
    const stray = packed.filter(
      (f) =>
        !['LICENSE', 'README.md', 'package.json', 'dist/package.json'].includes(f) &&
        !/^dist\/(cli|functions|infra|lambda)\/.+\.(m?js|d\.ts)$/.test(f),
    );
    expect(stray).toEqual([]);
    expect(packed.filter((f) => /^dist\/functions\/(demo|cli)\//.test(f))).toEqual([]);
  });

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
        'dist/lambda/status/index.mjs',
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

  it("loads a .ts config in the built CLI on this Node (--help's third example), importing defineFleet from the package", async () => {
    writeFileSync(
      join(app, 'mcp-canary.config.ts'),
      `import { defineFleet, type FleetInput } from 'mcp-canary';
const rates: FleetInput['targets'][number] = { name: 'rates-prod', url: ${JSON.stringify(server.url)}, tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } } };
export default defineFleet({ homeRegion: 'us-east-1', targets: [rates] });
`,
    );
    const r = await run('npx', [
      '--no-install',
      'mcp-canary',
      'check',
      '--config',
      'mcp-canary.config.ts',
      '--target',
      'rates-prod',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject([{ target: 'rates-prod', outcome: 'healthy' }]);
  });

  it('says what to do when Node will not strip the types: turned off, or syntax it cannot strip', async () => {
    const off = await runToEnd('npx', ['--no-install', 'mcp-canary', 'check', '--config', 'mcp-canary.config.ts'], {
      cwd: app,
      env: { ...ENV, NODE_OPTIONS: '--no-experimental-strip-types' },
    });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain(
      `--config mcp-canary.config.ts: Node ${process.version} has type stripping turned off (--no-experimental-strip-types, in NODE_OPTIONS?), so it cannot load a .ts config. Remove that flag, or write the config as .mjs or .json.`,
    );
    writeFileSync(
      join(app, 'enum.config.ts'),
      `enum Region { Home = 'us-east-1' }\nexport default { homeRegion: Region.Home, targets: [] };\n`,
    );
    const enumConfig = await run('npx', ['--no-install', 'mcp-canary', 'check', '--config', 'enum.config.ts']);
    expect(enumConfig.code).toBe(2);
    expect(enumConfig.stderr).toMatch(/uses TypeScript that Node cannot strip \(.*enum.*\)\. Write it with type annotations only/);
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
    // The peers the construct's declarations name, as the user's CDK app has them: docs/package.md's last install line.
    expect(existsSync(join(app, 'node_modules/aws-cdk-lib/package.json'))).toBe(true);
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
