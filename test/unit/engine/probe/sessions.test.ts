/** "A 404 on a session means start a fresh session, not outage" — and a second loss is session_lost. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi } from '../../../../functions/demo/servers.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { target } from '../../../helpers/probe.ts';

let api: RatesApi;
beforeAll(async () => {
  api = await startRatesApi();
});
afterAll(async () => {
  await api.close();
});

describe('a 2025-11-25 session the server forgets', () => {
  it('recovers from a session forgotten during the handshake with one fresh session: degraded', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], sessions: 'forget-once' });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'degraded', failure: null, revision: '2025-11-25' });
      expect(v.detail).toContain('replicas without shared session');
      expect(server.methods().filter((m) => m === 'initialize')).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('recovers from a 404 on tools/list mid-run and retries the step on the fresh session', async () => {
    const server = await startMcpServer({
      era: 'legacy',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/list', status: 404, times: 1 },
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'degraded', failure: null });
      expect(v.detail).toContain('tools/list: the server forgot the session');
      expect(server.methods()).toEqual([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
        'initialize',
        'notifications/initialized',
        'tools/list',
        'tools/call',
      ]);
      // Both live sessions are ended; the forgotten one is not DELETEd (the server already dropped it).
      const deleted = server.requests.filter((r) => r.httpMethod === 'DELETE').map((r) => r.sessionId);
      const lastSession = server.requests.find((r) => r.rpcMethod === 'tools/call')!.sessionId;
      expect(deleted).toEqual([lastSession]);
    } finally {
      await server.close();
    }
  });

  it('fails with session_lost when the fresh session is forgotten too', async () => {
    const server = await startMcpServer({
      era: 'legacy',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/call', status: 404, times: 2 },
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'session_lost' });
      expect(v.probes.at(-1)).toMatchObject({ name: 'tools/call', ok: false, failure: 'session_lost' });
    } finally {
      await server.close();
    }
  });

  it('treats a 404 on the stateless 2026-07-28 era as http_status, not a lost session', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/list', status: 404, times: 1 },
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status' });
      expect(server.methods().filter((m) => m === 'initialize')).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
