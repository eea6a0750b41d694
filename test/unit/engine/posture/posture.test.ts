/**
 * Posture checks against real servers that pass and fail each check, over both eras; the hourly
 * cadence with a fake clock; posture never changes the outcome.
 */
import { request as httpsRequest } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWithTools } from '../../../helpers/tools.ts';
import { z } from 'zod';
import { Target, type TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { PostureCadence, POSTURE_INTERVAL_MS } from '../../../../functions/engine/posture/cadence.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import type { FetchLike } from '../../../../functions/base/net/wire.ts';
import type { PostureResult, Verdict } from '../../../../functions/base/common/verdict.ts';
import { selfSignedCert, startFaultServer, modernEndpoint, rpcResult, readOnlyRateTool } from '../../../helpers/faults.ts';
import {
  startCatalogPostureServer,
  type CatalogPostureServer,
  type CatalogPostureServerOptions,
} from '../../../helpers/catalog-posture-server.ts';

const TOKEN = 'posture-secret-token-42';
const tool = { name: 'get_rate', description: 'rate', inputSchema: z.object({}), annotations: { readOnlyHint: true } };
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

async function serve(opts: Omit<CatalogPostureServerOptions, 'tools'>): Promise<CatalogPostureServer> {
  const s = await startCatalogPostureServer({ tools: [tool], ...opts });
  closers.push(() => s.close());
  return s;
}

function target(url: string, over: Partial<TargetInput> = {}): Target {
  return Target.parse({ name: 'posture', url, timeoutMs: 2_000, budgetMs: 8_000, tool: { name: 'get_rate' }, posture: true, ...over });
}

/** A fresh cadence per test: every run is the first of its hour. */
const fresh = () => ({ postureCadence: new PostureCadence() });

function byCheck(v: Verdict): Record<string, PostureResult['status']> {
  return Object.fromEntries((v.posture ?? []).map((r) => [r.check, r.status]));
}

describe.each(['modern', 'legacy'] as const)('posture on a %s server', (era) => {
  it('passes every check on a server that validates Origin, versions and credentials', async () => {
    const s = await serve({ era, validateOrigin: true, bearerToken: TOKEN });
    const v = await judge(target(s.url, { headers: { Authorization: `Bearer ${TOKEN}` } }), fresh());
    expect(v.outcome).toBe('healthy');
    expect(byCheck(v)).toEqual({
      origin: 'pass',
      'protocol-version': 'pass',
      'get-delete': era === 'modern' ? 'pass' : 'skipped',
      unauthenticated: 'pass',
      hsts: 'skipped',
      // Its authorization server (127.0.0.1:1) publishes nothing: not judged either way.
      'unattended-auth': 'skipped',
    });
    expect(v.warnings).toEqual([]);
    expect(v.posture!.find((r) => r.check === 'unauthenticated')!.detail).toContain('resolves');
    expect(JSON.stringify(v)).not.toContain(TOKEN);
  });

  it('fails origin on a server that accepts any Origin, and unauthenticated on one that needs no credentials — as warnings only', async () => {
    const s = await serve({ era });
    const v = await judge(target(s.url, { headers: { Authorization: `Bearer ${TOKEN}` } }), fresh());
    expect(v.outcome).toBe('healthy');
    expect(byCheck(v)).toMatchObject({ origin: 'fail', unauthenticated: 'fail', 'protocol-version': 'pass' });
    const posture = v.warnings.filter((w) => w.kind === 'posture').map((w) => w.detail);
    expect(posture).toHaveLength(2);
    // 2026-07-28 serves the foreign discover; 2025-11-25 opens a session for the foreign initialize (and
    // the check DELETEs it): both 200, neither is 403. A sessionless request would only show the missing session.
    expect(posture[0]).toMatch(/^posture origin: a request with a foreign Origin was answered HTTP 200.*not refused with 403/);
    expect(posture[1]).toMatch(/^posture unauthenticated: a request without credentials was answered HTTP \d+.*, not 401$/);
    if (era === 'legacy') {
      // Every session a posture probe opened was DELETEd again: the checks change nothing on the server.
      const posts = s.seen.filter((x) => x.method === 'POST' && x.rpcMethod === 'initialize').length;
      const deletes = s.seen.filter((x) => x.method === 'DELETE').length;
      expect(deletes).toBeGreaterThanOrEqual(posts);
    }
  });

  it('fails unauthenticated when the 401 names no resource_metadata', async () => {
    const s = await serve({ era, validateOrigin: true, bearerToken: TOKEN, resourceMetadata: false });
    const v = await judge(target(s.url, { headers: { Authorization: `Bearer ${TOKEN}` } }), fresh());
    expect(v.posture!.find((r) => r.check === 'unauthenticated')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('without resource_metadata'),
    });
  });

  it('skips unauthenticated for a target that sends no credentials', async () => {
    const s = await serve({ era, validateOrigin: true });
    const v = await judge(target(s.url), fresh());
    expect(v.posture!.find((r) => r.check === 'unauthenticated')).toMatchObject({
      status: 'skipped',
      detail: 'the target sends no credentials',
    });
  });
});

