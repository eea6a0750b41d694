/**
 * The canary's own input and the terminal it prints to, as a real process: config mistakes are exit 2
 * naming the field (never paging the endpoint's owner), server text cannot drive the terminal or forge
 * a line, and the process ends itself at its own timeout whatever the server does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { modernEndpoint, readOnlyRateTool, rpcResult, startFaultServer, type FaultServer } from '../../helpers/faults.ts';
import { startBlackhole } from '../../helpers/blackhole.ts';
import { describeWithTools } from '../../helpers/tools.ts';
import type { Verdict } from '../../../functions/base/common/verdict.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';

const BIN = CLI_BIN;
const cli = (args: string[]): Promise<Finished> => runToEnd(process.execPath, [BIN, ...args]);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config input', () => {
  it('a header value with a non-Latin-1 character (a pasted en dash) → exit 2 naming the header, never its value', async () => {
    const r = await cli(['check', 'http://127.0.0.1:9/mcp', '--header', 'Authorization: Bearer abc\u2013secretpart']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--header "Authorization" value has a character outside Latin-1 at character 11 \(U\+2013/);
    expect(r.stderr).not.toContain('secretpart');
  });

  it('the same in a config file → exit 2 naming targets[0].headers.X-Api-Key', async () => {
    const file = join(dir, 'fleet.json');
    writeFileSync(
      file,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [{ name: 'a', url: 'https://a.example/mcp', headers: { 'X-Api-Key': 'k\u201csecretpart\u201d' } }],
      }),
    );
    const r = await cli(['check', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('targets[0] ("a").headers.X-Api-Key value has a character outside Latin-1');
    expect(r.stderr).not.toContain('secretpart');
  });

  it('an IPv6 literal URL without --name → judged, named after its address', async () => {
    const endpoint = modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ content: [], structuredContent: { rate: 1.08 } }) });
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const msg = body ? (JSON.parse(body) as { method?: string; id?: unknown }) : {};
        void endpoint(req, res, {
          method: req.method ?? 'GET',
          url: req.url ?? '',
          rpcMethod: msg.method ?? null,
          rpcId: msg.id,
          headers: req.headers,
          body,
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, '::1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await cli(['check', `http://[::1]:${port}/mcp`, '--tool', 'get_rate', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject([{ target: 'ipv6-1', outcome: 'healthy' }]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('terminal safety', () => {
  let hostile: FaultServer;
  beforeAll(async () => {
    const endpoint = modernEndpoint({
      tools: [readOnlyRateTool],
      call: () => ({ isError: true, content: [{ type: 'text', text: 'boom\u001b[2J\u0007\rerased\bX' }] }),
    });
    hostile = await startFaultServer((req, res, rx) => {
      if (rx.rpcMethod !== 'server/discover') return endpoint(req, res, rx);
      rpcResult(res, rx.rpcId, {
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: {
          'io.modelcontextprotocol/serverInfo': { name: 'evil\nHEALTHY  forged line\u001b]0;title\u0007', version: '1\r\u001b[31m' },
        },
      });
    });
  });
  afterAll(async () => {
    await hostile.close();
  });

  it('escapes control characters and newlines from the server: no forged line, no escape sequence', async () => {
    const r = await cli(['check', hostile.url, '--tool', 'get_rate']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /^(HEALTHY|FAILED|DEGRADED|INCONCLUSIVE)/.test(l))).toEqual([
      expect.stringMatching(/^FAILED {2}tool_error/),
    ]);
    // eslint-disable-next-line no-control-regex -- looking for the raw control characters
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(r.stdout).toContain('boom\\x1b[2J\\x07 erased\\x08X');
  });

  it('keeps the server text as sent in --json (JSON escapes it)', async () => {
    const r = await cli(['check', hostile.url, '--tool', 'get_rate', '--json']);
    expect(JSON.parse(r.stdout)[0].detail).toContain('boom\u001b[2J\u0007');
  });
});

describeWithTools(['python3'], 'the process bound', () => {
  it('a server that never completes the TCP handshake: the process ends itself at its timeout, not at the server’s pace', async () => {
    const blackhole = await startBlackhole();
    const { port } = blackhole;
    try {
      // The blackhole holds the connection for 60 s and Linux gives up on a SYN after about two minutes:
      // a process still running at 20 s is waiting on the server, not on its own timeout. (How long Node
      // takes to start is the machine's load, not the canary's behaviour; it is not measured here.)
      const r = await runToEnd(
        process.execPath,
        [BIN, 'check', `http://127.0.0.1:${port}/mcp`, '--timeout-ms', '1000', '--budget-ms', '3000', '--json'],
        { killAfterMs: 20_000 },
      );
      expect(r.signal, 'killed: the process did not end by itself').toBeNull();
      expect(r.code).toBe(1);
      const [v] = JSON.parse(r.stdout) as Verdict[];
      expect(v).toMatchObject({ outcome: 'failed', failure: 'timeout' });
      // Ended by the canary's own timeout: it waited that out, then stopped by itself.
      expect(v!.durationMs).toBeGreaterThanOrEqual(1_000);
      expect(v!.detail).toBe('discover: no answer within the request timeout');
    } finally {
      blackhole.kill();
    }
  });
});

describe('renderVerdict', () => {
  it('prints a newline, CR and ESC inside any verdict field as visible escapes on their own line', async () => {
    const { renderVerdict } = await import('../../../functions/cli/render.ts');
    const out = renderVerdict({
      target: 't',
      outcome: 'failed',
      failure: 'protocol',
      detail: 'x\nHEALTHY  forged\r\u001b[1A',
      revision: '2026-07-28',
      server: { name: 'n\nHEALTHY', version: '1\u2028' },
      durationMs: 1,
      retries: 0,
      traceId: 'a'.repeat(32),
      warnings: [],
      probes: [{ name: 'discover', ok: false, durationMs: 1, detail: 'd\n\u009bX', failure: 'protocol' }],
    });
    expect(out.split('\n')).toHaveLength(3);
    expect(out).toContain('n\\nHEALTHY 1\\u2028');
    expect(out).toContain('x\\nHEALTHY  forged\\r\\x1b[1A');
    expect(out).toContain('d\\n\\x9bX');
  });
});
