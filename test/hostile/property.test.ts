/**
 * Property: whatever bytes or JSON-RPC shapes a server answers with, the engine returns a well-formed
 * Verdict within the run budget and never throws.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { judge } from '../../functions/probe/judge.ts';
import { failureClasses } from '../../functions/verdict.ts';
import { startFaultServer, type FaultServer } from '../support/faults.ts';
import { target } from '../probe/helpers.ts';

const BUDGET_MS = 1_500;

const VerdictShape = z.object({
  target: z.string(),
  outcome: z.enum(['healthy', 'degraded', 'failed', 'inconclusive']),
  failure: z.enum(failureClasses as [string, ...string[]]).nullable(),
  detail: z.string().min(1).max(2_000),
  revision: z.enum(['2026-07-28', '2025-11-25']).nullable(),
  server: z.object({ name: z.string(), version: z.string() }).nullable(),
  durationMs: z.number().int().nonnegative(),
  retries: z.number().int().nonnegative(),
  probes: z.array(z.object({ name: z.string(), ok: z.boolean(), durationMs: z.number().nonnegative(), detail: z.string(), failure: z.string().nullable() })).min(1),
}).strict();

interface Answer { status: number; contentType: string | null; body: (id: unknown) => string }

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const rpcShape = fc.record({
  idMode: fc.constantFrom('same', 'other', 'null', 'missing'),
  kind: fc.constantFrom('result', 'error', 'both', 'neither'),
  result: jsonValue,
  error: fc.record({ code: fc.integer({ min: -33000, max: 1000 }), message: fc.string() }),
  version: fc.constantFrom('2.0', '1.0', undefined),
});
const body = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => () => s),
  fc.uint8Array({ maxLength: 200 }).map((b) => () => Buffer.from(b).toString('latin1')),
  rpcShape.map((r) => (id: unknown) => {
    const msg: Record<string, unknown> = {};
    if (r.version) msg.jsonrpc = r.version;
    if (r.idMode === 'same') msg.id = id;
    else if (r.idMode === 'other') msg.id = 424242;
    else if (r.idMode === 'null') msg.id = null;
    if (r.kind === 'result' || r.kind === 'both') msg.result = r.result;
    if (r.kind === 'error' || r.kind === 'both') msg.error = r.error;
    return JSON.stringify(msg);
  }),
);
const answer: fc.Arbitrary<Answer> = fc.record({
  status: fc.constantFrom(200, 200, 200, 202, 204, 400, 401, 404, 429, 500, 503),
  contentType: fc.constantFrom('application/json', 'text/event-stream', 'text/html', null),
  body,
}).map((a) => ({
  ...a,
  body: a.contentType === 'text/event-stream' ? (id: unknown) => `event: message\ndata: ${a.body(id)}\n\n` : a.body,
}));

let server: FaultServer;
let queue: Answer[] = [];
beforeAll(async () => {
  server = await startFaultServer((_req, res, rx) => {
    const a = queue.shift();
    if (!a) return void res.writeHead(500).end();
    res.writeHead(a.status, a.contentType ? { 'content-type': a.contentType } : {});
    res.end(a.body(rx.rpcId));
  });
});
afterAll(async () => { await server.close(); });

describe('any answer', () => {
  it('ends in a well-formed Verdict within the budget, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 6 }), fc.constantFrom('auto', '2026-07-28', '2025-11-25'), async (answers, revision) => {
        queue = [...answers];
        const v = await judge(target(server.url, { timeoutMs: 250, budgetMs: BUDGET_MS, revision: revision as 'auto' }));
        expect(VerdictShape.parse(v)).toBeTruthy();
        expect(v.durationMs).toBeLessThanOrEqual(BUDGET_MS * 1.1);
        // Random bytes never make a healthy tool call: the canary tool must be listed and answer.
        if (v.outcome === 'healthy') expect(v.probes.map((p) => p.name)).toContain('tools/call');
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 150), ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : { seed: 20261129 }) },
    );
  });
});
