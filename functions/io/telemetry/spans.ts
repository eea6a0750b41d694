/**
 * One run as an OpenTelemetry trace, built after its verdict from what the run recorded: a root span
 * for the run, a span per step (health, discover or initialize, tools/list, tools/call, the token
 * step, the session's DELETE), and under each step a CLIENT span per HTTP request whose span id is the
 * one its `traceparent` carried, so the server's own spans hang under ours. The trace id is the one
 * on the wire. The CLIENT spans are the MCP semantic conventions' client spans (semconv.ts: v1.41.0):
 * `{mcp.method.name} {gen_ai.tool.name}`, `error.type` and status ERROR on every failed operation (a
 * tool's `isError` included). Other names: HTTP's (`http.request.method`, `http.response.status_code`),
 * `cloud.region`, and `mcp.canary.*` for the canary's own words (target, verdict, failure, step).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { ProbeResult } from '../../base/common/verdict.ts';
import type { RunRecord } from '../../base/common/run-record.ts';
import type { RequestRecord, RequestStep } from './requests.ts';
import { operationAttributes, operationError, operationSpanName } from './semconv.ts';

/** One run to export: its record (already redacted) and the requests it sent. */
export interface RunTrace {
  readonly record: RunRecord;
  readonly requests: readonly RequestRecord[];
}

/** Ids the next span gets: the trace's (always), and the span's when it must match the wire. */
export interface NextIds {
  traceId: string;
  spanId: string | undefined;
}

/** Attribute names of the canary's own (no semantic convention has them). */
export const Attr = {
  target: 'mcp.canary.target',
  verdict: 'mcp.canary.verdict',
  failure: 'mcp.canary.failure',
  step: 'mcp.canary.step',
  durationMs: 'mcp.canary.duration_ms',
  retries: 'mcp.canary.retries',
  era: 'mcp.canary.era',
  scheduledFor: 'mcp.canary.scheduled_for',
  superseded: 'mcp.canary.superseded',
  /** A flow step's place (1-based) and id. */
  flowStepIndex: 'mcp.canary.flow.step.index',
  flowStepId: 'mcp.canary.flow.step.id',
  /** A tool call that ran as a task: its id, its last status, ms to its terminal status. */
  taskId: 'mcp.canary.task.id',
  taskStatus: 'mcp.canary.task.status',
  taskTerminalMs: 'mcp.canary.task.terminal_ms',
} as const;

/** The step span a probe line belongs to: the request steps' names, and `auth` (the token step, not seen on the wire). */
const PROBE_STEP: Readonly<Record<ProbeResult['name'], RequestStep | 'auth'>> = {
  auth: 'auth',
  health: 'health',
  discover: 'discover',
  initialize: 'initialize',
  'tools/list': 'tools/list',
  'tools/call': 'tools/call',
  'resources/list': 'resources/list',
  'resources/read': 'resources/read',
  'prompts/list': 'prompts/list',
  'prompts/get': 'prompts/get',
};

interface StepSpan {
  readonly step: string;
  readonly requests: RequestRecord[];
  probe?: ProbeResult;
  start: number;
  end: number;
}

/** Records the run's spans on `tracer`; `ids` is the provider's id source (see export.ts). */
export function recordRun(tracer: Tracer, ids: NextIds, run: RunTrace): void {
  const { record, requests } = run;
  const v = record.verdict;
  const sent = [...requests].sort((a, b) => a.startedAt - b.startedAt);
  // The id on the wire wins: a verdict the run made itself (a cut run) may carry a fresh one.
  ids.traceId = sent[0]?.traceId ?? v.traceId;
  const steps = stepsOf(sent, v.probes, Date.parse(record.startedAt));
  const start = Math.min(Date.parse(record.startedAt), ...steps.map((s) => s.start));
  const end = Math.max(start + v.durationMs, ...steps.map((s) => s.end));
  const common: Attributes = { [Attr.target]: v.target, 'cloud.region': record.probeRegion };

  ids.spanId = undefined;
  const root = tracer.startSpan(
    'mcp-canary run',
    {
      kind: SpanKind.INTERNAL,
      startTime: start,
      attributes: {
        ...common,
        [Attr.verdict]: v.outcome,
        ...(v.failure ? { [Attr.failure]: v.failure, 'error.type': v.failure } : {}),
        ...(v.revision ? { 'mcp.protocol.version': v.revision, [Attr.era]: v.revision === '2026-07-28' ? 'modern' : 'legacy' } : {}),
        [Attr.durationMs]: v.durationMs,
        [Attr.retries]: v.retries,
        [Attr.scheduledFor]: record.scheduledFor,
        ...serverOf(sent[0]),
      },
    },
    context.active(),
  );
  if (v.outcome === 'failed') root.setStatus({ code: SpanStatusCode.ERROR, message: v.detail });
  const underRoot = trace.setSpan(context.active(), root);

  for (const s of steps) {
    ids.spanId = undefined;
    const last = s.requests.at(-1);
    const span = tracer.startSpan(
      s.step,
      {
        kind: SpanKind.INTERNAL,
        startTime: s.start,
        attributes: {
          ...common,
          [Attr.step]: s.step,
          ...(s.step.includes('/') || s.step === 'initialize' || s.step === 'discover' ? { 'mcp.method.name': methodOf(s.step) } : {}),
          ...(s.step === 'tools/call' ? { 'gen_ai.operation.name': 'execute_tool' } : {}),
          ...(last?.toolName ? { 'gen_ai.tool.name': last.toolName } : {}),
          ...(last?.status !== undefined ? { 'http.response.status_code': last.status } : {}),
          ...(s.probe
            ? {
                [Attr.durationMs]: s.probe.durationMs,
                ...(s.probe.failure ? { [Attr.failure]: s.probe.failure, 'error.type': s.probe.failure } : {}),
                ...flowAttributes(s.probe),
              }
            : { [Attr.superseded]: s.step !== 'DELETE' && s.step !== 'server card' && s.step !== 'other' }),
        },
      },
      underRoot,
    );
    if (s.probe && !s.probe.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: s.probe.detail });
    const underStep = trace.setSpan(context.active(), span);
    for (const r of s.requests) recordRequest(tracer, ids, r, underStep, common, v.revision);
    span.end(s.end);
  }
  root.end(end);
}

