/** The CLI as users and scripts run it: a real process, real servers, exit codes and streams. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer, type FaultServer } from '../../helpers/faults.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
const TOKEN = 'sk-cli-9c1e44b0aa71';

function cli(args: string[]): Promise<Finished> {
  return runToEnd(process.execPath, [BIN, ...args]);
}

let api: RatesApi;
let modern: RunningServer;
let legacy: RunningServer;
let echo: FaultServer;
let dir: string;
beforeAll(async () => {
  api = await startRatesApi();
  modern = await startMcpServer({ era: 'modern', tools: [rateTool(api), { name: 'unannotated', handler: () => ({ content: [] }) }] });
  legacy = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
  echo = await startFaultServer(
    modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ isError: true, content: [{ type: 'text', text: 'no' }] }) }),
  );
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-cli-'));
});
afterAll(async () => {
  await Promise.all([modern.close(), legacy.close(), echo.close(), api.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('mcp-canary check', () => {
  it('prints a JSON array of one Verdict with --json and exits 0 when healthy', async () => {
    const r = await cli(['check', modern.url, '--tool', 'get_rate', '--args', '{"pair":"EURUSD"}', '--expect-json', 'rate=1.08', '--json']);
    expect(r.code).toBe(0);
    const all = JSON.parse(r.stdout);
    expect(all).toHaveLength(1);
    const v = all[0];
    expect(v).toMatchObject({ outcome: 'healthy', failure: null, revision: '2026-07-28', server: { name: 'rates' } });
    expect(v.probes.map((p: { name: string }) => p.name)).toEqual(['discover', 'tools/list', 'tools/call']);
  });

  it('prints one line per probe, then the verdict, for people', async () => {
    const r = await cli(['check', legacy.url, '--tool', 'get_rate', '--expect-text', 'EURUSD']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[1]).toMatch(/^ {2}✓ initialize +\d+ ms {2}2025-11-25 session/);
    expect(lines[2]).toMatch(/^ {2}✓ tools\/list +\d+ ms/);
    expect(lines[3]).toMatch(/^ {2}✓ tools\/call +\d+ ms {2}get_rate answered/);
    expect(lines[4]).toMatch(/^HEALTHY {2}2025-11-25 rates/);
  });

  it('runs a --flow, one line per step with its place and latency, and each step in --json', async () => {
    const flow = JSON.stringify([
      { id: 'first', kind: 'tools/call', name: 'get_rate', arguments: { pair: 'EURUSD' }, extract: { pair: { path: 'pair' } } },
      { id: 'again', kind: 'tools/call', name: 'get_rate', arguments: { pair: '${steps.first.pair}' }, expectText: 'EURUSD' },
    ]);
    const human = await cli(['check', modern.url, '--flow', flow]);
    expect(human.code, human.stdout).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines[3]).toMatch(/^ {2}✓ 1 first tools\/call +\d+ ms {2}get_rate answered: "EURUSD 1.08"; extracted pair$/);
    expect(lines[4]).toMatch(/^ {2}✓ 2 again tools\/call +\d+ ms {2}get_rate answered/);
    expect(lines[5]).toMatch(/^HEALTHY {2}2026-07-28 rates .*: flow of 2 step\(s\) passed \(first, again\)/);
    const json = await cli(['check', modern.url, '--flow', flow, '--json']);
    const [v] = JSON.parse(json.stdout);
    expect(v.probes.slice(2).map((p: { step: unknown; durationMs: number }) => [p.step, typeof p.durationMs])).toEqual([
      [{ index: 1, id: 'first' }, 'number'],
      [{ index: 2, id: 'again' }, 'number'],
    ]);
  });

  it('exits 2 in one line for a --flow reference to a value no earlier step makes', async () => {
    const flow = JSON.stringify([{ kind: 'tools/call', name: 'get_rate', arguments: { pair: '${steps.first.pair}' } }]);
    const r = await cli(['check', modern.url, '--flow', flow]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('refers to ${steps.first.pair}, but no step has the id "first"');
    expect(r.stdout).toBe('');
  });

  it('exits 1 on a failed target and names the class', async () => {
    const r = await cli(['check', modern.url, '--tool', 'get_rate', '--expect-json', 'rate=2']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED {2}assertion {2}tools\/call: rate == 2, got 1.08/);
  });

  it('exits 3 when the canary cannot judge (a tool without readOnlyHint)', async () => {
    const r = await cli(['check', modern.url, '--tool', 'unannotated', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ outcome: 'inconclusive', failure: 'unsafe_tool' });
  });

  it.each([
    [['check', 'mcp.example', '--tool', 'x'], '<url> is not an http(s) URL'],
    [['check', 'ftp://mcp.example/x'], '<url> is not an http(s) URL'],
    [['check', 'http://x', '--bogus'], 'unknown flag --bogus'],
    [['check', 'http://x', '--header', 'Authorization Bearer x'], '--header #1 has no "Name: value" colon'],
    [['check', 'http://x', '--tool', 't', '--args', '{nope'], '--args is not valid JSON'],
    [['check', 'http://x', '--tool', 't', '--args', '[1]'], '--args must be a JSON object'],
    [['check', 'http://x', '--tool', 't', '--expect-json', 'rate'], '--expect-json "rate" needs PATH=JSON'],
    [['check', 'http://x', '--revision', '2024-01-01'], '--revision must be one of auto, 2026-07-28, 2025-11-25'],
    [['check', 'http://x', '--timeout-ms', 'soon'], '--timeout-ms must be a whole number'],
    [['check', 'http://x', '--expect-text', 'a'], '--expect-text only works with --tool NAME: add --tool NAME'],
    [['check', 'http://x', '--target', 'a'], '--target only works with --config FILE'],
    [['check', 'http://x', '--header', 'X-Key: a\u2013b'], '--header "X-Key" value has a character outside Latin-1'],
  ])('exits 2 with one line naming the flag for %j', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
  });

  it('never prints a header value, even when the server echoes it', async () => {
    const hostile = await startFaultServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`you sent: ${req.headers.authorization} and ${req.headers['x-api-key']}`);
    });
    try {
      for (const extra of [[], ['--json']]) {
        const r = await cli([
          'check',
          hostile.url,
          '--header',
          `Authorization: Bearer ${TOKEN}`,
          '--header',
          'X-Api-Key: key-5551234abcd',
          ...extra,
        ]);
        expect(r.code).toBe(1);
        expect(r.stdout + r.stderr).not.toContain(TOKEN);
        expect(r.stdout + r.stderr).not.toContain('key-5551234abcd');
      }
      expect(hostile.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await hostile.close();
    }
  });
});

describe('console output of libraries', () => {
  it('goes to stderr, redacted, never to stdout', async () => {
    const script = [
      `import { guardConsole } from ${JSON.stringify(join(import.meta.dirname, '../../../functions/cli/main.ts'))};`,
      `import { Redactor } from ${JSON.stringify(join(import.meta.dirname, '../../../functions/base/common/redact.ts'))};`,
      `guardConsole(new Redactor(['Bearer ${TOKEN}']));`,
      `console.log('debug: sent Bearer ${TOKEN}'); console.info('info'); console.debug('dbg'); console.warn('warn');`,
    ].join('\n');
    const r = await runToEnd(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('debug: sent [redacted]\ninfo\ndbg\nwarn\n');
  });
});

describe('mcp-canary check --config', () => {
  it('runs one target of a fleet file with --target, and exits by its outcome', async () => {
    const file = join(dir, 'fleet.json');
    writeFileSync(
      file,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [
          { name: 'rates-modern', url: modern.url, tool: { name: 'get_rate' } },
          { name: 'broken', url: echo.url, tool: { name: 'get_rate' } },
        ],
      }),
    );
    const one = await cli(['check', '--config', file, '--target', 'rates-modern', '--json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject([{ target: 'rates-modern', outcome: 'healthy' }]);

    const all = await cli(['check', '--config', file, '--json']);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout).map((v: { target: string; outcome: string }) => [v.target, v.outcome])).toEqual([
      ['rates-modern', 'healthy'],
      ['broken', 'failed'],
    ]);
  });

  it('exits 2 naming the field of a bad config file', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [
          { name: 'a', url: 'https://a.example/mcp' },
          { name: 'b', url: 'b.example', timeoutMs: '10s' },
        ],
      }),
    );
    const r = await cli(['check', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('targets[1] ("b").url is not an http(s) URL: got "b.example"');
    expect(r.stderr).toContain('targets[1] ("b").timeoutMs must be a number, got "10s"');
  });

  it('exits 2 for an unknown --target, listing the known ones', async () => {
    const file = join(dir, 'fleet2.json');
    writeFileSync(file, JSON.stringify({ homeRegion: 'eu-west-1', targets: [{ name: 'a', url: 'https://a.example/mcp' }] }));
    const r = await cli(['check', '--config', file, '--target', 'zzz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--target zzz: no such target');
    expect(r.stderr).toContain('Targets: a');
  });
});
