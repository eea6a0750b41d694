/**
 * The requests of one run as they were sent: each one's `traceparent` span id (what the server saw as
 * its parent), its step, when it went out and how it ended. A fetch middleware that sits inside the
 * trace context (judge/context.ts `observe`), so the ids in the exported trace are the ids on the
 * wire. Light on purpose: no OpenTelemetry here, it runs whether or not anything is exported.
 */
import type { FetchMiddleware } from '../../base/common/run-context.ts';

/** What a request was for: a step of the run, or something beside the steps (the 2025 SSE stream, posture). */
export type RequestStep = 'health' | 'discover' | 'initialize' | 'tools/list' | 'tools/call' | 'DELETE' | 'other';

export interface RequestRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly step: RequestStep;
  readonly httpMethod: string;
  /** The JSON-RPC method, when the body was one message. */
  readonly rpcMethod?: string;
  readonly rpcId?: string;
  /** `params.name` of a tools/call: the canary tool (from the config). */
  readonly toolName?: string;
  readonly serverAddress: string;
  readonly serverPort: number;
  /** Wall ms. */
  readonly startedAt: number;
  /** Wall ms: the answer's headers, or the error. */
  readonly endedAt: number;
  readonly status?: number;
  /** The error's name when no answer came (a timeout, a refused connection). */
  readonly error?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const STEP_OF_METHOD: Readonly<Record<string, RequestStep>> = {
  'server/discover': 'discover',
  initialize: 'initialize',
  'notifications/initialized': 'initialize',
  'tools/list': 'tools/list',
  'tools/call': 'tools/call',
};

export class RequestLog {
  readonly records: RequestRecord[] = [];

  /** `healthUrl`: the target's health path, so its GET is told apart from the 2025 SSE stream's. */
  private readonly healthUrl: string | undefined;

  constructor(
    healthUrl?: string,
    private readonly wallNow: () => number = Date.now,
  ) {
    this.healthUrl = healthUrl ? new URL(healthUrl).href : undefined;
  }

  readonly middleware: FetchMiddleware = (next) => async (url, init) => {
    const tp = TRACEPARENT.exec(new Headers(init?.headers).get('traceparent') ?? '');
    if (!tp) return next(url, init);
    const startedAt = this.wallNow();
    const where = new URL(String(url));
    const httpMethod = (init?.method ?? 'GET').toUpperCase();
    const rpc = rpcOf(init?.body);
    const base = {
      traceId: tp[1]!,
      spanId: tp[2]!,
      step: this.stepOf(httpMethod, where.href, rpc?.rpcMethod),
      httpMethod,
      ...rpc,
      serverAddress: where.hostname,
      serverPort: Number(where.port) || (where.protocol === 'https:' ? 443 : 80),
      startedAt,
    };
    try {
      const res = await next(url, init);
      this.records.push({ ...base, endedAt: this.wallNow(), status: res.status });
      return res;
    } catch (e) {
      this.records.push({ ...base, endedAt: this.wallNow(), error: e instanceof Error ? e.name : 'Error' });
      throw e;
    }
  };

  private stepOf(httpMethod: string, url: string, rpcMethod: string | undefined): RequestStep {
    if (rpcMethod) return STEP_OF_METHOD[rpcMethod] ?? 'other';
    if (httpMethod === 'DELETE') return 'DELETE';
    if (httpMethod === 'GET' && this.healthUrl && url === this.healthUrl) return 'health';
    return 'other';
  }
}

/** The JSON-RPC method, id and tool name of a one-message body; nothing else of the body is kept. */
function rpcOf(body: unknown): { rpcMethod: string; rpcId?: string; toolName?: string } | undefined {
  if (typeof body !== 'string') return undefined;
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return undefined;
  const { method, id, params } = msg as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return undefined;
  const toolName = method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
  return {
    rpcMethod: method,
    ...(typeof id === 'string' || typeof id === 'number' ? { rpcId: String(id) } : {}),
    ...(toolName ? { toolName } : {}),
  };
}
