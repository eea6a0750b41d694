/**
 * The hostile matrix, JSON-RPC errors in every shape a server sends them: inside an event stream with
 * a failed status, with a code that is not an integer or no message, and `-32000` used for the
 * server's own failure (not a 2025 server's "not initialized"). Real sockets on 127.0.0.1; every row
 * within the run budget + 10 % and, where the SDK would wait, well before one request timeout.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { modernEndpoint, readOnlyRateTool, type FaultHandler } from '../../../../helpers/faults.ts';
import { expectVerdict, judgeFault, latenessOf, legacyEndpoint, TIMEOUT_MS } from '../../../../helpers/hostile/harness.ts';

function answer(res: ServerResponse, status: number, body: unknown, sse: boolean): void {
  if (sse) res.writeHead(status, { 'content-type': 'text/event-stream' }).end(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
  else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A 2026-07-28 server (or a 2025 one) that answers `step` with `error` under `status`, as JSON or as an event stream. */
function failing(step: string, status: number, error: unknown, sse: boolean, era: 'modern' | 'legacy' = 'modern'): FaultHandler {
  const rest = era === 'modern' ? modernEndpoint({ tools: [readOnlyRateTool] }) : legacyEndpoint({});
  return (req, res, rx) =>
    rx.rpcMethod === step ? answer(res, status, { jsonrpc: '2.0', id: rx.rpcId ?? null, error }, sse) : rest(req, res, rx);
}

describe('a JSON-RPC error in an event stream under a failed status is read like one in a JSON body', () => {
  it.each([400, 500])(
    'tools/call → HTTP %i, text/event-stream, -32603 "fetch failed" → failed/tool_error with the words',
    async (status) => {
      const { v } = await judgeFault(failing('tools/call', status, { code: -32603, message: 'fetch failed' }, true));
      expectVerdict(v, 'failed', 'tool_error', new RegExp(`-32603 \\(internal error\\): "fetch failed" \\(in an HTTP ${status} answer\\)`));
      expect(v.detail).not.toMatch(/event: message/);
    },
  );

  it('tools/list → HTTP 503, text/event-stream → failed/http_status quoting the error message, not the SSE framing', async () => {
    const { v } = await judgeFault(failing('tools/list', 503, { code: -32603, message: 'backend pool exhausted' }, true));
    expectVerdict(v, 'failed', 'http_status', /^tools\/list: HTTP 503, text\/event-stream: "backend pool exhausted"/);
  });

  it('pinned 2026-07-28: a 2025 server answering discover with 400 text/event-stream "Server not initialized" → failed/revision', async () => {
    const legacyInSse = failing('server/discover', 400, { code: -32000, message: 'Bad Request: Server not initialized' }, true, 'legacy');
    const { v } = await judgeFault(legacyInSse, { revision: '2026-07-28' });
    expectVerdict(v, 'failed', 'revision', /does not speak the pinned 2026-07-28/);
  });
});

describe("an error that breaks JSON-RPC's shape is still the server's error, and ends the request at once", () => {
  const shapes = [
    ['a string code', { code: 'E_UPSTREAM', message: 'upstream down' }, /"E_UPSTREAM" \(not an integer code\): "upstream down"/],
    ['a fractional code', { code: -32603.5, message: 'upstream down' }, /-32603\.5 \(not an integer code\): "upstream down"/],
    ['no message', { code: -32603 }, /-32603 \(internal error\): \(no message\)/],
  ] as const;
  for (const sse of [false, true]) {
    it.each(shapes)(
      `tools/call → ${sse ? 'an event stream' : 'a JSON body'} with %s → failed/tool_error, never protocol`,
      async (_, error, words) => {
        const { v } = await judgeFault(failing('tools/call', 200, error, sse));
        expectVerdict(v, 'failed', 'tool_error', words);
        // The SDK drops such an event and would wait for its timeout: the wire answers it now.
        expect(v.durationMs).toBeLessThan(TIMEOUT_MS + latenessOf(v));
      },
    );
  }

  it('tools/list → a string code → failed/server_error, the code shown as sent', async () => {
    const { v } = await judgeFault(failing('tools/list', 200, { code: 'E_BACKEND', message: 'no backend' }, true));
    expectVerdict(v, 'failed', 'server_error', /^tools\/list: the server answered JSON-RPC error "E_BACKEND" \(not an integer code\)/);
    expect(v.durationMs).toBeLessThan(TIMEOUT_MS + latenessOf(v));
  });
});

