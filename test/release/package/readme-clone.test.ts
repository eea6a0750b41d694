/**
 * The docs' commands, run as a new user types them in a fresh clone: `git clone` of this repository's
 * committed HEAD into a temp dir, then each command of README.md, docs/cli.md and docs/config.md in a shell there
 * (`npm ci && npm start` first: it is the install), on the Node running this suite. A shown output is
 * compared line by line, with times, ports and trace ids masked. Every command those docs and
 * docs/package.md show is either run here, run by the package test (the lines for a project that installed
 * the tarball), run by the CDK-app test, or listed below with the reason it is not: a new command fails
 * this test until someone decides.
 * Needs the npm registry (or npm's cache) for `npm ci`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { readmeCommands, type ReadmeCommand } from '../../helpers/readme-commands.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';

const ROOT = join(import.meta.dirname, '../../..');
const SLOW = 300_000;
const TOKEN = 'tok-3e9a1c7b5d2f4a68';

/** Where each command runs, when not in the clone. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  'npm test': 'the suite itself: this test is one of its files',
  'npm run synth':
    'test/release/infra/synth-cli.test.ts runs it (bundling, cdk-nag, then cfn-lint over every template); CI runs that in a fresh clone too',
  'npx cdk bootstrap aws://111122223333/us-east-1 aws://111122223333/eu-west-1 …':
    'needs an AWS account (test/release/infra/rehearsal.test.ts deploys into moto)',
  'npx cdk deploy --all --concurrency 4': 'needs an AWS account (test/release/infra/rehearsal.test.ts deploys into moto)',
};
/** docs/package.md's section whose commands run in a project that installed the tarball: test/release/package/pack.test.ts. */
const PACKAGE_SECTION = 'As a package';
/** docs/package.md's section whose blocks test/release/infra/readme-cdk-app.test.ts runs as written, in a scratch CDK app. */
const CDK_APP_SECTION = 'In your own CDK app';

const commands: ReadmeCommand[] = [
  ...readmeCommands(readFileSync(join(ROOT, 'README.md'), 'utf8')),
  ...readmeCommands(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')).map((c) => ({ ...c, section: `cli: ${c.section}` })),
  ...readmeCommands(readFileSync(join(ROOT, 'docs/config.md'), 'utf8')).map((c) => ({ ...c, section: `config: ${c.section}` })),
];
/** docs/package.md's commands: none runs in the clone, each section has its own test. */
const packageCommands = readmeCommands(readFileSync(join(ROOT, 'docs/package.md'), 'utf8'));
const inClone = commands.filter((c) => !(c.command in ELSEWHERE));

let dir: string;
let clone: string;
let api: RatesApi;
/** The README CLI section's `$URL`: a 2025-11-25 server named as the README shows it. */
let rates: RunningServer;
/** The docs' `https://mcp.example.com/mcp`. */
let open: RunningServer;
let install: Finished;

/** The shell a user has in the clone: this suite's Node first on the PATH, the servers' URL and token exported. */
function sh(command: string): Promise<Finished> {
  const env = {
    ...process.env,
    PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
    URL: rates.url,
    TOKEN,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_prefer_offline: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    NO_COLOR: '1',
  };
  // The docs' placeholder endpoint is a local server here: nothing leaves 127.0.0.1.
  const local = command.replace(/https:\/\/mcp\.example\.com\/mcp(?=\s|$)/g, open.url);
  // Both streams in one, in the order a terminal shows them (a `; echo $?` line prints after stderr).
  return runToEnd('bash', ['-c', `exec 2>&1\n${local}`], { cwd: clone, env, killAfterMs: SLOW });
}

/** Output as a comparison sees it: ports, durations, trace ids and column padding before them masked. */
const mask = (text: string) =>
  text
    .split('\n')
    .map((l) =>
      l
        .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
        .replace(/\s+\d+ ms\b/g, ' N ms')
        .replace(/\(\d+ ms\)/g, '(N ms)')
        .replace(/\b[0-9a-f]{32}\b/g, 'TRACE'),
    )
    .join('\n')
    .trimEnd();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-clone-'));
  clone = join(dir, 'mcp-canary');
  const cloned = await runToEnd('git', ['clone', '--quiet', ROOT, clone]);
  if (cloned.code !== 0) throw new Error(`git clone: ${cloned.stderr}`);
  api = await startRatesApi();
  [rates, open] = await Promise.all([
    startMcpServer({ era: 'legacy', name: 'rates-prod', version: '2.3.0', tools: [rateTool(api)] }),
    startMcpServer({ era: 'modern', tools: [rateTool(api)] }),
  ]);
  // The config examples' files, as docs/config.md and docs/cli.md describe them.
  writeFileSync(
    join(clone, 'fleet.json'),
    JSON.stringify({
      homeRegion: 'us-east-1',
      targets: [
        { name: 'rates', url: 'https://rates.example.com/mcp' },
        { name: 'docs', url: 'https://docs.example.com/mcp', toool: { name: 'search' } },
      ],
    }),
  );
  writeFileSync(
    join(clone, 'fleet2.json'),
    JSON.stringify({
      homeRegion: 'eu-west-9',
      schedule: 'rate(1 minutes)',
      targets: [{ name: 'rates', url: 'https://rates.example.com/mcp' }],
    }),
  );
  writeFileSync(
    join(clone, 'fleet.ts'),
    `import { defineFleet } from './functions/base/config/schema/fleet.ts';\nexport default defineFleet({ homeRegion: 'us-east-1', targets: [{ name: 'rates', url: '${open.url}', tool: { name: 'get_rate', arguments: { pair: 'EURUSD' } } }] });\n`,
  );
  install = await sh('npm ci && npm start');
}, SLOW);