describe('2026-07-28 only', () => {
  it('fails get-delete on an endpoint that answers GET and DELETE and mints a session id', async () => {
    const s = await serve({ era: 'modern', statefulModern: true, validateOrigin: true });
    const v = await judge(target(s.url, { posture: ['get-delete'] }), fresh());
    expect(v.posture).toEqual([
      {
        check: 'get-delete',
        status: 'fail',
        detail: expect.stringContaining('GET answered HTTP 200, not 405; GET minted an Mcp-Session-Id'),
      },
    ]);
    expect(v.outcome).toBe('healthy');
  });
});

describe('protocol-version', () => {
  it('fails on a 2026-07-28 endpoint that answers an unknown version as if it were its own', async () => {
    const s = await startFaultServer(
      modernEndpoint({
        tools: [readOnlyRateTool],
        call: () => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { rate: 1 } }),
      }),
    );
    closers.push(() => s.close());
    const v = await judge(target(s.url, { posture: ['protocol-version'] }), fresh());
    expect(v.outcome).toBe('healthy');
    expect(v.posture![0]).toMatchObject({ check: 'protocol-version', status: 'fail' });
    expect(v.posture![0]!.detail).toContain('not refused with -32022');
  });

  it('fails on a 2025-11-25 endpoint that ignores MCP-Protocol-Version', async () => {
    const s = await startFaultServer((_req, res, rx) => {
      if (rx.rpcMethod === 'server/discover') return void res.writeHead(400).end();
      if (rx.rpcMethod === 'initialize')
        return rpcResult(res, rx.rpcId, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'lax', version: '1' },
        });
      if (rx.rpcMethod === 'tools/list') return rpcResult(res, rx.rpcId, { tools: [readOnlyRateTool] });
      if (rx.rpcMethod === 'tools/call')
        return rpcResult(res, rx.rpcId, { content: [{ type: 'text', text: 'ok' }], structuredContent: { rate: 1 } });
      if (rx.rpcMethod === 'ping') return rpcResult(res, rx.rpcId, {});
      res.writeHead(202).end();
    });
    closers.push(() => s.close());
    const v = await judge(target(s.url, { posture: ['protocol-version'] }), fresh());
    expect(v.revision).toBe('2025-11-25');
    expect(v.posture![0]).toMatchObject({
      check: 'protocol-version',
      status: 'fail',
      detail: 'MCP-Protocol-Version 1999-01-01 was answered HTTP 200, not refused with 400',
    });
  });
});

/** fetch over node:https trusting one certificate (Node's global fetch reads extra CAs only at startup). */
function fetchTrusting(ca: string): FetchLike {
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const req = httpsRequest(
        new URL(String(url)),
        { method: init.method ?? 'GET', headers, ca, signal: init.signal ?? undefined },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          const body = [204, 205, 304].includes(res.statusCode ?? 0) ? null : ReadableStreamFromNode(res);
          resolve(new Response(body, { status: res.statusCode ?? 0, headers: h }));
        },
      );
      req.on('error', reject);
      if (typeof init.body === 'string') req.write(init.body);
      req.end();
    });
}
function ReadableStreamFromNode(res: NodeJS.ReadableStream): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      res.on('data', (c: Buffer) => controller.enqueue(new Uint8Array(c)));
      res.on('end', () => controller.close());
      res.on('error', (e) => controller.error(e));
    },
  });
}