describe("-32000 is any server's own failure: era evidence only with a 2025 server's words", () => {
  it.each(['tools/list', 'tools/call'])(
    '%s → HTTP 400 -32000 "upstream down" after a 2026-07-28 discover → not revision, and the pins agree',
    async (step) => {
      const classes = new Set<string | null>();
      for (const revision of ['auto', '2026-07-28'] as const) {
        const { v } = await judgeFault(failing(step, 400, { code: -32000, message: 'upstream down' }, false), { revision });
        expect(v.failure).not.toBe('revision');
        expect(v.detail).toMatch(/upstream down/);
        classes.add(v.failure);
      }
      // On tools/call -32000 (the server-defined range) is the MCP server's refusal, not the tool's execution.
      expect([...classes]).toEqual([step === 'tools/call' ? 'server_error' : 'http_status']);
    },
  );

  it('pinned 2026-07-28: discover → 200 -32000 "upstream down" → failed/server_error, not "answered like a 2025-era server"', async () => {
    const { v } = await judgeFault(failing('server/discover', 200, { code: -32000, message: 'upstream down' }, false), {
      revision: '2026-07-28',
    });
    expectVerdict(v, 'failed', 'server_error', /^discover: the server answered JSON-RPC error -32000 \(server error\): "upstream down"/);
  });

  it('pinned 2026-07-28: discover → 400 -32601 → failed/revision, in one sentence that does not also blame the server', async () => {
    const { v } = await judgeFault(failing('server/discover', 400, { code: -32601, message: 'Method not found' }, false, 'legacy'), {
      revision: '2026-07-28',
    });
    expectVerdict(
      v,
      'failed',
      'revision',
      /^discover: the server answered JSON-RPC error -32601 \(method not found\): "Method not found" in an HTTP 400 answer — answered like a 2025-era server: the server does not speak the pinned 2026-07-28$/,
    );
  });
});

describe('identifiers a server chose are shown with look-alike and invisible characters as code points', () => {
  it('a resultType with a bidi override → failed/tool_error naming it as \\u202e', async () => {
    const { v } = await judgeFault(modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ resultType: 'task\u202e' }) }));
    expectVerdict(v, 'failed', 'tool_error', /resultType "task\\u202e"/);
    expect(v.detail).not.toContain('\u202e');
  });

  it('an input request whose key holds a Cyrillic letter → failed/tool_error, the key as code points', async () => {
    const call = () => ({ resultType: 'input_required', inputRequests: { 'c\u043enfirm': { method: 'roots/list', params: {} } } });
    const { v } = await judgeFault(modernEndpoint({ tools: [readOnlyRateTool], call }));
    expectVerdict(v, 'failed', 'tool_error', /roots\/list \("c\\u043enfirm"\)/);
  });

  it('a healthy call of a look-alike name the target asked for → its healthy detail shows the code point', async () => {
    const tool = { ...readOnlyRateTool, name: 'get_r\u0430te' };
    const { v } = await judgeFault(modernEndpoint({ tools: [tool], call: () => ({ content: [], structuredContent: { rate: 1 } }) }), {
      tool: { name: 'get_r\u0430te' },
    });
    expectVerdict(v, 'healthy', null, /get_r\\u0430te answered as expected/);
  });
});

describe('input_required off tools/call: no tool ran, so the server is named', () => {
  it("tools/list answered input_required with requestState forever → failed/server_error after the SDK's 10 rounds", async () => {
    const rest = modernEndpoint({ tools: [readOnlyRateTool] });
    const shedding: FaultHandler = (req, res, rx) =>
      rx.rpcMethod === 'tools/list'
        ? answer(res, 200, { jsonrpc: '2.0', id: rx.rpcId, result: { resultType: 'input_required', requestState: 'busy' } }, false)
        : rest(req, res, rx);
    const { v, received } = await judgeFault(shedding, { budgetMs: 6_000 });
    expect(v.failure).toBe('server_error');
    expect(v.detail).toMatch(/^tools\/list: the server still answered input_required after 10 rounds .* this step never completes$/);
    expect(received).not.toContain('tools/call');
    expect(v.durationMs).toBeLessThanOrEqual(6_000 * 1.1 + latenessOf(v));
  });
});

describe('-32042 (URL elicitation) names who asked', () => {
  it('tools/list → -32042 → failed/tool_error: "the server needs the user to open a URL", not "the tool"', async () => {
    const { v } = await judgeFault(failing('tools/list', 200, { code: -32042, message: 'sign in first' }, false));
    expectVerdict(v, 'failed', 'tool_error', /^tools\/list: the server needs the user to open a URL/);
  });

  it('tools/call → -32042 → failed/tool_error: "the tool needs the user to open a URL"', async () => {
    const { v } = await judgeFault(failing('tools/call', 200, { code: -32042, message: 'authorize upstream' }, true));
    expectVerdict(v, 'failed', 'tool_error', /^tools\/call: the tool needs the user to open a URL/);
  });
});
