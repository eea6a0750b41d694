/**
 * A JSON-RPC error inside a non-2xx HTTP answer to tools/call, from a real HTTP server on loopback: the
 * server read the call and answered it, so it is the tool's failure (`tool_error`, with the code, the
 * server's words and the status), as the same error in a 200 is. Statuses that name a cause before the
 * tool ran keep theirs; on other steps the status still decides.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { modernEndpoint, readOnlyRateTool, rpcError, startFaultServer, type FaultServer } from '../../../helpers/faults.ts';
import { target } from '../../../helpers/probe.ts';

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 2026-07-28 endpoint whose tools/call (or `on`) answers `status` with a JSON-RPC error. */
async function answering(status: number, code: number, message: string, on = 'tools/call') {
  const normal = modernEndpoint({ tools: [readOnlyRateTool], call: () => ({ structuredContent: { rate: 1 }, content: [] }) });
  server = await startFaultServer((req, res, rx) =>
    rx.rpcMethod === on ? rpcError(res, status, rx.rpcId, code, message) : normal(req, res, rx),
  );
  return judge(target(server.url, { tool: { name: 'get_rate', arguments: {} } }));
}

describe('a JSON-RPC error in a non-2xx answer to tools/call', () => {
  it.each([400, 409, 422, 500])('is tool_error under HTTP %i, with the code, the words and the status', async (status) => {
    const v = await answering(status, -32603, 'GitLab API error: 401 Unauthorized');
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toContain('the tool answered JSON-RPC error -32603 (internal error): "GitLab API error: 401 Unauthorized"');
    expect(v.detail).toContain(`(in an HTTP ${status} answer)`);
  });

  it('is the same class as that error in a 200', async () => {
    const in200 = await answering(200, -32603, 'fetch failed');
    const in500 = await answering(500, -32603, 'fetch failed');
    expect([in200.failure, in500.failure]).toEqual(['tool_error', 'tool_error']);
  });

  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [429, 'http_status'],
    [502, 'http_status'],
    [503, 'http_status'],
  ])('keeps the class of HTTP %i, which says why the call never reached the tool', async (status, failure) => {
    const v = await answering(status, -32001, 'refused');
    expect(v).toMatchObject({ outcome: 'failed', failure });
  });

  it('leaves other steps to the status: a JSON-RPC error in a 500 to tools/list is http_status', async () => {
    const v = await answering(500, -32603, 'fetch failed', 'tools/list');
    expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status' });
    expect(v.detail).toContain('HTTP 500');
  });
});
