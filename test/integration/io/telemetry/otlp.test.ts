/**
 * The runs as OpenTelemetry, end to end: a scheduled run (functions/lambdas/run) against real MCP servers of
 * both eras that record the `traceparent` they received, moto_server for the CloudWatch publish and the
 * header secret, and a real OTLP/HTTP receiver on loopback whose protobuf bodies are decoded with the
 * OTLP proto definitions. Checked: spans and their parents, attributes, the trace id the server saw,
 * the metrics, one export per signal per batch, and that an exporter that hangs, fails or refuses
 * changes neither the verdict nor the publish, and gets one log line without a secret.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import { Telemetry, telemetrySettings, type TelemetryInput } from '../../../../functions/base/config/schema/telemetry.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { telemetryFor } from '../../../../functions/lambdas/run/telemetry.ts';
import { TELEMETRY_FAILED_MESSAGE } from '../../../../functions/io/telemetry/batch.ts';
import { startCatalogPostureServer, type CatalogPostureServer } from '../../../helpers/catalog-posture-server.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { decodeMetrics, decodeTraces, startOtlpReceiver, type Answer, type OtlpReceiver } from '../../../helpers/otlp-receiver.ts';
import { HOME_REGION, NAMESPACE, PROBE_REGION, deadUrl, motoRunDeps, motoSecretClients } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);

const API_KEY = 'otlp-key-7c1d9e55aa0b4f2e';
const TOKEN = 'mcp-bearer-3b8f0e7d91c24a66';
const tool = { name: 'get_rate', description: 'rate', inputSchema: z.object({}), annotations: { readOnlyHint: true } };

let moto: Moto;
let receiver: OtlpReceiver;
const servers: CatalogPostureServer[] = [];
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
  await motoSecretClients(moto.endpoint)
    .secretsManager(PROBE_REGION)
    .send(new CreateSecretCommand({ Name: 'mcp-canary/otel-key', SecretString: API_KEY }));
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await Promise.all([receiver.close(), ...servers.splice(0).map((s) => s.close())]);
});

async function server(era: 'modern' | 'legacy', bearerToken?: string): Promise<CatalogPostureServer> {
  const s = await startCatalogPostureServer({ era, tools: [tool], ...(bearerToken ? { bearerToken, resourceMetadata: false } : {}) });
  servers.push(s);
  return s;
}

function settings(otlp: Partial<TelemetryInput['otlp']> = {}) {
  return telemetrySettings(
    Telemetry.parse({ otlp: { endpoint: receiver.url, headers: { 'x-api-key': { secretsManager: 'mcp-canary/otel-key' } }, ...otlp } }),
  )!;
}

/** One scheduled run with telemetry on; its log lines and summary. */
async function scheduledRun(targets: unknown[], otlp: Partial<TelemetryInput['otlp']> = {}) {
  const lines: string[] = [];
  const deps = motoRunDeps(moto.endpoint, lines);
  const telemetry = telemetryFor(settings(otlp), { probeRegion: PROBE_REGION, secrets: deps.secrets, log: (l) => lines.push(l) });
  const summary = await run({ targets }, { ...deps, telemetry });
  const parsed = lines.map((l) => JSON.parse(l) as { message: string } & Partial<RunRecord> & Record<string, unknown>);
  return { summary, lines, parsed, records: parsed.filter((l) => l.message === 'mcp-canary run') as RunRecord[] };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('a run, exported', () => {
  it.each(['modern', 'legacy'] as const)(
    'on a %s server is one trace with the id the server received: a root, a span per step, a client span per request with the id it sent',
    async (era) => {
      // Prepare
      const mcp = await server(era);
      // Act
      const { summary, records } = await scheduledRun([{ name: 'rates', url: mcp.url, tool: { name: 'get_rate' } }]);
      // Assess
      expect(summary.verdicts).toEqual([{ target: 'rates', outcome: 'healthy', failure: null }]);
      const traces = receiver.received.filter((r) => r.path === '/v1/traces');
      expect(traces).toHaveLength(1);
      expect(traces[0]!.headers['content-type']).toBe('application/x-protobuf');
      expect(traces[0]!.headers['x-api-key']).toBe(API_KEY);
      const { resource, spans } = decodeTraces(traces[0]!.body);
      expect(resource).toMatchObject({ 'service.name': 'mcp-canary', 'cloud.provider': 'aws', 'cloud.region': PROBE_REGION });

      // The trace id: the one in every traceparent the server received, and the verdict's.
      const sent = mcp.seen.map((s) => TRACEPARENT.exec(s.traceparent ?? ''));
      expect(sent.every(Boolean)).toBe(true);
      const traceId = sent[0]![1];
      expect(new Set(sent.map((m) => m![1]))).toEqual(new Set([traceId]));
      expect(records[0]!.verdict.traceId).toBe(traceId);
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]));

      // Root → steps → requests; each request span's id is the parent id the server saw.
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const roots = spans.filter((s) => /^0*$/.test(s.parentSpanId));
      expect(roots.map((r) => r.name)).toEqual(['mcp-canary run']);
      const root = roots[0]!;
      const clientSpans = spans.filter((s) => s.kind === 3 /* CLIENT */);
      expect(new Set(clientSpans.map((s) => s.spanId))).toEqual(new Set(sent.map((m) => m![2])));
      for (const c of clientSpans) {
        const step = byId.get(c.parentSpanId);
        expect(step, `the parent of ${c.name}`).toBeDefined();
        expect(step!.parentSpanId).toBe(root.spanId);
      }
      const stepNames = spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name);
      expect(stepNames).toEqual(
        expect.arrayContaining(
          era === 'modern' ? ['discover', 'tools/list', 'tools/call'] : ['initialize', 'tools/list', 'tools/call', 'DELETE'],
        ),
      );
      // The Server Card read after the verdict is its own step: its GET never lands in tools/call's.
      const card = spans.find((s) => s.name === 'server card' && s.parentSpanId === root.spanId)!;
      expect(card, 'the server card step').toBeDefined();
      expect(clientSpans.filter((s) => s.parentSpanId === card.spanId).map((s) => s.name)).toEqual(['GET']);

      // What on-call filters by.
      expect(root.attributes).toMatchObject({
        'mcp.canary.target': 'rates',
        'cloud.region': PROBE_REGION,
        'mcp.canary.verdict': 'healthy',
        'mcp.protocol.version': era === 'modern' ? '2026-07-28' : '2025-11-25',
        'mcp.canary.era': era,
        'server.address': '127.0.0.1',
      });
      expect(root.attributes['mcp.canary.duration_ms']).toBe(records[0]!.verdict.durationMs);
      expect(root.attributes['error.type']).toBeUndefined();
      const call = spans.find((s) => s.name === 'tools/call' && s.parentSpanId === root.spanId)!;
      expect(call.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'get_rate',
        'http.response.status_code': 200,
      });
      const callRequest = clientSpans.find((s) => s.parentSpanId === call.spanId)!;
      expect(callRequest).toMatchObject({ name: 'tools/call get_rate' });
      expect(callRequest.attributes).toMatchObject({
        'http.request.method': 'POST',
        'mcp.method.name': 'tools/call',
        'server.port': Number(new URL(mcp.url).port),
      });

      // The published verdict is there too.
      expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'rates')).toEqual({ runs: 1, worst: 0 });
    },
  );
});

