/**
 * The request log's reading of each answer, as the MCP semantic conventions ask of an operation: when its
 * response arrived (not its headers), and how it failed — a JSON-RPC error's code, a tool's `isError`, an
 * event stream that ends without the response. Real answers from a raw HTTP server on 127.0.0.1, read
 * through the log's middleware the way the SDK reads them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RequestLog, type RequestRecord } from '../../../../functions/io/telemetry/requests.ts';
import { startFaultServer, type FaultHandler, type FaultServer } from '../../../helpers/faults.ts';

const open: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const call = (id: number | string, name = 'get_rate') => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

/** Sends `body` through the log's middleware and reads the answer whole, as the SDK does; the log's one record. */
async function sent(
  handler: FaultHandler,
  body = call(7),
  opts: { query?: string; host?: '127.0.0.1' | '::1' } = {},
): Promise<{ record: RequestRecord; text: string | undefined }> {
  const server = await startFaultServer(handler, opts.host ? { host: opts.host } : {});
  open.push(server);
  const log = new RequestLog();
  const fetchFn = log.middleware((url, init) => fetch(url, init));
  const res = await fetchFn(`${server.url}${opts.query ?? ''}`, {
    method: 'POST',
    headers: { traceparent: TRACEPARENT, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  // A body that breaks off fails the read, as it fails the SDK's: the record still says why.
  const text = await res.text().catch(() => undefined);
  expect(log.records).toHaveLength(1);
  return { record: log.records[0]!, text };
}

const json =
  (status: number, msg: unknown): FaultHandler =>
  (_req, res) =>
    void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(msg));

describe('a JSON answer', () => {
  it('that is a tool result with isError: true is a tool_error, and the SDK still reads it byte for byte', async () => {
    const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'upstream 401' }], isError: true } };
    const { record, text } = await sent(json(200, answer));
    expect(record).toMatchObject({ status: 200, toolError: true, rpcMethod: 'tools/call', toolName: 'get_rate', rpcId: '7' });
    expect(record.rpcError).toBeUndefined();
    expect(JSON.parse(text!)).toEqual(answer);
  });

  it('that is a JSON-RPC error keeps its code, on a 200 and on a 4xx alike', async () => {
    const error = (code: number) => ({ jsonrpc: '2.0', id: 7, error: { code, message: 'Unknown tool: get_rate' } });
    expect((await sent(json(200, error(-32602)))).record).toMatchObject({ status: 200, rpcError: '-32602' });
    expect((await sent(json(400, error(-32600)))).record).toMatchObject({ status: 400, rpcError: '-32600' });
  });

  it('whose error code is not an integer is _OTHER, not the server’s text (unbounded values make no metric)', async () => {
    const { record } = await sent(json(200, { jsonrpc: '2.0', id: 7, error: { code: 'E_UPSTREAM_1b2c', message: 'x' } }));
    expect(record.rpcError).toBe('_OTHER');
  });

  it('that is a plain result is no failure', async () => {
    const { record } = await sent(json(200, { jsonrpc: '2.0', id: 7, result: { content: [] } }));
    expect(record).toMatchObject({ status: 200 });
    expect([record.error, record.rpcError, record.toolError]).toEqual([undefined, undefined, undefined]);
  });

  it('that answers another request’s id has not answered this one', async () => {
    const { record } = await sent(json(200, { jsonrpc: '2.0', id: 8, result: { content: [] } }));
    expect(record.error).toBe('wrong_id');
  });
});

describe('an event stream', () => {
  it('ends the operation at the event that answers it, not at the headers or the end of the stream', async () => {
    const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'no' }], isError: true } };
    const { record } = await sent(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n');
      await new Promise((r) => setTimeout(r, 300));
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`);
      res.write(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
      await new Promise((r) => setTimeout(r, 1_500));
      res.end();
    });
    expect(record.toolError).toBe(true);
    // Headers at once, the answer 300 ms later, the stream's end 1.5 s after that (wide apart: a loaded machine is slow).
    expect(record.endedAt - record.startedAt).toBeGreaterThanOrEqual(290);
    expect(record.endedAt - record.startedAt).toBeLessThan(1_500);
  });

  it('that ends without the response is no_answer', async () => {
    const { record } = await sent((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })}\n\n`);
    });
    expect(record.error).toBe('no_answer');
  });

  it('that breaks off before the response is truncated', async () => {
    const { record, text } = await sent((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': started\n\n');
      setTimeout(() => res.destroy(), 50);
    });
    expect(text).toBeUndefined();
    expect(record.error).toBe('truncated');
  });
});

describe('no answer at all', () => {
  it('names the socket error, not "TypeError"', async () => {
    const server = await startFaultServer(() => {});
    const url = server.url;
    await server.close();
    const log = new RequestLog();
    const fetchFn = log.middleware((u, init) => fetch(u, init));
    await expect(fetchFn(url, { method: 'POST', headers: { traceparent: TRACEPARENT }, body: call(1) })).rejects.toThrow();
    expect(log.records[0]!.error).toBe('ECONNREFUSED');
  });

  it('is a timeout when the request’s signal ended it', async () => {
    const { record } = await (async () => {
      const server = await startFaultServer(() => {}); // never answers
      open.push(server);
      const log = new RequestLog();
      const fetchFn = log.middleware((u, init) => fetch(u, init));
      await expect(
        fetchFn(server.url, { method: 'POST', headers: { traceparent: TRACEPARENT }, body: call(1), signal: AbortSignal.timeout(100) }),
      ).rejects.toThrow();
      return { record: log.records[0]! };
    })();
    expect(record.error).toBe('timeout');
  });
});

describe('a notification', () => {
  it('ends at its 202, with nothing to read', async () => {
    const { record } = await sent(
      (_req, res) => void res.writeHead(202).end(),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    expect(record).toMatchObject({ status: 202, rpcMethod: 'notifications/initialized' });
    expect(record.error).toBeUndefined();
  });
});

describe('where the request went', () => {
  it('is url.full shown by its structure (query values masked, no fragment) and server.address without brackets', async () => {
    const ok = json(200, { jsonrpc: '2.0', id: 7, result: { content: [] } });
    const v4 = (await sent(ok, call(7), { query: '?read_only=true&token=tq-55e1&flag#frag' })).record;
    const v6 = (await sent(ok, call(7), { host: '::1', query: '?key=sk-live-0a1b2c3d4e' })).record;
    expect(v4.urlFull).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\?read_only=\*\*\*&token=\*\*\*&flag$/);
    expect(v4.serverAddress).toBe('127.0.0.1');
    expect(v6.urlFull).toMatch(/^http:\/\/\[::1\]:\d+\/mcp\?key=\*\*\*$/);
    expect(v6.serverAddress).toBe('::1');
    expect(JSON.stringify([v4, v6])).not.toMatch(/tq-55e1|sk-live|frag|true/);
  });
});
