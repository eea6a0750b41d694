/**
 * Round trips per verdict: each contender runs through a recording proxy; the proxy's request
 * intervals give the sequential chain (see critical-path.ts) and its accepted sockets the connections.
 */
import { criticalPath } from './critical-path.ts';
import type { TracedRequest, Tracer } from './trace.ts';

/** TCP handshake + TLS 1.3 handshake: what a new https connection adds before its first request. */
export const HTTPS_HANDSHAKE_RTT = 2;

export interface RoundTrips {
  readonly contender: string;
  readonly requests: readonly string[];
  readonly connections: number;
  /** Sequential HTTP exchanges (loopback: connects are free). */
  readonly sequentialHttp: number;
  /** The same chain on https: every connection opened on the path adds TCP + TLS. */
  readonly sequentialHttps: number;
  readonly chain: readonly string[];
  /** Did repeated runs disagree? (They should not: the sequence is deterministic.) */
  readonly varied: boolean;
}

function describe(r: TracedRequest): string {
  if (r.rpcMethod) return r.rpcMethod;
  return r.httpMethod === 'GET' ? 'GET stream' : r.httpMethod;
}

/** Runs `run` `times` times through `tracer` (after one untraced warm-up) and reads the first trace. */
export async function traceRoundTrips(
  contender: string,
  tracer: Tracer,
  run: (url: string) => Promise<void>,
  times = 3,
): Promise<RoundTrips> {
  await run(tracer.url);
  tracer.take();
  const results: RoundTrips[] = [];
  for (let i = 0; i < times; i++) {
    await run(tracer.url);
    // Let a dropped stream's close reach the proxy before reading the trace.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { requests, connections } = tracer.take();
    const labelled = requests.map((r) => ({ ...r, label: describe(r) }));
    // The 2025 GET stream runs beside the run and is dropped at its end: nothing waits for it (its
    // connection still counts).
    const awaited = labelled.filter((r) => r.label !== 'GET stream');
    const http = criticalPath(awaited, 0);
    const https = criticalPath(awaited, HTTPS_HANDSHAKE_RTT);
    results.push({
      contender,
      requests: labelled.map((r) => r.label),
      connections,
      sequentialHttp: http.roundTrips,
      sequentialHttps: https.roundTrips,
      chain: http.chain,
      varied: false,
    });
  }
  const first = results[0]!;
  const varied = results.some(
    (r) => r.sequentialHttp !== first.sequentialHttp || r.sequentialHttps !== first.sequentialHttps || r.connections !== first.connections,
  );
  return { ...first, varied };
}
