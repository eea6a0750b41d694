/**
 * The trace a run becomes, for the shapes a live server rarely shows at will: a retried attempt, the
 * token step (no request on the trace-context wire), a request of no step, a refused tool that sent
 * nothing. Built by the SDK, serialized to OTLP protobuf and decoded with the proto definitions.
 */
import { describe, expect, it } from 'vitest';
import { defaultResource } from '@opentelemetry/resources';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { ProbeResult, Verdict } from '../../../../functions/base/common/verdict.ts';
import { metricBytes, traceBytes } from '../../../../functions/io/telemetry/export.ts';
import type { RequestRecord } from '../../../../functions/io/telemetry/requests.ts';
import { decodeMetrics, decodeTraces } from '../../../helpers/otlp-receiver.ts';

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
    urlFull: 'https://mcp.example.com/mcp',
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
    // Where each went, as the request log showed it (shown-url.ts), beside server.address and port.
    for (const c of clients)
      expect(c.attributes).toMatchObject({ 'url.full': 'https://mcp.example.com/mcp', 'server.address': 'mcp.example.com' });
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

  it("gives each flow step a span of its own, two calls of one kind apart, a task's polls under its call", () => {
    // Prepare: a flow of two tool calls (the second ran as a task: two polls) and a resources/read
    const requests = [
      req('discover', 10, { rpcMethod: 'server/discover' }),
      req('tools/list', 40, { rpcMethod: 'tools/list' }),
      req('tools/call', 70, { rpcMethod: 'tools/call', toolName: 'find_order' }),
      req('tools/call', 100, { rpcMethod: 'tools/call', toolName: 'export_report' }),
      req('tools/call', 130, { rpcMethod: 'tasks/get' }),
      req('tools/call', 160, { rpcMethod: 'tasks/get' }),
      req('resources/read', 190, { rpcMethod: 'resources/read' }),
    ];
    const task = { taskId: 'task-1', status: 'completed', polls: 2, terminalMs: 80 };
    const probes: ProbeResult[] = [
      probe('discover'),
      probe('tools/list'),
      { ...probe('tools/call'), step: { index: 1, id: 'find' } },
      { ...probe('tools/call'), step: { index: 2, id: 'export' }, task },
      { ...probe('resources/read'), step: { index: 3 } },
    ];
    // Act
    const { spans } = decodeTraces(traceBytes([{ record: record({ probes }), requests }], defaultResource()));
    // Assess
    const root = spans.find((s) => s.name === 'mcp-canary run')!;
    const steps = spans.filter((s) => s.parentSpanId === root.spanId);
    expect(steps.map((s) => [s.name, s.attributes['mcp.canary.flow.step.index'], s.attributes['mcp.canary.flow.step.id']])).toEqual([
      ['discover', undefined, undefined],
      ['tools/list', undefined, undefined],
      ['tools/call', 1, 'find'],
      ['tools/call', 2, 'export'],
      ['resources/read', 3, undefined],
    ]);
    expect(steps[3]!.attributes).toMatchObject({
      'mcp.canary.task.id': 'task-1',
      'mcp.canary.task.status': 'completed',
      'mcp.canary.task.terminal_ms': 80,
    });
    expect(spans.filter((s) => s.parentSpanId === steps[3]!.spanId)).toHaveLength(3);
    expect(steps.some((s) => s.attributes['mcp.canary.superseded'] === true)).toBe(false);
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

describe('a failed operation, by the MCP semantic conventions (v1.41.0, gen-ai/mcp.md)', () => {
  // One request of each way an MCP operation fails, and one that did not.
  const cases: Array<[string, Partial<RequestRecord>, string | undefined]> = [
    ['a tool answered isError', { rpcMethod: 'tools/call', toolName: 'get_rate', toolError: true }, 'tool_error'],
    ['a JSON-RPC error', { rpcMethod: 'tools/call', toolName: 'get_rate', rpcError: '-32602' }, '-32602'],
    ['a JSON-RPC error on an HTTP 400', { rpcMethod: 'tools/list', status: 400, rpcError: '-32600' }, '-32600'],
    ['an HTTP error without one', { rpcMethod: 'tools/list', status: 503 }, '503'],
    ['no answer', { rpcMethod: 'tools/list', status: undefined, error: 'timeout' }, 'timeout'],
    ['an answer', { rpcMethod: 'tools/list' }, undefined],
  ];

  it.each(cases)('%s: error.type on the CLIENT span, status ERROR iff it is set', (_, extra, errorType) => {
    const r = req(extra.rpcMethod === 'tools/call' ? 'tools/call' : 'tools/list', 10, extra);
    const { spans } = decodeTraces(traceBytes([{ record: record({}), requests: [r] }], defaultResource()));
    const client = spans.find((s) => s.kind === 3)!;
    expect(client.attributes['error.type']).toBe(errorType);
    expect(client.status.code).toBe(errorType === undefined ? 0 : 2);
    if (extra.rpcError) expect(client.attributes['rpc.response.status_code']).toBe(extra.rpcError);
    if (extra.rpcMethod === 'tools/call') {
      expect(client.name).toBe('tools/call get_rate');
      expect(client.attributes).toMatchObject({ 'gen_ai.tool.name': 'get_rate', 'gen_ai.operation.name': 'execute_tool' });
    }
  });

  it.each(cases)('%s: the same error.type on mcp.client.operation.duration, with the tool name', async (_, extra, errorType) => {
    const r = req(extra.rpcMethod === 'tools/call' ? 'tools/call' : 'tools/list', 10, extra);
    const points = decodeMetrics(await metricBytes([{ record: record({}), requests: [r] }], defaultResource()));
    const op = points.filter((p) => p.metric === 'mcp.client.operation.duration');
    expect(op).toHaveLength(1);
    expect(op[0]!.attributes['error.type']).toBe(errorType);
    expect(op[0]!.attributes['mcp.method.name']).toBe(extra.rpcMethod);
    if (extra.rpcMethod === 'tools/call') expect(op[0]!.attributes['gen_ai.tool.name']).toBe('get_rate');
  });
});

describe('mcp.client.operation.duration', () => {
  it('is in seconds with the convention’s bucket boundaries, so a 150 ms call and a 3 s call land in buckets of their own', async () => {
    const fast = req('tools/list', 10, { rpcMethod: 'tools/list', endedAt: T0 + 10 + 4 });
    const mid = req('tools/call', 20, { rpcMethod: 'tools/call', toolName: 'get_rate', endedAt: T0 + 20 + 150 });
    const slow = req('tools/call', 30, { rpcMethod: 'tools/call', toolName: 'get_rate', endedAt: T0 + 30 + 3_000 });
    const points = decodeMetrics(await metricBytes([{ record: record({}), requests: [fast, mid, slow] }], defaultResource()));
    const op = points.filter((p) => p.metric === 'mcp.client.operation.duration');
    expect(op.every((p) => p.unit === 's')).toBe(true);
    expect(op.map((p) => p.explicitBounds)).toEqual(op.map(() => [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]));
    const list = op.find((p) => p.attributes['mcp.method.name'] === 'tools/list')!;
    const calls = op.find((p) => p.attributes['mcp.method.name'] === 'tools/call')!;
    // Bucket i counts values in (bounds[i-1], bounds[i]]: 0.004 s in the first, 0.15 s in (0.1, 0.2], 3 s in (2, 5].
    expect(list.bucketCounts).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(calls.bucketCounts).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(calls.value).toBeCloseTo(3.15, 5);
  });
});
