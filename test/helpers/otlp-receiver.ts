/**
 * A real OTLP/HTTP receiver on loopback (port 0): it keeps every request (path, headers, raw body) and
 * answers as told — 200 with an empty protobuf response, an HTTP error, or nothing at all (it holds
 * the connection open). Bodies are decoded with the OTLP proto definitions as OpenTelemetry JS ships
 * them generated for protobufjs (`otlp-protobufjs`: @opentelemetry/otlp-transformer 0.205, the last
 * release that carried them), so what is checked is what a collector would parse.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createRequire } from 'node:module';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** When the last byte arrived (ms, Date.now). */
  readonly at: number;
}

export type Answer = { readonly status: number; readonly headers?: Record<string, string> } | 'hang';

export interface OtlpReceiver {
  readonly url: string;
  readonly received: Received[];
  answer: Answer;
  close(): Promise<void>;
}

export async function startOtlpReceiver(answer: Answer = { status: 200 }): Promise<OtlpReceiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const hung: ServerResponse[] = [];
  const receiver = { received, answer } as { received: Received[]; answer: Answer };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const a = receiver.answer;
      if (a === 'hang') return void hung.push(res);
      res.writeHead(a.status, { 'content-type': 'application/x-protobuf', ...a.headers });
      res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/* The generated protobufjs code, typed as far as the tests read it. */
interface AnyValue {
  stringValue?: string;
  intValue?: number | { toNumber(): number };
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
export interface DecodedSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: number | { toString(): string };
  endTimeUnixNano: number | { toString(): string };
  attributes: KeyValue[];
  status?: { code?: number; message?: string };
}
interface ProtoType<T> {
  decode(bytes: Uint8Array): T;
}
const root = createRequire(import.meta.url)('otlp-protobufjs/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: ProtoType<{
              resourceSpans: Array<{ resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: DecodedSpan[] }> }>;
            }>;
          };
        };
        metrics: {
          v1: {
            ExportMetricsServiceRequest: ProtoType<{
              resourceMetrics: Array<{ resource: { attributes: KeyValue[] }; scopeMetrics: Array<{ metrics: DecodedMetric[] }> }>;
            }>;
          };
        };
      };
    };
  };
};
export interface DecodedMetric {
  name: string;
  unit: string;
  sum?: {
    aggregationTemporality: number;
    dataPoints: Array<{ asInt?: number | { toNumber(): number }; asDouble?: number; attributes: KeyValue[] }>;
  };
  histogram?: {
    aggregationTemporality: number;
    dataPoints: Array<{ count: number | { toNumber(): number }; sum?: number; attributes: KeyValue[] }>;
  };
}

// protobufjs leaves absent fields null (its prototype defaults): no parent, no int value.
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : '');
const num = (n: number | { toNumber(): number } | null | undefined) =>
  n === undefined || n === null ? undefined : typeof n === 'number' ? n : n.toNumber();

/** A decoded attribute list as a plain object. */
export function attrs(list: readonly KeyValue[]): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(
    list.map(({ key, value }) => [key, value.stringValue ?? num(value.intValue) ?? value.boolValue ?? value.doubleValue ?? undefined]),
  );
}

export interface PlainSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean | undefined>;
  readonly status: { code: number; message: string };
}

export function decodeTraces(body: Uint8Array): { resource: Record<string, unknown>; spans: PlainSpan[] } {
  const req = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(body);
  const spans = req.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        kind: s.kind,
        attributes: attrs(s.attributes),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
      })),
    ),
  );
  return { resource: attrs(req.resourceSpans[0]?.resource.attributes ?? []), spans };
}

export interface PlainPoint {
  readonly metric: string;
  readonly unit: string;
  readonly temporality: number;
  readonly value: number | undefined;
  readonly count?: number | undefined;
  readonly attributes: Record<string, string | number | boolean | undefined>;
}

export function decodeMetrics(body: Uint8Array): PlainPoint[] {
  const req = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest.decode(body);
  return req.resourceMetrics.flatMap((rm) =>
    rm.scopeMetrics.flatMap((sm) =>
      sm.metrics.flatMap((m): PlainPoint[] => {
        if (m.sum)
          return m.sum.dataPoints.map((p) => ({
            metric: m.name,
            unit: m.unit,
            temporality: m.sum!.aggregationTemporality,
            value: num(p.asInt) ?? p.asDouble,
            attributes: attrs(p.attributes),
          }));
        if (m.histogram)
          return m.histogram.dataPoints.map((p) => ({
            metric: m.name,
            unit: m.unit,
            temporality: m.histogram!.aggregationTemporality,
            value: p.sum,
            count: num(p.count),
            attributes: attrs(p.attributes),
          }));
        return [];
      }),
    ),
  );
}
