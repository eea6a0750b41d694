/**
 * docs/package.md's "In your own CDK app", run as written: its install lines, its `app.ts` and its synth
 * command, in a scratch app whose `mcp-canary/cdk` is this checkout's source (a package folder whose
 * exports point into it) and whose other packages are this checkout's installed ones. The example fleet
 * is its `mcp-canary.config.ts`, importing `defineFleet` from `mcp-canary/cdk` as the doc says. A doc
 * edit that breaks the snippet (a package it imports but does not install, an option that fails cdk-nag)
 * fails here.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd, type Finished } from '../../helpers/child.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const DOC = readFileSync(join(ROOT, 'docs/package.md'), 'utf8');

/** The fenced blocks of one section of a doc, in order, with their language. */
function sectionBlocks(markdown: string, heading: string): Array<{ lang: string; body: string }> {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

const blocks = sectionBlocks(DOC, '## In your own CDK app');
const shell = blocks.filter((b) => b.lang === 'sh');
const appSource = blocks.find((b) => b.lang === 'ts')!.body;
const installLines = shell[0]!.body.split('\n').filter((l) => /^npm install /.test(l));
const synthCommand = shell[1]!.body.trim();

/** Package names an `npm install` line installs (flags and comments left out). */
function installed(lines: readonly string[]): Set<string> {
  return new Set(
    lines.flatMap((l) =>
      l
        .replace(/#.*/, '')
        .split(/\s+/)
        .slice(2)
        .filter((w) => w && !w.startsWith('-')),
    ),
  );
}

/** `aws-cdk-lib/aws-sns` → `aws-cdk-lib`; `@scope/pkg/x` → `@scope/pkg`; relative imports are the app's own. */
function packagesImported(source: string): string[] {
  const specifiers = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]!).filter((s) => !s.startsWith('.'));
  return [
    ...new Set(
      specifiers.map((s) =>
        s
          .split('/')
          .slice(0, s.startsWith('@') ? 2 : 1)
          .join('/'),
      ),
    ),
  ];
}

/** The tools the synth command runs with npx, by the package that provides them. */
const NPX_TOOLS: Record<string, string> = { cdk: 'aws-cdk', tsx: 'tsx' };

let dir: string;
let result: Finished;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-readme-app-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  // `mcp-canary`: this checkout's source behind the package's export names.
  const pkg = join(modules, 'mcp-canary');
  mkdirSync(pkg);
  symlinkSync(ROOT, join(pkg, 'src'));
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'mcp-canary', type: 'module', exports: { '.': './src/functions/index.ts', './cdk': './src/infra/index.ts' } }),
  );
  for (const name of ['aws-cdk-lib', 'constructs', 'cdk-nag', 'aws-cdk', 'tsx']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  symlinkSync(join(modules, 'aws-cdk/bin/cdk'), join(modules, '.bin/cdk'));
  symlinkSync(join(modules, 'tsx/dist/cli.mjs'), join(modules, '.bin/tsx'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-cdk-app', private: true, type: 'module' }));
  writeFileSync(join(dir, 'app.ts'), appSource);
  const example = readFileSync(join(ROOT, 'mcp-canary.config.ts'), 'utf8');
  writeFileSync(
    join(dir, 'mcp-canary.config.ts'),
    example.replace("from './functions/base/config/schema/fleet.ts'", "from 'mcp-canary/cdk'"),
  );

  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(AWS_|CDK_)/.test(k)) env[k] = v;
  result = await runToEnd('sh', ['-c', synthCommand], {
    cwd: dir,
    env: {
      ...env,
      PATH: `${join(modules, '.bin')}:${process.env.PATH}`,
      HOME: dir,
      AWS_EC2_METADATA_DISABLED: 'true',
      CDK_DISABLE_CLI_TELEMETRY: 'true',
      npm_config_offline: 'true',
    },
    killAfterMs: 240_000,
  });
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("docs/package.md's CDK app, as written", () => {
  it('installs every package the app imports and every tool the synth command runs', () => {
    const have = installed(installLines);
    expect(packagesImported(appSource).sort()).toEqual(['aws-cdk-lib', 'cdk-nag', 'mcp-canary']);
    for (const p of packagesImported(appSource)) expect(have, `npm install names ${p}`).toContain(p);
    const tools = [...synthCommand.matchAll(/npx (\w+)/g)].map((m) => m[1]!);
    expect(tools.sort()).toEqual(['cdk', 'tsx']);
    for (const t of tools) expect(have, `npm install names ${NPX_TOOLS[t]} (for npx ${t})`).toContain(NPX_TOOLS[t]);
    // The peers a construct library needs beside the app's own imports.
    expect(have).toContain('constructs');
  });

  it('synthesizes with cdk-nag passing, every stack in the account the app sets', () => {
    expect(result.stderr + result.stdout).not.toMatch(/AwsSolutions-|Validation failed/);
    expect(result.code).toBe(0);
    const out = join(dir, 'cdk.out');
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; environment?: string }>;
    };
    const stacks = Object.values(manifest.artifacts).filter((a) => a.type === 'aws:cloudformation:stack');
    expect(stacks.length).toBeGreaterThan(4);
    for (const s of stacks) expect(s.environment).toMatch(/^aws:\/\/111122223333\//);
    expect(readdirSync(out).filter((f) => f.endsWith('.template.json')).length).toBe(stacks.length);
  });
});
