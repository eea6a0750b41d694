/**
 * Property: whatever bytes or JSON-RPC shapes a server answers with, the engine returns a well-formed
 * Verdict within the run budget and never throws.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLateness } from '../../../../helpers/lateness.ts';
import { z } from 'zod';
import { judge } from '../../../../../functions/engine/judge/judge.ts';
import { failureClasses, NegotiatedRevisions } from '../../../../../functions/base/common/verdict.ts';
import { startFaultServer, type FaultServer } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';

const BUDGET_MS = 1_500;

const VerdictShape = z
  .object({
    target: z.string(),
    outcome: z.enum(['healthy', 'degraded', 'failed', 'inconclusive']),
    failure: z.enum(failureClasses as [string, ...string[]]).nullable(),
    detail: z.string().min(1).max(2_000),
    revision: z.enum(NegotiatedRevisions).nullable(),
    server: z.object({ name: z.string(), version: z.string() }).nullable(),
    durationMs: z.number().int().nonnegative(),
    retries: z.number().int().nonnegative(),
    probes: z
      .array(
        z.object({
          name: z.string(),
          ok: z.boolean(),
          durationMs: z.number().nonnegative(),
          detail: z.string(),
          failure: z.string().nullable(),
        }),
      )
      .min(1),
    warnings: z.array(z.object({ kind: z.string(), detail: z.string(), expiresAt: z.string().optional() })),
    traceId: z.string().regex(/^[0-9a-f]{32}$/),
  })
  .strict();

interface Answer {
  status: number;
  contentType: string | null;
  body: (id: unknown) => string;
  /** Declare a Content-Length longer than the body, then close: an answer cut short. */
  truncated: boolean;
  /** Keep an event stream open after its events (the wait then ends at the request timeout). */
  keepOpen: boolean;
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const rpcShape = fc.record({
  idMode: fc.constantFrom('same', 'other', 'null', 'missing'),
  kind: fc.constantFrom('result', 'error', 'both', 'neither'),
  result: jsonValue,
  error: fc.record({ code: fc.integer({ min: -33000, max: 1000 }), message: fc.string() }),
  version: fc.constantFrom('2.0', '1.0', undefined),
  /** As a batch: alone in an array, or the empty array. */
  batch: fc.constantFrom('no', 'no', 'no', 'array', 'empty'),
});
const body = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => () => s),
  fc.uint8Array({ maxLength: 200 }).map((b) => () => Buffer.from(b).toString('latin1')),
  rpcShape.map((r) => (id: unknown) => {
    if (r.batch === 'empty') return '[]';
    const msg: Record<string, unknown> = {};
    if (r.version) msg.jsonrpc = r.version;
    if (r.idMode === 'same') msg.id = id;
    else if (r.idMode === 'other') msg.id = 424242;
    else if (r.idMode === 'null') msg.id = null;
    if (r.kind === 'result' || r.kind === 'both') msg.result = r.result;
    if (r.kind === 'error' || r.kind === 'both') msg.error = r.error;
    return JSON.stringify(r.batch === 'array' ? [msg] : msg);
  }),
);
/** SSE framing: each event may carry an `id:` and a `retry:` (SEP-1699), a priming event has no data, lines may end in CRLF. */
const sseFrame = fc.record({
  id: fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: undefined }),
  retryMs: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: undefined }),
  priming: fc.boolean(),
  crlf: fc.boolean(),
  events: fc.integer({ min: 1, max: 3 }),
});
type SseFrame = { id?: string | undefined; retryMs?: number | undefined; priming: boolean; crlf: boolean; events: number };

const answer: fc.Arbitrary<Answer> = fc
  .record({
    status: fc.constantFrom(200, 200, 200, 202, 204, 307, 400, 401, 404, 429, 500, 503),
    contentType: fc.constantFrom('application/json', 'text/event-stream', 'text/event-stream', 'text/html', 'text/plain', null),
    body,
    frame: sseFrame,
    truncated: fc.nat({ max: 9 }).map((n) => n < 2),
    keepOpen: fc.boolean(),
  })
  .map(({ frame, ...a }) => ({
    ...a,
    body: a.contentType === 'text/event-stream' ? (id: unknown) => frameSse(frame, a.body(id)) : a.body,
  }));

