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

describe('2026-07-28 server', () => {
  it('is judged healthy through server/discover, statelessly, with no initialize, ping or setLevel', async () => {
    // Prepare
    const server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
    try {
      // Act
      const v = await judge(target(server.url, { tool: { name: 'get_rate', expectJson: { rate: 1.08 } } }));
      // Assess
      expect(v).toMatchObject({ outcome: 'healthy', failure: null, revision: '2026-07-28', server: { name: 'rates', version: '1.4.2' } });
      expect(v.probes.map((p) => p.name)).toEqual(['discover', 'tools/list', 'tools/call']);
      expect(server.methods()).toEqual(['server/discover', 'tools/list', 'tools/call']);
      expect(server.requests.every((r) => r.sessionId === null && r.protocolVersion === '2026-07-28')).toBe(true);
      expect(server.requests.every((r) => r.authorization === 'Bearer sk-live-7f3a9c2e5b1d')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('2025-11-25 server', () => {
  it('sends exactly one initialize, works on that session and DELETEs it at the end', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'healthy', revision: '2025-11-25', server: { name: 'rates' } });
      expect(v.probes[0]).toMatchObject({ name: 'initialize', ok: true });
      expect(v.probes[0]!.detail).toContain('discover answered HTTP 400');
      expect(server.methods().filter((m) => m === 'initialize')).toHaveLength(1);
      expect(server.methods()).not.toContain('ping');
      expect(server.methods()).not.toContain('logging/setLevel');
      const sessionId = server.requests.find((r) => r.rpcMethod === 'tools/call')!.sessionId;
      expect(sessionId).toBeTruthy();
      expect(server.requests.at(-1)).toMatchObject({ httpMethod: 'DELETE', sessionId });
    } finally {
      await server.close();
    }
  });

  it('still DELETEs the session when the tool fails', async () => {
    const revoked = await startRatesApi();
    revoked.revokeKey();
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(revoked)] });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
      expect(server.requests.filter((r) => r.httpMethod === 'DELETE')).toHaveLength(1);
    } finally {
      await server.close();
      await revoked.close();
    }
  });

  it('falls back to 2025-11-25 when discover answers 500, and judges by the session', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)], discoverStatus: 500 });
    try {
      const v = await judge(target(server.url));
      expect(v).toMatchObject({ outcome: 'healthy', revision: '2025-11-25' });
      expect(v.probes[0]!.detail).toContain('HTTP 500');
      expect(server.methods().slice(0, 2)).toEqual(['server/discover', 'initialize']);
    } finally {
      await server.close();
    }
  });
});

describe('era classification', () => {
  it('never flaps: a dual-era server is 2026-07-28 on every run', async () => {
    const server = await startMcpServer({ era: 'dual', tools: [rateTool(api)] });
    try {
      const revisions = [];
      for (let i = 0; i < 5; i++) revisions.push((await judge(target(server.url))).revision);
      expect(revisions).toEqual(Array(5).fill('2026-07-28'));
      expect(server.methods()).not.toContain('initialize');
    } finally {
      await server.close();
    }
  });

  it('pinned 2026-07-28 against a 2025-only server is a revision failure, with no fallback', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { revision: '2026-07-28' }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'revision', revision: null });
      expect(server.methods()).toEqual(['server/discover']);
    } finally {
      await server.close();
    }
  });

  it('pinned 2025-11-25 against a 2026-only server is a revision failure', async () => {
    const server = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { revision: '2025-11-25' }));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'revision' });
      expect(server.methods()).toEqual(['initialize']);
    } finally {
      await server.close();
    }
  });

  it('pinned 2025-11-25 against a 2025 server skips discover', async () => {
    const server = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
    try {
      const v = await judge(target(server.url, { revision: '2025-11-25' }));
      expect(v).toMatchObject({ outcome: 'healthy', revision: '2025-11-25' });
      expect(server.methods()[0]).toBe('initialize');
      expect(server.methods()).not.toContain('server/discover');
    } finally {
      await server.close();
    }
  });
});
