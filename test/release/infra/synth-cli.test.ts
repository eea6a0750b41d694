/**
 * What CI runs: `npm run synth` (the real `cdk synth` over `infra/app.ts` and the example config) with
 * no AWS credentials, bundling the Lambdas with local esbuild and checking cdk-nag; then cfn-lint over
 * every template, and each bundle imported in a fresh Node process (the ESM `require` trap shows there).
 * This is the one test that really bundles.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BriefEnvVar } from '../../../functions/base/config/env/brief-env.ts';
import { EnvVar } from '../../../functions/base/config/env/env.ts';
import { describeNeeding } from '../../helpers/tools.ts';
import { TELEMETRY_EXPORT_FILE, UNDICI_FILE } from '../../../infra/constructs/bundle.ts';

/** Every suite here needs cfn-lint: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['cfn-lint']);

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
let dir: string;
let out: string;
let synthMs: number;

/** The environment of a machine with no AWS credentials or config at all. */
function noCredentials(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(AWS_|CDK_DEFAULT_)/.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-cli-'));
  out = join(dir, 'cdk.out');
  const started = performance.now();
  await run('npm', ['run', 'synth', '--', '--output', out], { cwd: root, env: noCredentials(dir), maxBuffer: 64 * 1024 * 1024 });
  synthMs = performance.now() - started;
  console.log(`npm run synth (bundling included): ${Math.round(synthMs)} ms`);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const templates = () => readdirSync(out).filter((f) => f.endsWith('.template.json'));

describe('npm run synth, offline and without credentials', () => {
  it('writes a template per stack of the example fleet', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { stackName?: string } }>;
    };
    const stacks = Object.values(manifest.artifacts)
      .filter((a) => a.type === 'aws:cloudformation:stack')
      .map((a) => a.properties!.stackName!)
      .sort();
    expect(stacks.filter((s) => !s.startsWith('McpCanary-alarms-'))).toEqual([
      'McpCanary-home',
      'McpCanary-probe-ap-southeast-2',
      'McpCanary-probe-eu-west-1',
      'McpCanary-probe-us-east-1',
    ]);
    expect(stacks.some((s) => s.startsWith('McpCanary-alarms-'))).toBe(true);
    expect(templates()).toHaveLength(stacks.length);
  });

  it('passes cfn-lint on every template', async () => {
    const files = templates().map((f) => join(out, f));
    const lint = await run('cfn-lint', ['--', ...files]).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(lint.stdout).toBe('');
    expect(lint.code).toBe(0);
  });

  it('would fail cfn-lint on a broken alarm (the lint is live)', async () => {
    const template = JSON.parse(
      readFileSync(
        join(
          out,
          templates().find((f) => f.includes('Alarms'))!,
        ),
        'utf8',
      ),
    ) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
    const alarm = Object.values(template.Resources).find((r) => r.Type === 'AWS::CloudWatch::Alarm')!;
    alarm.Properties.ComparisonOperator = 'GreaterThanOrEqual';
    const broken = join(dir, 'broken.template.json');
    writeFileSync(broken, JSON.stringify(template));
    const lint = await run('cfn-lint', ['--', broken]).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(lint.code).not.toBe(0);
    expect(lint.stdout).toContain("'GreaterThanOrEqual' is not one of");
  });

  it('bundles each Lambda as one ESM file that imports cleanly in a fresh Node process', async () => {
    const bundles = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')))
      .map((d) => join(out, d, 'index.mjs'));
    expect(bundles.length).toBe(2); // the run handler (same code in every region) and the brief
    const env = {
      ...noCredentials(dir),
      AWS_REGION: 'eu-west-1',
      [EnvVar.homeRegion]: 'us-east-1',
      [BriefEnvVar.topicArn]: 'arn:aws:sns:us-east-1:111122223333:McpCanary-briefs',
      [BriefEnvVar.fleet]: 'McpCanary',
      [BriefEnvVar.runLogGroup]: '/mcp-canary/McpCanary/run',
      [BriefEnvVar.failureThreshold]: '3',
      [BriefEnvVar.probeRegions]: 'us-east-1,eu-west-1',
      [BriefEnvVar.quorum]: '1:1,2:2',
    };
    for (const file of bundles) {
      const probe = `import(${JSON.stringify(`file://${file}`)}).then((m) => { console.log(typeof m.handler); })`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { env });
      expect(stdout.trim(), file).toBe('function');
      const text = readFileSync(file, 'utf8');
      expect(text).not.toMatch(/Dynamic require of/);
    }
    // The run handler's telemetry export, built beside it by the afterBundling hook, imports on its own too.
    const sides = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, TELEMETRY_EXPORT_FILE)))
      .map((d) => join(out, d, TELEMETRY_EXPORT_FILE));
    expect(sides).toHaveLength(1);
    const probe = `import(${JSON.stringify(`file://${sides[0]}`)}).then((m) => { console.log(typeof m.exportBatch); })`;
    expect((await run(process.execPath, ['--input-type=module', '-e', probe], { env })).stdout.trim()).toBe('function');
    // undici (proxies, a target's own TLS) beside it too, with the require the bundles' banner gives it.
    const undici = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, UNDICI_FILE)))
      .map((d) => join(out, d, UNDICI_FILE));
    expect(undici).toHaveLength(1);
    const probeUndici = `import(${JSON.stringify(`file://${undici[0]}`)}).then((m) => { console.log(typeof m.EnvHttpProxyAgent); })`;
    expect((await run(process.execPath, ['--input-type=module', '-e', probeUndici], { env })).stdout.trim()).toBe('function');
  });

  it('fails on an invalid fleet with one line naming the target and the field', async () => {
    const config = join(dir, 'bad-fleet.json');
    writeFileSync(
      config,
      JSON.stringify({
        homeRegion: 'us-east-1',
        targets: [
          { name: 'ok', url: 'https://ok.example.com/mcp' },
          { name: 'docs', url: 'https://docs.example.com/mcp', budgetMs: 50_000 },
        ],
      }),
    );
    const failed = await run('npx', ['cdk', 'synth', '--quiet', '--output', join(dir, 'bad.out')], {
      cwd: root,
      env: { ...noCredentials(dir), MCP_CANARY_CONFIG: config },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).not.toBeNull();
    expect(failed!.stderr).toContain('mcp-canary fleet config: targets[1] ("docs").budgetMs (50000 ms) needs a 63 s function timeout');
    expect(failed!.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  });
});
