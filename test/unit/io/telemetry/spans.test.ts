/**
 * The trace a run becomes, for the shapes a live server rarely shows at will: a retried attempt, the
 * token step (no request on the trace-context wire), a request of no step, a refused tool that sent
 * nothing. Built by the SDK, serialized to OTLP protobuf and decoded with the proto definitions.
 */
import { describe, expect, it } from 'vitest';
import { defaultResource } from '@opentelemetry/resources';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { ProbeResult, Verdict } from '../../../../functions/base/common/verdict.ts';
import { traceBytes } from '../../../../functions/io/telemetry/export.ts';
import type { RequestRecord } from '../../../../functions/io/telemetry/requests.ts';
import { decodeTraces } from '../../../helpers/otlp-receiver.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
let n = 0;
function req(step: RequestRecord['step'], at: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  n++;
  return {
    traceId: TRACE,
    spanId: n.toString(16).padStart(16, 'a'),
    step,
    httpMethod: 'POST',
    serverAddress: 'mcp.example.com',
    serverPort: 443,
    startedAt: T0 + at,
    endedAt: T0 + at + 20,
    status: 200,
    ...extra,
  };
}
const probe = (name: ProbeResult['name'], ok = true, failure: ProbeResult['failure'] = null): ProbeResult => ({
  name,
  ok,
  durationMs: 20,
  detail: ok ? 'ok' : 'refused',
  failure,
});
function record(v: Partial<Verdict>): RunRecord {
  return {
    message: 'mcp-canary run',
    target: 'rates',
    probeRegion: 'eu-west-1',
    startedAt: new Date(T0).toISOString(),
    scheduledFor: new Date(T0).toISOString(),
    verdict: {
      target: 'rates',
      outcome: 'healthy',
      failure: null,
      detail: 'ok',
      revision: '2026-07-28',
      server: null,
      durationMs: 400,
      retries: 0,
      probes: [],
      warnings: [],
      traceId: TRACE,
      ...v,
    },
  };
}

describe('a run as a trace', () => {
  it('has the token step from its probe line, a retried attempt marked superseded, and a loose request under the step it fell in', () => {
    // Prepare: attempt 1 fails on discover (503), attempt 2 passes; the token step sent nothing we saw
    const requests = [
      req('discover', 50, { rpcMethod: 'server/discover', status: 503 }),
      req('discover', 200, { rpcMethod: 'server/discover' }),
      req('tools/list', 230, { rpcMethod: 'tools/list' }),
      req('other', 240, { httpMethod: 'GET', status: 405 }),
      req('tools/call', 260, { rpcMethod: 'tools/call', toolName: 'get_rate', rpcId: '3' }),
    ];
    const probes = [probe('auth'), probe('discover'), probe('tools/list'), probe('tools/call')];
    // Act
    const { spans } = decodeTraces(
      traceBytes([{ record: record({ outcome: 'degraded', retries: 1, probes }), requests }], defaultResource()),
    );
    // Assess
    const root = spans.find((s) => s.name === 'mcp-canary run')!;
    const steps = spans.filter((s) => s.parentSpanId === root.spanId);
    expect(steps.map((s) => s.name)).toEqual(['auth', 'discover', 'discover', 'tools/list', 'tools/call']);
    expect(steps.map((s) => s.attributes['mcp.canary.superseded'])).toEqual([undefined, true, undefined, undefined, undefined]);
    expect(root.attributes).toMatchObject({ 'mcp.canary.verdict': 'degraded', 'mcp.canary.retries': 1 });
    // Every request is a CLIENT span with the id it sent, under its step; the loose GET under tools/list.
    const clients = spans.filter((s) => s.kind === 3);
    expect(clients.map((c) => c.spanId).sort()).toEqual(requests.map((r) => r.spanId).sort());
    const parentName = (spanId: string) => spans.find((s) => s.spanId === clients.find((c) => c.spanId === spanId)!.parentSpanId)!.name;
    expect(requests.map((r) => parentName(r.spanId))).toEqual(['discover', 'discover', 'tools/list', 'tools/list', 'tools/call']);
    const failedRequest = clients.find((c) => c.spanId === requests[0]!.spanId)!;
    expect(failedRequest).toMatchObject({ status: { code: 2 }, attributes: { 'error.type': '503', 'http.response.status_code': 503 } });
    expect(clients.find((c) => c.spanId === requests[4]!.spanId)!.attributes).toMatchObject({
      'jsonrpc.request.id': '3',
      'gen_ai.tool.name': 'get_rate',
    });
  });

  it('gives a step that sent nothing (a refused unsafe tool) a span from its probe line, with its failure', () => {
    // Prepare
    const requests = [req('discover', 10, { rpcMethod: 'server/discover' }), req('tools/list', 40, { rpcMethod: 'tools/list' })];
    const probes = [probe('discover'), probe('tools/list'), probe('tools/call', false, 'unsafe_tool')];
    // Act
    const { spans } = decodeTraces(
      traceBytes([{ record: record({ outcome: 'inconclusive', failure: 'unsafe_tool', probes }), requests }], defaultResource()),
    );
    // Assess
    const call = spans.find((s) => s.name === 'tools/call')!;
    expect(call.attributes).toMatchObject({ 'mcp.canary.failure': 'unsafe_tool', 'error.type': 'unsafe_tool' });
    expect(call.status).toEqual({ code: 2, message: 'refused' });
    expect(spans.filter((s) => s.parentSpanId === call.spanId)).toEqual([]);
    // Inconclusive is not an error of the endpoint: the root's status stays unset.
    expect(spans.find((s) => s.name === 'mcp-canary run')!.status.code).toBe(0);
  });

  it('keeps the trace id the requests carried when the verdict carries another (a run the canary cut itself)', () => {
    const requests = [req('discover', 10, { rpcMethod: 'server/discover' })];
    const { spans } = decodeTraces(
      traceBytes(
        [{ record: record({ outcome: 'failed', failure: 'timeout', traceId: 'ffffffffffffffffffffffffffffffff' }), requests }],
        defaultResource(),
      ),
    );
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([TRACE]));
  });
});