function frameSse(f: SseFrame, data: string): string {
  const nl = f.crlf ? '\r\n' : '\n';
  let out = '';
  if (f.priming) out += `id: ${f.id ?? 'p0'}${nl}${f.retryMs !== undefined ? `retry: ${f.retryMs}${nl}` : ''}data: ${nl}${nl}`;
  for (let i = 0; i < f.events; i++) {
    if (f.id !== undefined) out += `id: ${f.id}-${i}${nl}`;
    if (f.retryMs !== undefined && i === 0) out += `retry: ${f.retryMs}${nl}`;
    out += `event: message${nl}data: ${data}${nl}${nl}`;
  }
  return out;
}

let server: FaultServer;
let queue: Answer[] = [];
beforeAll(async () => {
  server = await startFaultServer((req, res, rx) => {
    const a = queue.shift();
    if (!a) return void res.writeHead(500).end();
    const text = a.body(rx.rpcId);
    const headers: Record<string, string> = a.contentType ? { 'content-type': a.contentType } : {};
    if (a.status === 307) headers.location = '/mcp';
    if (a.truncated) {
      res.writeHead(a.status, { ...headers, 'content-length': String(Buffer.byteLength(text) + 100) });
      res.write(text);
      setTimeout(() => req.socket.destroy(), 5);
      return;
    }
    res.writeHead(a.status, headers);
    if (a.keepOpen && a.contentType === 'text/event-stream') return void res.write(text);
    res.end(text);
  });
});
afterAll(async () => {
  await server.close();
});

describe('any answer', () => {
  it('ends in a well-formed Verdict within the budget, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(answer, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('auto', '2026-07-28', '2025-11-25'),
        async (answers, revision) => {
          queue = [...answers];
          const { value: v, lateMs } = await withLateness(() =>
            judge(target(server.url, { timeoutMs: 250, budgetMs: BUDGET_MS, revision: revision as 'auto' })),
          );
          expect(VerdictShape.parse(v)).toBeTruthy();
          // The budget + 10 %, beyond how late this process's timers ran meanwhile (a loaded machine).
          expect(v.durationMs).toBeLessThanOrEqual(BUDGET_MS * 1.1 + lateMs);
          // Random bytes never make a healthy tool call: the canary tool must be listed and answer.
          if (v.outcome === 'healthy') expect(v.probes.map((p) => p.name)).toContain('tools/call');
        },
      ),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 150),
        ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : { seed: 20261129 }),
      },
    );
  });
});

describe('an answer that cannot carry the response', () => {
  const wrong = fc.record({
    shape: fc.constantFrom('both', 'empty-array', 'other-id', 'neither', 'array-without-it'),
    sse: fc.boolean(),
    frame: sseFrame.filter((f) => f.id === undefined),
  });
  const wrongBody = (shape: string, id: unknown): string => {
    switch (shape) {
      case 'both':
        return JSON.stringify({ jsonrpc: '2.0', id, result: {}, error: { code: -1, message: 'x' } });
      case 'empty-array':
        return '[]';
      case 'other-id':
        return JSON.stringify({ jsonrpc: '2.0', id: 'not-yours', result: {} });
      case 'neither':
        return JSON.stringify({ jsonrpc: '2.0', id });
      default:
        return JSON.stringify([{ jsonrpc: '2.0', id: 'not-yours', result: {} }]);
    }
  };

  it('is failed/protocol at once, never after waiting out a request timeout', async () => {
    const TIMEOUT_MS = 1_000;
    await fc.assert(
      fc.asyncProperty(wrong, async (w) => {
        const mk = (): Answer => ({
          status: 200,
          contentType: w.sse ? 'text/event-stream' : 'application/json',
          body: (id) => (w.sse ? frameSse(w.frame, wrongBody(w.shape, id)) : wrongBody(w.shape, id)),
          truncated: false,
          keepOpen: true,
        });
        queue = [mk(), mk(), mk()];
        const v = await judge(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: 3_000 }));
        expect({ outcome: v.outcome, failure: v.failure }).toEqual({ outcome: 'failed', failure: 'protocol' });
        expect(v.durationMs).toBeLessThan(TIMEOUT_MS);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 40), seed: Number(process.env.PROPERTY_SEED ?? 20261130) },
    );
  });
});
