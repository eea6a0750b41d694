/**
 * Every request of a run carries `traceparent` with the verdict's trace id (one trace per run, a span
 * per request), on 2026-07-28 also in `_meta`; every request says `User-Agent: mcp-canary/<version>`.
 * The run record carries the same trace id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import pkg from '../../../../package.json' with { type: 'json' };
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { TRACEPARENT_PATTERN, withMetaTraceparent } from '../../../../functions/base/net/trace-context.ts';
import { runRecord } from '../../../../functions/lambdas/run/log.ts';
import { startCatalogPostureServer, type CatalogPostureServer } from '../../../helpers/catalog-posture-server.ts';

let server: CatalogPostureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tool = { name: 'get_rate', description: 'rate', inputSchema: z.object({}), annotations: { readOnlyHint: true } };

function target(url: string): Target {
  return Target.parse({ name: 'traced', url, timeoutMs: 2_000, budgetMs: 8_000, tool: { name: 'get_rate' }, posture: true });
}

describe.each(['modern', 'legacy'] as const)('trace context on a %s server', (era) => {
  it("sends the verdict's trace id in every request, a new span each, and the canary's User-Agent", async () => {
    // Prepare
    server = await startCatalogPostureServer({ era, tools: [tool] });
    // Act
    const v = await judge(target(server.url));
    // Assess
    expect(v.outcome).toBe('healthy');
    expect(v.traceId).toMatch(/^[0-9a-f]{32}$/);
    // The run's own requests and the posture checks' (posture: true, first run of this process).
    expect(server.seen.length).toBeGreaterThan(3);
    const parsed = server.seen.map((s) => TRACEPARENT_PATTERN.exec(s.traceparent ?? ''));
    expect(parsed.every((m) => m !== null)).toBe(true);
    expect(new Set(parsed.map((m) => m![1]))).toEqual(new Set([v.traceId]));
    expect(new Set(parsed.map((m) => m![2])).size).toBe(server.seen.length);
    expect(server.seen.every((s) => s.userAgent === `mcp-canary/${pkg.version}`)).toBe(true);
    const posts = server.seen.filter((s) => s.method === 'POST');
    if (era === 'modern') {
      // The same traceparent in _meta as in the header, request by request.
      expect(posts.every((s) => s.metaTraceparent !== null && s.metaTraceparent === s.traceparent)).toBe(true);
    } else {
      // The discover probe is a 2026-07-28 request and carries it; the 2025-11-25 session's requests have
      // no _meta envelope and are left exactly as the SDK made them.
      expect(posts.find((s) => s.rpcMethod === 'server/discover')?.metaTraceparent).toBe(
        posts.find((s) => s.rpcMethod === 'server/discover')?.traceparent,
      );
      expect(posts.filter((s) => s.rpcMethod !== 'server/discover').every((s) => s.metaTraceparent === null)).toBe(true);
    }
    // The run record is the verdict: the same trace id reaches the log line.
    expect(runRecord(v, 'eu-west-1', new Date(), new Date()).verdict.traceId).toBe(v.traceId);
  });
});

it('gives each run its own trace', async () => {
  server = await startCatalogPostureServer({ era: 'modern', tools: [tool] });
  const a = await judge(target(server.url));
  const b = await judge(target(server.url));
  expect(a.traceId).not.toBe(b.traceId);
});

it('leaves bodies without the 2026-07-28 _meta envelope byte for byte', () => {
  const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const legacy = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  expect(withMetaTraceparent(legacy, tp)).toBe(legacy);
  expect(withMetaTraceparent('not json', tp)).toBe('not json');
  const modern = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  });
  expect(JSON.parse(withMetaTraceparent(modern, tp) as string).params._meta.traceparent).toBe(tp);
});
