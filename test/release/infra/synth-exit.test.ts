/**
 * `npm run synth` exits 2 on a config error, whatever the error and wherever it is found: reading the
 * file (a JSON syntax error), the fleet schema (a region), and building the stacks (a target too large
 * for a schedule payload, found by the plan). The CDK CLI alone exits 1 for all of these; infra/synth.ts
 * passes the app's 2 on. The success path (exit 0, templates written) is test/release/infra/synth-cli.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-synth-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function synth(name: string, text: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, name);
  writeFileSync(file, text);
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'synth', '--', '--output', join(dir, `${name}.out`)],
      { cwd: root, env: { ...process.env, MCP_CANARY_CONFIG: file, CDK_DISABLE_CLI_TELEMETRY: 'true' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const target = { name: 'rates', url: 'https://rates.example.com/mcp' };

describe('npm run synth on a config it refuses', () => {
  it.concurrent.each([
    [
      'bad-json.json',
      '{ "homeRegion": "us-east-1", "targets": [ { "name": "a", "url": "https://a.example.com/mcp" }, ] }',
      'bad-json.json:1:96: a comma before "]"',
    ],
    [
      'bad-region.json',
      JSON.stringify({ homeRegion: 'eu-nowhere-9', targets: [target] }),
      'homeRegion is not an AWS region: got "eu-nowhere-9"',
    ],
    [
      'too-big.json',
      JSON.stringify({ homeRegion: 'us-east-1', targets: [{ ...target, tool: { name: 'search', arguments: { q: 'x'.repeat(9000) } } }] }),
      'targets[0] ("rates").payload is',
    ],
  ])('%s: exit 2 and the one-line message, with no stack trace and no CLI noise', async (name, text, says) => {
    const r = await synth(name, text);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(says);
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(r.stderr).not.toContain('Subprocess exited with error');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
