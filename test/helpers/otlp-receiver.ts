/**
 * A real OTLP/HTTP receiver on loopback (port 0): it keeps every request (path, headers, raw body) and
 * answers as told — 200 with an empty protobuf response, an HTTP error, or nothing at all (it holds
 * the connection open). Bodies are decoded with protobufjs against OTLP's own message definitions
 * (otlp-proto.ts), so what is checked is what a collector would parse.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { otlp } from './otlp-proto.ts';

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

/* The decoded messages, typed as far as the tests read them. */
interface AnyValue {
  stringValue?: string;
  intValue?: string;
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
  parentSpanId?: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  status?: { code?: number; message?: string };
}
/**
 * A request decoded as plain data: absent fields are left out (a oneof's other members too), 64-bit integers
 * are decimal strings (nanosecond times keep every digit), bytes stay bytes.
 */
function decoded<T>(name: string, body: Uint8Array): T {
  const type = otlp.lookupType(name);
  return type.toObject(type.decode(body), { longs: String }) as T;
}
type TraceRequest = {
  resourceSpans: Array<{ resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: DecodedSpan[] }> }>;
};
type MetricsRequest = {
  resourceMetrics: Array<{ resource: { attributes: KeyValue[] }; scopeMetrics: Array<{ metrics: DecodedMetric[] }> }>;
};
export interface DecodedMetric {
  name: string;
  unit: string;
  sum?: {
    aggregationTemporality: number;
    dataPoints: Array<{ asInt?: string; asDouble?: number; attributes: KeyValue[] }>;
  };
  histogram?: {
    aggregationTemporality: number;
    dataPoints: Array<{ count: string; sum?: number; bucketCounts?: string[]; explicitBounds?: number[]; attributes: KeyValue[] }>;
  };
}

// Absent fields are absent (no parent, no int value); 64-bit integers arrive as decimal strings.
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : '');
const num = (n: string | undefined) => (n === undefined ? undefined : Number(n));

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
  const req = decoded<TraceRequest>('ExportTraceServiceRequest', body);
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
  /** A histogram point's bucket boundaries (upper bounds, inclusive) and its counts per bucket (one more than the bounds). */
  readonly explicitBounds?: number[] | undefined;
  readonly bucketCounts?: number[] | undefined;
  readonly attributes: Record<string, string | number | boolean | undefined>;
}

export function decodeMetrics(body: Uint8Array): PlainPoint[] {
  const req = decoded<MetricsRequest>('ExportMetricsServiceRequest', body);
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
            explicitBounds: p.explicitBounds ?? [],
            bucketCounts: (p.bucketCounts ?? []).map(Number),
            attributes: attrs(p.attributes),
          }));
        return [];
      }),
    ),
  );
}
