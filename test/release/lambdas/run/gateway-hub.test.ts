/**
 * Issue 29's proof on a real aggregating gateway from npm: mcp-hub (its tools `<server>__<tool>`) in front
 * of three real SDK backends, served as Streamable HTTP by supergateway (mcp-hub's own /mcp is HTTP+SSE
 * only), judged by the scheduled run publishing to moto_server, all in a loopback-only network namespace
 * (test/helpers/products/hub-inside.ts). One backend killed: that backend's verdict fails and its
 * datapoint is 1, the others and the gateway stay healthy. The gateway killed: its verdict fails once and
 * every backend is `inconclusive` / `gateway_down`, published below 1, so no backend alarm can fire. That
 * each backend's alarm reads its own `Target=<gateway>/<backend>` datapoint and pages at 1 is the
 * synthesized alarms' part (test/unit/infra/gateway.test.ts); the hand-written gateway's run is
 * test/integration/lambdas/run/gateway.test.ts.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verdictValue } from '../../../../functions/base/common/run-record.ts';
import type { HubResult, HubState, HubStateRun } from '../../../helpers/products/hub-inside.ts';
import { HUB_RUN_BOUND_MS, runHubInNamespace } from '../../../helpers/products/hub.ts';
import { describeInNamespace } from '../../../helpers/products/namespace.ts';
import { processesIn } from '../../../helpers/products/run.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);
const INCONCLUSIVE = verdictValue({ outcome: 'inconclusive', warnings: [] });
const BACKENDS = ['hub/github', 'hub/docs', 'hub/tickets'];

describe('a real npm gateway (mcp-hub behind supergateway) in front of three SDK backends', () => {
  describeInNamespace('judged by the scheduled run, in a loopback-only namespace', () => {
    let result: HubResult;
    const run = (state: HubState): HubStateRun => {
      const r = result.runs.find((x) => x.state === state);
      if (!r) throw new Error(`no ${state} run:\n${result.hubLog}\n${result.frontLog}`);
      return r;
    };
    const verdicts = (state: HubState) => run(state).summary.verdicts.map((v) => [v.target, v.outcome, v.failure]);

    beforeAll(async () => {
      result = await runHubInNamespace();
    }, HUB_RUN_BOUND_MS + 5_000);
    afterAll(() => {
      if (result) rmSync(result.home, { recursive: true, force: true });
    });

    it('runs offline: off loopback is unreachable, and mcp-hub carried on without its marketplace registry', () => {
      expect(result.offLoopback).toBe('ENETUNREACH');
      expect(result.hubVersion).toBe('4.2.1');
      expect(result.hubStartLog).toContain('Failed to fetch marketplace registry');
      expect(result.hubStartLog).toContain('3/3 servers started successfully');
    });

    it("mcp-hub's own /mcp is HTTP+SSE only: a Streamable HTTP POST is refused (hence the front), and the canary says so", () => {
      expect(result.hubMcpPost).toMatchObject({ status: 404, body: expect.stringContaining('Cannot POST /mcp') });
      // Pointed there, the canary fails it with Express's words and says why, not a bare "Error".
      expect(result.direct).toMatchObject({ outcome: 'failed', failure: 'http_status' });
      expect(result.direct.detail).toMatch(/HTTP 404, text\/html: "Cannot POST \/mcp" — no POST route at this path: .*HTTP\+SSE/);
    });

    it('all up: the gateway and each backend healthy, each call routed to its own backend', () => {
      expect(verdicts('healthy')).toEqual([
        ['hub', 'healthy', null],
        ['hub/github', 'healthy', null],
        ['hub/docs', 'healthy', null],
        ['hub/tickets', 'healthy', null],
      ]);
      expect(run('healthy').backendCalls).toEqual({ github: 1, docs: 1, tickets: 1 });
      expect(run('healthy').records.map((r) => [r.target, r.gateway ?? null, r.revision])).toEqual([
        ['hub', null, '2025-06-18'],
        ['hub/github', 'hub', '2025-06-18'],
        ['hub/docs', 'hub', '2025-06-18'],
        ['hub/tickets', 'hub', '2025-06-18'],
      ]);
      for (const target of ['hub', ...BACKENDS]) expect(run('healthy').published[target], target).toEqual({ runs: 1, worst: 0 });
    });

    it("one backend killed: its verdict fails with the hub's words, its datapoint is 1; the gateway and the others stay healthy", () => {
      expect(verdicts('backend-down')).toEqual([
        ['hub', 'healthy', null],
        ['hub/github', 'healthy', null],
        ['hub/docs', 'failed', 'tool_error'],
        ['hub/tickets', 'healthy', null],
      ]);
      // mcp-hub keeps listing the dead backend's tool and answers its call isError with its fetch's words.
      expect(run('backend-down').records.find((r) => r.target === 'hub/docs')!.detail).toBe(
        'tools/call: docs__get_status answered isError: fetch failed',
      );
      expect(run('backend-down').backendCalls).toEqual({ github: 1, docs: 0, tickets: 1 });
      expect(run('backend-down').published).toEqual({
        hub: { runs: 1, worst: 0 },
        'hub/github': { runs: 1, worst: 0 },
        'hub/docs': { runs: 1, worst: 1 },
        'hub/tickets': { runs: 1, worst: 0 },
      });
    });

    it('mcp-hub killed behind its front: the gateway fails once, every backend inconclusive gateway_down, none published as 1', () => {
      expect(verdicts('hub-down')).toEqual([
        ['hub', 'failed', 'server_error'],
        ...BACKENDS.map((b) => [b, 'inconclusive', 'gateway_down']),
      ]);
      // The front answers the handshake with its SSE client's error: the evidence names what is behind it.
      expect(run('hub-down').records[0]!.detail).toMatch(/JSON-RPC error -32000 .*SSE error: .*ECONNREFUSED/);
      for (const r of run('hub-down').records.slice(1))
        expect(r.detail, r.target).toMatch(/^not judged: the gateway "hub" is down \(server_error: /);
      expectOnePage('hub-down');
    });

    it('the whole gateway gone (nothing listens): the gateway fails unreachable once, every backend gateway_down', () => {
      expect(verdicts('front-down')).toEqual([
        ['hub', 'failed', 'unreachable'],
        ...BACKENDS.map((b) => [b, 'inconclusive', 'gateway_down']),
      ]);
      expectOnePage('front-down');
    });

    it('leaves no process behind', () => {
      expect(processesIn(result.home)).toEqual([]);
    });

    /** Only the gateway's datapoint is 1: the backends' alarms (≥ 1) cannot fire, their heartbeat still counts. */
    function expectOnePage(state: HubState): void {
      const published = run(state).published;
      expect(published.hub).toEqual({ runs: 1, worst: 1 });
      for (const b of BACKENDS) expect(published[b], b).toEqual({ runs: 1, worst: INCONCLUSIVE });
      expect(run(state).backendCalls).toEqual({ github: 0, docs: 0, tickets: 0 });
    }
  });
});
