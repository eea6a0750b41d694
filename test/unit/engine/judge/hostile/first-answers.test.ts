/**
 * The hostile matrix: what the server said first stays in the verdict — a discover answered with a
 * result kind discover never gives, and an answer whose headers break HTTP's framing (two
 * Content-Length headers). Real sockets on 127.0.0.1; every row within the run budget + 10 %
 * (harness.ts). The rows are in test/integration/engine/judge/hostile/README.md.
 */
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { rpcResult, type FaultHandler } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';
import { BUDGET_MS, expectVerdict, judgeFault, judgeTimed, legacyEndpoint, TIMEOUT_MS } from '../../../../helpers/hostile/harness.ts';

const LIMITS = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS };

/** discover answered with `resultType`; initialize refused (400), or served by a 2025 endpoint. */
const discoverAnswers =
  (resultType: string, fallback: 'refused' | 'served'): FaultHandler =>
  (req, res, rx) => {
    if (rx.rpcMethod === 'server/discover') return rpcResult(res, rx.rpcId, { resultType, task: { taskId: 't-1', status: 'working' } });
    if (fallback === 'served') return legacyEndpoint({})(req, res, rx);
    res.writeHead(400).end();
  };

describe('a discover answered with a result kind it never gives keeps that evidence', () => {
  it.each([
    ['task', /^discover: the server answered resultType "task" \(a task: the work goes on and answers later\), not the complete result/],
    ['input_required', /^discover: the server answered resultType "input_required", not the complete result/],
    ['task\u202e', /^discover: the server answered resultType "task\\u202e"/],
  ])('auto: discover → resultType %j, initialize → 400: failed/protocol judged by discover, the 400 as context', async (kind, detail) => {
    const { v, received } = await judgeFault(discoverAnswers(kind, 'refused'));
    expectVerdict(v, 'failed', 'protocol', detail);
    expect(v.detail).toMatch(/; the 2025-11-25 initialize also failed: initialize: HTTP 400$/);
    expect(v.detail).not.toContain('\u202e');
    expect(received).toEqual(['server/discover', 'initialize']);
  });

  it('pinned 2026-07-28: the same discover → failed/protocol naming the result kind, as in auto mode', async () => {
    const { v, received } = await judgeFault(discoverAnswers('task', 'refused'), { revision: '2026-07-28' });
    expectVerdict(v, 'failed', 'protocol', /^discover: the server answered resultType "task" \(a task/);
    expect(received).toEqual(['server/discover']);
  });

  it('auto: a 2025 server behind that discover → healthy, its era line naming what discover answered', async () => {
    const { v } = await judgeFault(discoverAnswers('task', 'served'));
    expectVerdict(v, 'healthy', null);
    expect(v.probes[0]?.detail).toBe('2025-11-25 session (discover answered resultType "task")');
  });
});

describe('an answer whose headers cannot frame its body is named, never "fetch failed"', () => {
  /** A TCP server that answers every request with `head` and a complete JSON-RPC body, then closes. */
  async function framing(head: string): Promise<{ url: string; requests: () => number; close(): void }> {
    let requests = 0;
    const server = createServer((c) => {
      c.on('error', () => {});
      c.once('data', () => {
        requests++;
        c.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${head}\r\n${BODY}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests: () => requests, close: () => server.close() };
  }
  const BODY = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { supportedVersions: ['2026-07-28'], capabilities: {} } });
  const n = Buffer.byteLength(BODY);

  it.each([
    ['two equal Content-Length headers', `content-length: ${n}\r\ncontent-length: ${n}\r\n`],
    ['two conflicting Content-Length headers', `content-length: ${n}\r\ncontent-length: ${n + 7}\r\n`],
    ['one Content-Length listing two lengths', `content-length: ${n}, ${n + 7}\r\n`],
    ['Content-Length beside Transfer-Encoding', `content-length: ${n}\r\ntransfer-encoding: chunked\r\n`],
  ])('%s → failed/protocol "a malformed HTTP answer", judged by discover, no fallback', async (_, head) => {
    const server = await framing(head);
    try {
      const v = await judgeTimed(target(server.url, LIMITS));
      expectVerdict(
        v,
        'failed',
        'protocol',
        /^discover: a malformed HTTP answer: its headers cannot frame the body \(two Content-Length headers/,
      );
      expect(v.detail).not.toMatch(/fetch failed|cannot connect|initialize/);
      expect(server.requests()).toBe(1);
    } finally {
      server.close();
    }
  });
});