describe('a batch of runs', () => {
  it('goes out in one trace export and one metrics export: verdicts as a delta counter by class, and a duration histogram', async () => {
    // Prepare
    const [ok, walled] = await Promise.all([server('modern'), server('modern', TOKEN)]);
    // Act
    const { summary, lines } = await scheduledRun([
      { name: 'open', url: ok.url, tool: { name: 'get_rate' } },
      { name: 'walled', url: walled.url, tool: { name: 'get_rate' }, headers: { Authorization: `Bearer wrong-${TOKEN}` } },
    ]);
    // Assess
    expect(summary.verdicts).toEqual([
      { target: 'open', outcome: 'healthy', failure: null },
      { target: 'walled', outcome: 'failed', failure: 'auth' },
    ]);
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/v1/metrics', '/v1/traces']);
    const { spans } = decodeTraces(receiver.received.find((r) => r.path === '/v1/traces')!.body);
    const roots = spans.filter((s) => s.name === 'mcp-canary run');
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((r) => r.traceId)).size).toBe(2);
    const failed = roots.find((r) => r.attributes['mcp.canary.target'] === 'walled')!;
    expect(failed.attributes).toMatchObject({ 'mcp.canary.verdict': 'failed', 'mcp.canary.failure': 'auth', 'error.type': 'auth' });
    expect(failed.status.code).toBe(2 /* ERROR */);
    const walledRequests = spans.filter((s) => s.traceId === failed.traceId && s.kind === 3);
    expect(walledRequests.some((s) => s.attributes['http.response.status_code'] === 401)).toBe(true);

    const points = decodeMetrics(receiver.received.find((r) => r.path === '/v1/metrics')!.body);
    const runs = points.filter((p) => p.metric === 'mcp.canary.runs');
    expect(
      runs.map((p) => [p.attributes['mcp.canary.target'], p.attributes['mcp.canary.verdict'], p.attributes['error.type'], p.value]).sort(),
    ).toEqual([
      ['open', 'healthy', undefined, 1],
      ['walled', 'failed', 'auth', 1],
    ]);
    expect(runs.every((p) => p.temporality === 1 /* DELTA */ && p.unit === '{run}')).toBe(true);
    const durations = points.filter((p) => p.metric === 'mcp.canary.run.duration');
    expect(durations.map((p) => p.count)).toEqual([1, 1]);
    expect(durations.every((p) => p.unit === 's')).toBe(true);
    expect(points.some((p) => p.metric === 'mcp.client.operation.duration' && p.attributes['mcp.method.name'] === 'tools/call')).toBe(true);

    // No secret — the telemetry API key, the target's bearer — in any export or log line.
    for (const secret of [API_KEY, TOKEN]) {
      for (const r of receiver.received) expect(r.body.includes(secret)).toBe(false);
      expect(lines.join('\n')).not.toContain(secret);
    }
  });
});

