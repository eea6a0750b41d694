/**
 * `mcp-canary check --config` and `mcp-canary snapshot` on configs they must refuse: exit 2 (the
 * documented code for a usage or config error, whatever the error), one line on stderr naming the field
 * or the place (file:line:column), nothing on stdout, and nothing quoted from the file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../functions/cli/main.ts';
import { BULLETS } from '../../helpers/config/bullets.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';

/**
 * The sources' own entry, as `npx mcp-canary` runs it in a clone: a TS config is then loaded by tsx, whose
 * syntax errors these tests read. (The installed bundle loads it with Node's own type stripping, whose
 * words differ; the pack rehearsal checks that path.)
 */
const BIN = join(import.meta.dirname, '../../../functions/cli/mcp-canary.mjs');
const SECRET = 'sk_live_51Hq0cfgTsXyZ';
const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-cli-config-'));
// A config module in an ESM package, as a user's project holds it.
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, ...args]);
}

/** The CLI's `main` in this process: the same parsing, loading and exit code as the bin, without Node's start. */
async function inProcess(args: string[]): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, signal: null, stdout, stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, text);
  return path;
}

function expectConfigError(r: Finished, ...says: string[]): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  for (const s of says) expect(r.stderr).toContain(s);
  expect(r.stderr).not.toContain(SECRET);
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe("mcp-canary check --config refuses what it used to run (issue 16's list)", () => {
  it.each(BULLETS.filter((b) => b.cli).map((b) => [b.name, b] as const))('%s: exit 2, the field named', async (_, bullet) => {
    const path = file(`${bullet.name.replace(/\W+/g, '-')}.json`, JSON.stringify(bullet.config));
    expectConfigError(await inProcess(['check', '--config', path]), ...bullet.says);
  });

  it('exits 2 from the real command too', async () => {
    const bullet = BULLETS[0]!;
    expectConfigError(await cli(['check', '--config', file('real.json', JSON.stringify(bullet.config))]), ...bullet.says);
  });

  it('runs a fleet whose maintenance window has ended: the CLI mutes nothing, and only synth refuses it', async () => {
    const bullet = BULLETS.find((b) => !b.cli)!;
    const r = await inProcess(['check', '--config', file('old-window.json', JSON.stringify(bullet.config)), '--json']);
    // The target on loopback port 9 refuses the connection: the run happened, and failed (exit 1), not a config error.
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ outcome: 'failed', failure: 'unreachable' });
  });
});

// Each is a real process (the loader decides what a broken module looks like): they run side by side.
describe.concurrent('a syntax error is named by file, line and column, never quoted', () => {
  const fleet = (body: string) => `{\n  "homeRegion": "us-east-1",\n  "targets": [\n${body}\n  ]\n}\n`;

  it('JSON: a trailing comma', async () => {
    const path = file(
      'trailing.json',
      fleet(`    { "name": "a", "url": "http://127.0.0.1:9/mcp", "headers": { "Authorization": "Bearer ${SECRET}" } },`),
    );
    expectConfigError(await inProcess(['check', '--config', path]), `${path}:5:3: a comma before "]": JSON allows no trailing comma`);
  });

  it('JSON: a value in single quotes', async () => {
    const path = file('quotes.json', fleet(`    { "name": 'a' }`));
    expectConfigError(await inProcess(['check', '--config', path]), `${path}:4:15: a string in single quotes`);
  });

  it('TypeScript: a missing comma after a header value', async () => {
    const path = file(
      'fleet.ts',
      `export default {\n  homeRegion: 'us-east-1',\n  targets: [{ name: 'a', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${SECRET}' 'X-Other': 'x' } }],\n};\n`,
    );
    expectConfigError(await cli(['check', '--config', path]), `has a syntax error (${path}:3:`, 'Expected "}" but found a string');
  });

  it('JavaScript: an unquoted secret is a ReferenceError named by its place, not its text', async () => {
    const path = file(
      'fleet.mjs',
      `export default {\n  homeRegion: 'us-east-1',\n  targets: [{ name: 'a', headers: { Authorization: ${SECRET} } }],\n};\n`,
    );
    expectConfigError(await cli(['check', '--config', path]), `cannot load the module (ReferenceError at ${path}:3:`);
  });
});

describe('every other config error exits 2 too', () => {
  it.each([
    [['check', '--config', '/nonexistent/fleet.json'], 'cannot read the file (ENOENT)'],
    [['check', '--config', 'fleet.yaml'], 'unknown file type ".yaml"'],
    [['check', '--config', 'FILE', '--target', 'nope'], '--target nope: no such target'],
    [['snapshot', 'http://127.0.0.1:9/mcp', '--timeout-ms', '5'], '--timeout-ms must be at least 100 ms'],
    [['snapshot', 'http://127.0.0.1:9/mcp', '--config', 'x.json'], '--config runs the targets'],
  ])('%j', async (args, message) => {
    const ok = file('ok.json', JSON.stringify({ homeRegion: 'us-east-1', targets: [{ name: 'a', url: 'http://127.0.0.1:9/mcp' }] }));
    expectConfigError(await inProcess(args.map((a) => (a === 'FILE' ? ok : a))), message);
  });
});

describe('querySecrets mistakes are one line naming the field and the fix, never the url value', () => {
  const config = (url: string, querySecrets: unknown) =>
    JSON.stringify({ homeRegion: 'us-east-1', targets: [{ name: 'docs', url, querySecrets }] });
  it.each([
    [
      'a value instead of a reference',
      config('https://docs.example.com/mcp?read_only=true', { token: SECRET }),
      'targets[0] ("docs").querySecrets.token must be { secretsManager: "<arn or name>" } or { ssmParameter: "<name>" }',
    ],
    [
      'a key also in the url',
      config(`https://docs.example.com/mcp?token=${SECRET}`, { token: { ssmParameter: '/mcp-canary/docs/token' } }),
      `targets[0] ("docs").querySecrets.token is also in url's query (?token=…): give it in one place, querySecrets, and remove it from url`,
    ],
    [
      'an empty key',
      config('https://docs.example.com/mcp', { '': { ssmParameter: '/mcp-canary/docs/token' } }),
      'targets[0] ("docs").querySecrets[""] is an empty query key: name the parameter, e.g. "token"',
    ],
  ])('%s', async (name, text, says) => {
    const path = file(`query-${name.replace(/\W+/g, '-')}.json`, text);
    expectConfigError(await inProcess(['check', '--config', path]), says);
  });
});