describeWithTools(['openssl'], 'hsts', () => {
  const tls = selfSignedCert();
  it.each([true, false])("over https with HSTS %s: records the certificate's days left", async (hsts) => {
    const s = await serve({ era: 'modern', tls, hsts, validateOrigin: true });
    const v = await judge(target(s.url, { posture: ['hsts'] }), { fetch: fetchTrusting(tls.cert), ...fresh() });
    expect(v.outcome).toBe('healthy');
    const r = v.posture![0]!;
    expect(r).toMatchObject({ check: 'hsts', status: hsts ? 'pass' : 'fail' });
    // The test certificate is made for one day.
    expect(r.certificateDaysLeft).toBeGreaterThanOrEqual(0);
    expect(r.certificateDaysLeft).toBeLessThanOrEqual(1);
    expect(r.detail).toMatch(
      hsts
        ? /^Strict-Transport-Security max-age=31536000; certificate: [01] day\(s\) left$/
        : /^no Strict-Transport-Security header; certificate/,
    );
  });
});

describe('cadence', () => {
  it('runs at most once an hour per target in a warm process (fake clock)', async () => {
    const s = await serve({ era: 'modern', validateOrigin: true });
    let clock = Date.parse('2026-11-30T12:00:00Z');
    const cadence = new PostureCadence({ now: () => clock });
    const t = target(s.url, { posture: ['origin'] });
    const origins = () => s.seen.filter((x) => x.method === 'POST' && x.rpcMethod === 'server/discover').length;

    const first = await judge(t, { postureCadence: cadence });
    expect(first.posture).toHaveLength(1);
    const afterFirst = origins();
    clock += POSTURE_INTERVAL_MS - 1;
    const second = await judge(t, { postureCadence: cadence });
    expect(second.posture).toBeUndefined();
    // No posture request went out: only the run's own discover.
    expect(origins()).toBe(afterFirst + 1);
    clock += 1;
    const third = await judge(t, { postureCadence: cadence });
    expect(third.posture).toHaveLength(1);
    // Another target has its own hour.
    const other = await judge({ ...t, name: 'posture-2' }, { postureCadence: cadence });
    expect(other.posture).toHaveLength(1);
  });

  it('does not spend the hour on a run that never reached the server', async () => {
    const cadence = new PostureCadence({ now: () => 0 });
    const down = await judge(target('http://127.0.0.1:9/mcp', { posture: ['origin'], timeoutMs: 500, budgetMs: 2_000 }), {
      postureCadence: cadence,
    });
    expect(down.outcome).toBe('failed');
    expect(down.posture).toBeUndefined();
    expect(cadence.due('posture http://127.0.0.1:9/mcp')).toBe(true);
  });
});

describe('posture never changes the outcome', () => {
  it.each(['modern', 'legacy'] as const)('a %s server failing every check is still judged as without posture', async (era) => {
    const s = await serve({ era, statefulModern: true });
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const without = await judge(target(s.url, { headers, posture: false }), fresh());
    const withPosture = await judge(target(s.url, { headers }), fresh());
    expect(withPosture.posture!.some((r) => r.status === 'fail')).toBe(true);
    expect({ outcome: withPosture.outcome, failure: withPosture.failure }).toEqual({ outcome: without.outcome, failure: without.failure });
    expect(withPosture.outcome).toBe('healthy');
  });
});

describe('a hostile server', () => {
  it('that echoes the credential into every posture answer never gets it into the verdict', async () => {
    const secret = 'Bearer sk-echo-31f9a0c2d4e6';
    const s = await startFaultServer(
      modernEndpoint({
        tools: [readOnlyRateTool],
        call: () => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { rate: 1 } }),
        // GET, DELETE and anything else: a 400 whose JSON-RPC message repeats the Authorization header.
        onOther: (req, res, rx) =>
          void res
            .writeHead(400, { 'content-type': 'application/json', 'strict-transport-security': String(req.headers.authorization) })
            .end(
              JSON.stringify({
                jsonrpc: '2.0',
                id: rx.rpcId ?? null,
                error: { code: -32000, message: `bad: you sent ${req.headers.authorization}` },
              }),
            ),
      }),
    );
    closers.push(() => s.close());
    const v = await judge(target(s.url, { headers: { Authorization: secret } }), fresh());
    expect(v.outcome).toBe('healthy');
    expect(v.posture!.find((r) => r.check === 'get-delete')!.detail).toContain('[redacted]');
    expect(JSON.stringify(v)).not.toContain('sk-echo-31f9a0c2d4e6');
  });
});
