/**
 * The floor: a minimal hand-written `fetch` sequence that sends exactly the requests the engine sends
 * for a healthy verdict, and nothing else — no SDK, no schema validation, no wire records. It checks
 * just enough to be sure the work was done (the tool answered), so a broken run cannot look fast.
 *
 * - 2026-07-28: `server/discover` → `tools/list` → `tools/call`.
 * - 2025-11-25 (as `auto` reaches it): `server/discover` (answered 4xx) → `initialize` →
 *   `notifications/initialized` → the GET stream the SDK opens (in parallel, dropped at the end) →
 *   `tools/list` → `tools/call` → `DELETE`.
 *
 * `pool: 'fresh'` opens a new connection pool per run, as the engine does (stale keep-alive
 * protection), so each run pays its TCP connect; `pool: 'shared'` keeps one pool across runs.
 */

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const CLIENT_INFO = { name: 'mcp-canary-floor', version: '0.0.0' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The part of undici's Dispatcher the floor uses. */
interface Pool {
  destroy(): Promise<void>;
}

export interface FloorTool {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

interface RpcAnswer {
  result?: Record<string, unknown> & {
    tools?: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>;
    capabilities?: { tools?: unknown };
    content?: Array<{ text?: string }>;
  };
  error?: { code: number; message: string };
}

/** Node's fetch has no public Agent class; its global dispatcher's class is one (the engine does the same). */
export async function newPool(): Promise<Pool> {
  const key = Symbol.for('undici.globalDispatcher.1');
  const registry = globalThis as unknown as Record<symbol, { constructor: new (opts: object) => Pool } | undefined>;
  if (!registry[key]) await fetch('data:,').then((r) => r.arrayBuffer());
  return new registry[key]!.constructor({});
}

export class Floor {
  private shared: Pool | undefined;

  constructor(private readonly pool: 'fresh' | 'shared') {}

  /** One 2026-07-28 verdict's requests. Returns the tool's text. */
  async modern(url: string, tool: FloorTool): Promise<string> {
    return this.withPool(async (post) => {
      const discover = await post(url, 'server/discover', {}, modernHeaders('server/discover'));
      if (!discover.result?.capabilities?.tools)
        throw new Error(`floor: discover did not advertise tools: ${JSON.stringify(discover).slice(0, 200)}`);
      const listed = await post(url, 'tools/list', {}, modernHeaders('tools/list'));
      checkListed(listed, tool);
      const called = await post(url, 'tools/call', { name: tool.name, arguments: tool.arguments }, modernHeaders('tools/call', tool.name));
      return textOf(called);
    });
  }

  /** One 2025-11-25 verdict's requests, as `auto` reaches them (discover first). Returns the tool's text. */
  async legacy(url: string, tool: FloorTool): Promise<string> {
    return this.withPool(async (post, raw) => {
      const discover = await raw(url, {
        method: 'POST',
        headers: modernHeaders('server/discover'),
        body: rpc('server/discover', { _meta: META }),
      });
      await discover.arrayBuffer();
      if (discover.ok) throw new Error('floor: the 2025-11-25 server answered discover');
      const init = await raw(url, {
        method: 'POST',
        headers: legacyHeaders(null),
        body: rpc('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO }),
      });
      const session = init.headers.get('mcp-session-id');
      const initAnswer = parseAnswer(await init.text(), init.headers.get('content-type'));
      if (!session || !initAnswer.result?.capabilities?.tools)
        throw new Error(`floor: initialize failed: ${JSON.stringify(initAnswer).slice(0, 200)}`);
      const initialized = await raw(url, {
        method: 'POST',
        headers: legacyHeaders(session),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await initialized.arrayBuffer();
      // The SDK opens the server-to-client stream right after `initialized` and does not wait for it. One
      // turn later than tools/list, as the engine does: tools/list takes the open socket, the stream a new one.
      const stream = new AbortController();
      const get = new Promise((resolve) => setImmediate(resolve))
        .then(() =>
          raw(url, {
            method: 'GET',
            headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': LEGACY },
            signal: stream.signal,
          }),
        )
        .then((r) => r.body?.cancel())
        .catch(() => {});
      try {
        const listed = await post(url, 'tools/list', undefined, legacyHeaders(session));
        checkListed(listed, tool);
        const called = await post(url, 'tools/call', { name: tool.name, arguments: tool.arguments }, legacyHeaders(session));
        return textOf(called);
      } finally {
        const ended = await raw(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY } });
        await ended.arrayBuffer();
        stream.abort();
        await get;
      }
    });
  }

  async close(): Promise<void> {
    await this.shared?.destroy();
    this.shared = undefined;
  }

  private async withPool<T>(
    fn: (
      post: (url: string, method: string, params: object | undefined, headers: Record<string, string>) => Promise<RpcAnswer>,
      raw: (url: string, init: RequestInit) => Promise<Response>,
    ) => Promise<T>,
  ): Promise<T> {
    const dispatcher = this.pool === 'shared' ? (this.shared ??= await newPool()) : await newPool();
    const raw = async (url: string, init: RequestInit): Promise<Response> => {
      // Node's fetch frees a socket a tick after its body ended: without this turn of the event loop
      // every second request would open a second connection.
      await new Promise((resolve) => setImmediate(resolve));
      return fetch(url, { ...init, dispatcher } as RequestInit);
    };
    let id = 0;
    const post = async (url: string, method: string, params: object | undefined, headers: Record<string, string>): Promise<RpcAnswer> => {
      const withMeta = headers['mcp-protocol-version'] === MODERN ? { ...params, _meta: META } : params;
      const res = await raw(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, ...(withMeta ? { params: withMeta } : {}) }),
      });
      const answer = parseAnswer(await res.text(), res.headers.get('content-type'));
      if (!res.ok || answer.error) throw new Error(`floor: ${method} answered HTTP ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
      return answer;
    };
    try {
      return await fn(post, raw);
    } finally {
      if (this.pool === 'fresh') await dispatcher.destroy();
    }
  }
}

function rpc(method: string, params: object): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 0, method, params });
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  };
}

function legacyHeaders(session: string | null): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY } : {}),
  };
}

/** A JSON answer, or the first `data:` line of an event stream that carries one. */
function parseAnswer(body: string, contentType: string | null): RpcAnswer {
  if (!(contentType ?? '').includes('text/event-stream')) return JSON.parse(body) as RpcAnswer;
  for (const line of body.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const msg = JSON.parse(line.slice(5)) as RpcAnswer;
    if (msg.result || msg.error) return msg;
  }
  throw new Error('floor: the event stream carried no answer');
}

function checkListed(listed: RpcAnswer, tool: FloorTool): void {
  const found = listed.result?.tools?.find((t) => t.name === tool.name);
  if (found?.annotations?.readOnlyHint !== true) throw new Error(`floor: ${tool.name} is not listed read-only`);
}

function textOf(called: RpcAnswer): string {
  const text = called.result?.content?.[0]?.text;
  if (called.result?.isError || typeof text !== 'string')
    throw new Error(`floor: tools/call failed: ${JSON.stringify(called).slice(0, 200)}`);
  return text;
}