describe('a collector that redirects', () => {
  it('gets no second request: the API key never reaches the host a 307 points to, and the export is logged as failed', async () => {
    // Prepare: the collector answers every export with a redirect to another origin.
    const mcp = await server('modern');
    const elsewhere = await startOtlpReceiver();
    receiver.answer = { status: 307, headers: { location: `${elsewhere.url}/v1/traces` } };
    try {
      // Act
      const { summary, parsed, lines } = await scheduledRun([{ name: 'rates', url: mcp.url, tool: { name: 'get_rate' } }]);
      // Assess
      expect(summary).toEqual({ verdicts: [{ target: 'rates', outcome: 'healthy', failure: null }], published: true });
      expect(elsewhere.received).toEqual([]);
      expect(receiver.received.map((r) => r.headers['x-api-key'])).toEqual([API_KEY, API_KEY]);
      expect(parsed.map((l) => l.message)).toEqual(['mcp-canary run', TELEMETRY_FAILED_MESSAGE]);
      expect(String(parsed[1]!.traces)).toMatch(/^the collector answered HTTP 307 \(a redirect, not followed/);
      expect(lines.join('\n')).not.toContain(API_KEY);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('an exporter that misbehaves', () => {
  const cases: Array<[string, Answer | 'refused']> = [
    ['hangs', 'hang'],
    ['answers 500', { status: 500 }],
    ['answers 429', { status: 429, headers: { 'retry-after': '30' } }],
    ['refuses connections', 'refused'],
  ];
  it.each(cases)('that %s changes no verdict and no publish, and is logged once without a secret', async (_, answer) => {
    // Prepare
    const mcp = await server('legacy');
    if (answer !== 'refused') receiver.answer = answer;
    const endpoint = answer === 'refused' ? new URL(await deadUrl()).origin : receiver.url;
    // Act
    const { summary, parsed, lines } = await scheduledRun([{ name: 'rates', url: mcp.url, tool: { name: 'get_rate' } }], {
      endpoint,
      timeoutMs: 500,
    });
    // Assess: the same verdict and publish as with no telemetry at all.
    expect(summary).toEqual({ verdicts: [{ target: 'rates', outcome: 'healthy', failure: null }], published: true });
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'rates')).toEqual({ runs: 1, worst: 0 });
    if (answer !== 'refused') expect(receiver.received.map((r) => r.path).sort()).toEqual(['/v1/metrics', '/v1/traces']);
    // The verdict's line first, then one line for the failed export, naming where and why, no secret.
    expect(parsed.map((l) => l.message)).toEqual(['mcp-canary run', TELEMETRY_FAILED_MESSAGE]);
    const failure = parsed[1]!;
    expect(failure.endpoints).toEqual([`${endpoint}/v1/traces`, `${endpoint}/v1/metrics`]);
    const why = String(failure.traces);
    // Within the configured 500 ms, less what reading the header secret took (one deadline for the whole flush).
    if (answer === 'hang') expect(Number(/no answer within (\d+) ms/.exec(why)?.[1])).toBeLessThanOrEqual(500);
    if (answer === 'refused') expect(why).toMatch(/unreachable/);
    if (typeof answer === 'object') expect(why).toContain(`HTTP ${answer.status}`);
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});

describe('failed and slow operations, by the MCP semantic conventions (v1.41.0)', () => {
  it.each(['modern', 'legacy'] as const)(
    'on a %s server: a tool answering isError is error.type tool_error on its CLIENT span and its duration point; a slow one lands in its own seconds bucket',
    async (era) => {
      // Prepare: one tool answers isError (an upstream key expired), one takes 150 ms to answer.
      const failing = {
        ...tool,
        name: 'get_quote',
        answer: async () => ({ content: [{ type: 'text' as const, text: 'upstream answered 401' }], isError: true }),
      };
      const slow = {
        ...tool,
        name: 'get_history',
        answer: async () => {
          await new Promise((r) => setTimeout(r, 150));
          return { content: [{ type: 'text' as const, text: 'ok' }] };
        },
      };
      const mcp = await startCatalogPostureServer({ era, tools: [failing, slow] });
      servers.push(mcp);
      // Act
      const { summary } = await scheduledRun([
        { name: 'quotes', url: mcp.url, tool: { name: 'get_quote' } },
        { name: 'history', url: mcp.url, tool: { name: 'get_history' } },
      ]);
      // Assess: the verdicts as before.
      expect(summary.verdicts).toEqual([
        { target: 'quotes', outcome: 'failed', failure: 'tool_error' },
        { target: 'history', outcome: 'healthy', failure: null },
      ]);
      const { spans } = decodeTraces(receiver.received.find((r) => r.path === '/v1/traces')!.body);
      const callOf = (tool: string) => spans.find((s) => s.kind === 3 && s.name === `tools/call ${tool}`)!;
      expect(callOf('get_quote').attributes).toMatchObject({
        'error.type': 'tool_error',
        'gen_ai.tool.name': 'get_quote',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.method.name': 'tools/call',
        'http.response.status_code': 200,
      });
      expect(callOf('get_quote').status.code).toBe(2 /* ERROR */);
      expect(callOf('get_quote').attributes['mcp.protocol.version']).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
      expect(callOf('get_history').attributes['error.type']).toBeUndefined();
      expect(callOf('get_history').status.code).toBe(0 /* UNSET */);
      // Every other request of both runs answered, but a 2025 server's refusal of the era probe: that
      // operation failed too (its JSON-RPC error code), before the canary fell back to initialize.
      // The one exception of HTTP's: the server serves no Server Card, so the card's GET failed (its status).
      const cardSteps = new Set(spans.filter((x) => x.name === 'server card').map((x) => x.spanId));
      for (const s of spans.filter((x) => x.kind === 3 && x.name !== 'tools/call get_quote')) {
        if (cardSteps.has(s.parentSpanId)) {
          expect([s.name, s.attributes['error.type'], s.status.code]).toEqual([
            'GET',
            String(s.attributes['http.response.status_code']),
            2,
          ]);
          expect(s.attributes['http.response.status_code']).toBeGreaterThanOrEqual(400);
        } else if (era === 'legacy' && s.name === 'server/discover') {
          expect(s.attributes['error.type']).toBe(s.attributes['rpc.response.status_code']);
          expect(s.attributes['error.type']).toMatch(/^-32\d{3}$/);
          expect(s.status.code).toBe(2);
          // It was a request of the other era: its own protocol version, not the run's.
          expect(s.attributes['mcp.protocol.version']).toBe('2026-07-28');
        } else expect([s.name, s.attributes['error.type'], s.status.code]).toEqual([s.name, undefined, 0]);
      }

      const points = decodeMetrics(receiver.received.find((r) => r.path === '/v1/metrics')!.body);
      const calls = points.filter((p) => p.metric === 'mcp.client.operation.duration' && p.attributes['mcp.method.name'] === 'tools/call');
      const quote = calls.find((p) => p.attributes['gen_ai.tool.name'] === 'get_quote')!;
      const history = calls.find((p) => p.attributes['gen_ai.tool.name'] === 'get_history')!;
      expect(quote.attributes).toMatchObject({ 'error.type': 'tool_error', 'mcp.canary.target': 'quotes' });
      expect(history.attributes['error.type']).toBeUndefined();
      const bounds = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
      for (const p of points.filter((x) => x.metric === 'mcp.client.operation.duration')) {
        expect(p.unit).toBe('s');
        expect(p.explicitBounds).toEqual(bounds);
      }
      // It ended at the response, which the server sent after 150 ms: at least 0.15 s, so past the 0.1 s bound
      // (bucket 4, (0.1, 0.2], on an idle machine), counted in the bucket its own value falls in — never the first.
      expect(history.value).toBeGreaterThanOrEqual(0.15);
      const own = bounds.findIndex((b) => history.value! <= b);
      expect(own).toBeGreaterThanOrEqual(4);
      expect(history.bucketCounts).toEqual(Array.from({ length: bounds.length + 1 }, (_, i) => (i === own ? 1 : 0)));
    },
  );
});