afterAll(async () => {
  await Promise.all([rates?.close(), open?.close(), api?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** How each command run in the clone is judged. */
const RUN: Readonly<Record<string, (r: Finished, c: ReadmeCommand) => void | Promise<void>>> = {
  'npm ci && npm start': () => {
    // Run once, in beforeAll: it is the install the other commands need.
  },
  ...Object.fromEntries(
    commands
      .filter((c) => c.output.length > 0)
      .map((c) => [
        c.command,
        (r: Finished, shown: ReadmeCommand) => {
          expect(mask(r.stdout)).toBe(mask(shown.output.join('\n')));
          if (shown.command.includes('$TOKEN')) expect(rates.requests.map((q) => q.authorization)).toContain(`Bearer ${TOKEN}`);
        },
      ]),
  ),
  "npx mcp-canary check https://mcp.example.com/mcp --json | jq -r '.[0].outcome'": (r) => {
    expect(r).toMatchObject({ code: 0, stdout: 'healthy\n' });
  },
  'npx mcp-canary check --config fleet.ts --json | jq -r \'.[] | "\\(.target) \\(.outcome) \\(.failure // "")"\'': (r) => {
    expect(r).toMatchObject({ code: 0, stdout: 'rates healthy \n' });
  },
};

describe('the README and the docs in a fresh clone', () => {
  it('shows no command that is neither run nor placed elsewhere with a reason', () => {
    const known = new Set([...Object.keys(RUN), ...Object.keys(ELSEWHERE)]);
    expect(inClone.map((c) => c.command).filter((c) => !known.has(c))).toEqual([]);
    // docs/package.md: every command is in a section another test runs.
    expect(packageCommands.filter((c) => c.section !== PACKAGE_SECTION && c.section !== CDK_APP_SECTION)).toEqual([]);
    expect(new Set(packageCommands.map((c) => c.section))).toEqual(new Set([PACKAGE_SECTION, CDK_APP_SECTION]));
  });

  it('npm ci && npm start: installs from the lockfile, and the demo prints what the README shows', () => {
    expect(install.code, install.stderr.slice(-3000)).toBe(0);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const demo = /## The demo[\s\S]*?```\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(mask(install.stdout)).toContain(mask(demo));
  });

  const typed = inClone.filter((c) => c.command in RUN && c.command !== 'npm ci && npm start');
  it.each(typed.map((c) => [c.command, c] as const))('%s', async (_, c) => {
    const r = await sh(c.command);
    await RUN[c.command]!(r, c);
  });
});