function recordRequest(
  tracer: Tracer,
  ids: NextIds,
  r: RequestRecord,
  parent: ReturnType<typeof context.active>,
  common: Attributes,
  revision: string | null,
): void {
  ids.spanId = r.spanId;
  const span: Span = tracer.startSpan(
    operationSpanName(r),
    {
      kind: SpanKind.CLIENT,
      startTime: r.startedAt,
      attributes: {
        ...common,
        'http.request.method': r.httpMethod,
        // Shown, not sent: keys kept, values, userinfo and key-like path segments masked (shown-url.ts).
        'url.full': r.urlFull,
        ...operationAttributes(r, r.rpcMethod ? revision : null, true),
        ...(r.status !== undefined ? { 'http.response.status_code': r.status } : {}),
      },
    },
    parent,
  );
  ids.spanId = undefined;
  // "Span status SHOULD be set to ERROR when error.type attribute is present."
  const failed = operationError(r);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: failed.words });
  span.end(r.endedAt);
}

/** A flow step's place, and how its task ended, when it ran as one. */
function flowAttributes(p: ProbeResult): Attributes {
  return {
    ...(p.step ? { [Attr.flowStepIndex]: p.step.index, ...(p.step.id ? { [Attr.flowStepId]: p.step.id } : {}) } : {}),
    ...(p.task
      ? {
          [Attr.taskId]: p.task.taskId,
          [Attr.taskStatus]: p.task.status,
          ...(p.task.terminalMs !== null ? { [Attr.taskTerminalMs]: p.task.terminalMs } : {}),
        }
      : {}),
  };
}

function serverOf(r: RequestRecord | undefined): Attributes {
  return r ? { 'server.address': r.serverAddress, 'server.port': r.serverPort } : {};
}

function methodOf(step: string): string {
  return step === 'discover' ? 'server/discover' : step;
}

/**
 * Steps from the requests (consecutive requests of one step are one step span; a retried attempt's are
 * earlier spans of the same name, marked superseded), the verdict's probe lines on the last of each
 * name, and a span for each probe that sent nothing we saw (the token step, a refused tool), laid after
 * the step before it. Requests of no step (the 2025 SSE stream, posture checks) join the step they fell in.
 */
function stepsOf(sent: readonly RequestRecord[], probes: readonly ProbeResult[], runStart: number): StepSpan[] {
  const steps: StepSpan[] = [];
  const loose: RequestRecord[] = [];
  for (const r of sent) {
    if (r.step === 'other') {
      loose.push(r);
      continue;
    }
    const prev = steps.at(-1);
    // The same request again (a second server/discover) is the next attempt's step, not more of this one.
    // A task's polls (tasks/get, again and again) stay in their tool call's step.
    const again = r.rpcMethod !== 'tasks/get' && prev?.requests.some((x) => x.rpcMethod === r.rpcMethod && x.httpMethod === r.httpMethod);
    if (prev && prev.step === r.step && !again) {
      prev.requests.push(r);
      prev.end = Math.max(prev.end, r.endedAt);
    } else steps.push({ step: r.step, requests: [r], start: r.startedAt, end: r.endedAt });
  }
  let cursor = runStart;
  for (const [k, p] of probes.entries()) {
    const name = PROBE_STEP[p.name];
    // Counted from the end: a flow's second tools/call is the last span of that name, its first the one
    // before; an earlier attempt's spans are left over, superseded.
    const after = probes.slice(k + 1).filter((q) => PROBE_STEP[q.name] === name).length;
    const mine = steps.filter((s) => s.step === name).at(-1 - after);
    if (mine) {
      mine.probe = p;
      mine.end = Math.max(mine.end, mine.start + p.durationMs);
      cursor = mine.end;
    } else {
      const at = steps.findIndex((s) => s.start >= cursor);
      const made: StepSpan = { step: p.name, requests: [], probe: p, start: cursor, end: cursor + p.durationMs };
      steps.splice(at === -1 ? steps.length : at, 0, made);
      cursor = made.end;
    }
  }
  for (const r of loose) {
    const home = [...steps].reverse().find((s) => s.start <= r.startedAt);
    if (home) {
      home.requests.push(r);
      home.end = Math.max(home.end, r.endedAt);
    } else steps.push({ step: 'other', requests: [r], start: r.startedAt, end: r.endedAt });
  }
  return steps;
}
