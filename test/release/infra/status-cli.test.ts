/**
 * The real `npm run synth` (infra/app.ts, cdk-nag and the quotas on, bundling with local esbuild) over a
 * config with a public status page: exit 0, the status stack's template with its distribution, and the
 * status function's bundle among the assets. No AWS credentials.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding } from '../../helpers/tools.ts';

const describe = describeNeeding(['cfn-lint']);
const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
let dir: string;
let out: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-status-cli-'));
  out = join(dir, 'cdk.out');
  const config = join(dir, 'fleet.json');
  writeFileSync(
    config,
    JSON.stringify({
      homeRegion: 'eu-west-1',
      probeRegions: ['eu-west-1', 'us-east-1'],
      statusPage: { title: 'Acme MCP status', public: true },
      targets: [
        { name: 'search-prod', url: 'https://search.example.com/mcp', status: { name: 'Search tools' } },
        { name: 'admin-prod', url: 'https://admin.example.com/mcp', status: { hidden: true } },
      ],
    }),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(AWS_|CDK_DEFAULT_)/.test(k)) env[k] = v;
  await run('npm', ['run', 'synth', '--', '--output', out], {
    cwd: root,
    env: { ...env, HOME: dir, MCP_CANARY_CONFIG: config, AWS_EC2_METADATA_DISABLED: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run synth with a public status page', () => {
  it('synthesizes the status stack, CloudFront and the bundled status function, with no secret in its input', async () => {
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { stackName?: string; templateFile?: string } }>;
    };
    const artifact = Object.values(manifest.artifacts).find((a) => a.properties?.stackName === 'McpCanary-status')!;
    const file = join(out, artifact.properties!.templateFile!);
    const template = JSON.parse(readFileSync(file, 'utf8')) as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;
    };
    const types = Object.values(template.Resources).map((r) => r.Type);
    expect(types).toEqual(
      expect.arrayContaining(['AWS::CloudFront::Distribution', 'AWS::CloudFront::OriginAccessControl', 'AWS::Scheduler::Schedule']),
    );
    const fn = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::Function')!;
    const asset = fn.Metadata?.['aws:asset:path'] as string;
    expect(existsSync(join(out, asset, 'index.mjs'))).toBe(true);
    const schedule = Object.values(template.Resources).find((r) => r.Type === 'AWS::Scheduler::Schedule')!;
    const input = (schedule.Properties!.Target as { Input: string }).Input;
    expect(input).toContain('Search tools');
    expect(input).not.toMatch(/admin|example\.com|https?:/);
    const lint = await run('cfn-lint', ['--', file]).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(lint.stdout).toBe('');
  });
});
