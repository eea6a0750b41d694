/** In-run retries: only after unreachable, timeout or 5xx, with growing delays, inside the budget. */
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

/** Records the delays asked for instead of waiting them. */
function recordingSleep() {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}

describe('in-run retries', () => {
  it('are off by default: one 503 fails the run (the alarm absorbs blips)', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/call', status: 503, times: 1 },
    });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status', retries: 0 });
    } finally {
      await server.close();
    }
  });

  it('retry a 5xx with doubling delays and record the retries; success after a retry is degraded', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/call', status: 503, times: 2 },
    });
    const { delays, sleep } = recordingSleep();
    try {
      const v = await judge(target(server.url, { retries: 3 }), { sleep });
      expect(v).toMatchObject({ outcome: 'degraded', failure: null, retries: 2 });
      expect(v.detail).toContain('HTTP 503');
      expect(delays).toEqual([500, 1000]);
    } finally {
      await server.close();
    }
  });

  it('give up after the allowed retries with the last failure', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'tools/call', status: 502, times: 10 },
    });
    const { delays, sleep } = recordingSleep();
    try {
      const v = await judge(target(server.url, { retries: 2 }), { sleep });
      expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status', retries: 2 });
      expect(delays).toEqual([500, 1000]);
    } finally {
      await server.close();
    }
  });

  it('never retry auth, tool errors or unsafe tools', async () => {
    const revoked = await startRatesApi();
    revoked.revokeKey();
    const authWall = await startMcpServer({ era: 'modern', tools: [rateTool(api)], requireAuthorization: 'Bearer other' });
    const toolError = await startMcpServer({ era: 'modern', tools: [rateTool(revoked)] });
    const { delays, sleep } = recordingSleep();
    try {
      expect(await judge(target(authWall.url, { retries: 3 }), { sleep })).toMatchObject({ failure: 'auth', retries: 0 });
      expect(await judge(target(toolError.url, { retries: 3 }), { sleep })).toMatchObject({ failure: 'tool_error', retries: 0 });
      expect(delays).toEqual([]);
      expect(authWall.methods()).toEqual(['server/discover']);
    } finally {
      await authWall.close();
      await toolError.close();
      await revoked.close();
    }
  });

  it('stop retrying when another attempt would not fit the budget', async () => {
    const server = await startMcpServer({
      era: 'modern',
      tools: [rateTool(api)],
      inject: { rpcMethod: 'server/discover', status: 500, times: 100 },
    });
    let clock = 0;
    const { delays } = recordingSleep();
    try {
      // A fake clock that jumps 5 s per sleep: with an 8 s budget and 2 s timeouts only one retry fits.
      const v = await judge(target(server.url, { retries: 3, revision: '2026-07-28' }), {
        now: () => clock,
        sleep: async (ms) => {
          delays.push(ms);
          clock += 5_000 + ms;
        },
      });
      expect(v).toMatchObject({ outcome: 'failed', failure: 'http_status', retries: 1 });
      expect(delays).toEqual([500]);
    } finally {
      await server.close();
    }
  });
});
