/**
 * The OpenTelemetry part, loaded only when telemetry is configured (batch.ts imports it dynamically, so
 * a fleet without telemetry never parses it): one batch of runs becomes one trace export and one
 * metrics export, built with the OTel JS SDK (spans by its TracerProvider, metrics by its MeterProvider),
 * serialized to OTLP protobuf by @opentelemetry/otlp-transformer, and sent by send.ts, both at once,
 * each under the same short timeout.
 *
 * The SDK's own OTLP exporters are not used: their transport cannot sign the body with SigV4, and
 * their timeout and retries are their own, not what is left of the invocation.
 */
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, RandomIdGenerator, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { VERSION } from '../../base/common/version.ts';
import type { TelemetrySettings } from '../../base/config/schema/telemetry.ts';
import { Attr, recordRun, type NextIds, type RunTrace } from './spans.ts';
import { sendOtlp, type SendDeps, type SendResult } from './send.ts';
import { MCP_CLIENT_OPERATION_DURATION, MCP_DURATION_BUCKETS_S, operationAttributes, SCHEMA_URL } from './semconv.ts';

export type { RunTrace } from './spans.ts';

export interface ExportOutcome {
  readonly traces?: SendResult;
  readonly metrics?: SendResult;
}

export interface BatchContext extends SendDeps {
  /** The configured headers' values, read from their references. */
  readonly headers: Record<string, string>;
  /** The function's region (`cloud.region`), and its name when it is a Lambda. */
  readonly probeRegion: string;
  readonly functionName?: string | undefined;
}

/** Exports the batch; every promise settles within `timeoutMs` (plus the serializing). Never rejects. */
export async function exportBatch(
  runs: readonly RunTrace[],
  settings: TelemetrySettings,
  timeoutMs: number,
  ctx: BatchContext,
): Promise<ExportOutcome> {
  const resource = defaultResource().merge(
    resourceFromAttributes({
      'service.name': 'mcp-canary',
      'service.version': VERSION,
      'cloud.provider': 'aws',
      'cloud.region': ctx.probeRegion,
      ...(ctx.functionName ? { 'faas.name': ctx.functionName } : {}),
    }),
  );
  const [traces, metrics] = await Promise.all([
    settings.traces && runs.length > 0
      ? sendOtlp(settings.traces, traceBytes(runs, resource), ctx.headers, timeoutMs, ctx)
      : Promise.resolve(undefined),
    settings.metrics && runs.length > 0
      ? metricBytes(runs, resource).then((body) => sendOtlp(settings.metrics!, body, ctx.headers, timeoutMs, ctx))
      : Promise.resolve(undefined),
  ]);
  return { ...(traces ? { traces } : {}), ...(metrics ? { metrics } : {}) };
}

/** The runs' spans as an OTLP ExportTraceServiceRequest. */
export function traceBytes(runs: readonly RunTrace[], resource: Resource): Uint8Array {
  const spans = new InMemorySpanExporter();
  // The ids are the run's, not the SDK's: the trace id the requests carried, and each request span's id
  // the one its traceparent sent. The SDK asks its IdGenerator for them; this one answers from `next`.
  const random = new RandomIdGenerator();
  const next: NextIds = { traceId: '', spanId: undefined };
  const provider = new TracerProvider({
    resource,
    idGenerator: {
      generateTraceId: () => next.traceId || random.generateTraceId(),
      generateSpanId: () => next.spanId ?? random.generateSpanId(),
    },
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const tracer = provider.getTracer('mcp-canary', VERSION, { schemaUrl: SCHEMA_URL });
  // Each run's root is a root: no ambient context (no context manager is registered, on purpose).
  for (const run of runs) context.with(ROOT_CONTEXT, () => recordRun(tracer, next, run));
  return ProtobufTraceSerializer.serializeRequest(spans.getFinishedSpans()) ?? new Uint8Array();
}

/** A reader the batch collects once: delta temporality, as each batch counts only its own runs. */
class OnceReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Run duration buckets, seconds: the budgets runs live in (a run's budget is 10–60 s). */
const DURATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];

/**
 * The verdicts as metrics: `mcp.canary.runs` (a count by target, verdict and failure class) and
 * `mcp.canary.run.duration` (seconds), and the MCP conventions' `mcp.client.operation.duration` per request
 * (seconds, the conventions' bucket boundaries, the client span's attributes but the request id).
 */
export async function metricBytes(runs: readonly RunTrace[], resource: Resource): Promise<Uint8Array> {
  const reader = new OnceReader();
  const provider = new MeterProvider({ resource, readers: [reader] });
  const meter = provider.getMeter('mcp-canary', VERSION, { schemaUrl: SCHEMA_URL });
  const runsCounter = meter.createCounter('mcp.canary.runs', {
    unit: '{run}',
    description: 'Runs of the canary, by verdict and failure class',
  });
  const duration = meter.createHistogram('mcp.canary.run.duration', {
    unit: 's',
    description: 'How long a run took to its verdict',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const operation = meter.createHistogram(MCP_CLIENT_OPERATION_DURATION, {
    unit: 's',
    description:
      'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received',
    advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS_S] },
  });
  for (const { record, requests } of runs) {
    const v = record.verdict;
    const attrs = {
      [Attr.target]: v.target,
      [Attr.verdict]: v.outcome,
      'cloud.region': record.probeRegion,
      ...(v.failure ? { [Attr.failure]: v.failure, 'error.type': v.failure } : {}),
      ...(v.revision ? { 'mcp.protocol.version': v.revision } : {}),
    };
    runsCounter.add(1, attrs);
    duration.record(v.durationMs / 1000, attrs);
    for (const r of requests) {
      if (!r.rpcMethod) continue;
      operation.record((r.endedAt - r.startedAt) / 1000, { ...operationAttributes(r, v.revision, false), [Attr.target]: v.target });
    }
  }
  const { resourceMetrics } = await reader.collect();
  return ProtobufMetricsSerializer.serializeRequest(resourceMetrics) ?? new Uint8Array();
}
