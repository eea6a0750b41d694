/**
 * A gateway's backends judged one by one, through a real aggregating gateway (test/helpers/gateway.ts)
 * in front of real SDK servers of both eras: one session and one tools/list per run, a verdict per
 * backend, a dead backend failing alone, a dead gateway failing once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpServer, type Era, type RunningServer, type ToolSpec } from '../../../../functions/demo/servers.ts';
import type { Verdict } from '../../../../functions/base/common/verdict.ts';
import { judgeAll } from '../../../../functions/engine/judge/judge.ts';
import { Target, type TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { fingerprintCatalog } from '../../../../functions/engine/catalog/fingerprint.ts';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { startGateway } from '../../../helpers/gateway.ts';

async function listTools(url: string): Promise<Tool[]> {
  const c = new Client({ name: 'test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await c.listTools()).tools;
  } finally {
    await c.close();
  }
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close().catch(() => {})));
});

function statusTool(backend: string): ToolSpec {
  return {
    name: 'get_status',
    annotations: { readOnlyHint: true },
    handler: () => ({ content: [{ type: 'text', text: `${backend} ok` }], structuredContent: { backend, ok: true } }),
  };
}

async function backend(name: string, era: Era): Promise<RunningServer> {
  const s = await startMcpServer({ era, name, tools: [statusTool(name), { ...statusTool(name), name: 'search' }] });
  running.push(s);
  return s;
}

/** A gateway in front of github (2026-07-28), docs (2025-11-25) and tickets (both). */
async function fleet(): Promise<{ gateway: RunningServer; backends: Record<string, RunningServer> }> {
  const backends = {
    github: await backend('github', 'modern'),
    docs: await backend('docs', 'legacy'),
    tickets: await backend('tickets', 'dual'),
  };
  const gateway = await startGateway(Object.entries(backends).map(([name, s]) => ({ name, url: s.url })));
  running.push(gateway);
  return { gateway, backends };
}

function gatewayTarget(url: string, over: Partial<TargetInput> = {}): Target {
  return Target.parse({
    name: 'gw',
    url,
    timeoutMs: 2_000,
    budgetMs: 20_000,
    backends: [
      { name: 'github', tool: { name: 'get_status', expectJson: { backend: 'github' } } },
      { name: 'docs', tool: { name: 'get_status', expectText: 'docs ok' } },
      {
        name: 'tickets',
        flow: [
          { id: 'status', kind: 'tools/call', name: 'get_status' },
          { id: 'find', kind: 'tools/call', name: 'search' },
        ],
      },
    ],
    ...over,
  });
}

const byName = (vs: readonly Verdict[]): Record<string, Verdict> => Object.fromEntries(vs.map((v) => [v.target, v]));

describe('a gateway and its backends', () => {
  it('judges every backend on one session and one tools/list, each with a verdict of its own', async () => {
    const { gateway } = await fleet();
    const vs = await judgeAll(gatewayTarget(gateway.url));
    expect(vs.map((v) => [v.target, v.outcome, v.failure])).toEqual([
      ['gw', 'healthy', null],
      ['gw/github', 'healthy', null],
      ['gw/docs', 'healthy', null],
      ['gw/tickets', 'healthy', null],
    ]);
    expect(vs.slice(1).every((v) => v.gateway === 'gw' && v.traceId === vs[0]!.traceId)).toBe(true);
    const methods = gateway.methods();
    expect(methods.filter((m) => m === 'tools/list')).toHaveLength(1);
    expect(methods.filter((m) => m === 'initialize' || m === 'server/discover').length).toBeLessThanOrEqual(2);
    expect(methods.filter((m) => m === 'tools/call')).toHaveLength(4);
    // The backend's own probe lines, its calls named as the gateway names them.
    expect(byName(vs)['gw/tickets']!.probes.map((p) => p.name)).toEqual(['tools/call', 'tools/call']);
    expect(byName(vs)['gw/github']!.detail).toContain('github___get_status');
  });

  it('fails only the backend that is down; the gateway and the other backends stay healthy', async () => {
    const { gateway, backends } = await fleet();
    await backends.docs!.close();
    const v = byName(await judgeAll(gatewayTarget(gateway.url)));
    expect(v['gw']).toMatchObject({ outcome: 'healthy', failure: null });
    expect(v['gw/docs']).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v['gw/docs']!.detail).toContain('docs___get_status');
    expect(v['gw/github']).toMatchObject({ outcome: 'healthy' });
    expect(v['gw/tickets']).toMatchObject({ outcome: 'healthy' });
  });

  it('fails the gateway once when it is down, and judges no backend: each inconclusive, gateway_down, naming the gateway', async () => {
    const { gateway } = await fleet();
    await gateway.close();
    const vs = await judgeAll(gatewayTarget(gateway.url));
    expect(vs.filter((v) => v.outcome === 'failed').map((v) => v.target)).toEqual(['gw']);
    expect(vs[0]).toMatchObject({ failure: 'unreachable' });
    for (const b of vs.slice(1)) {
      expect(b).toMatchObject({ outcome: 'inconclusive', failure: 'gateway_down', gateway: 'gw', probes: [] });
      expect(b.detail).toContain('not judged: the gateway "gw" is down (unreachable');
    }
  });

  it('fails a backend whose tools the gateway no longer lists as tool_missing, for that backend only', async () => {
    const { gateway } = await fleet();
    const t = gatewayTarget(gateway.url, {
      backends: [
        { name: 'github', tool: { name: 'get_status' } },
        { name: 'wiki', tool: { name: 'get_page' } },
      ],
    });
    const v = byName(await judgeAll(t));
    expect(v['gw/wiki']).toMatchObject({ outcome: 'failed', failure: 'tool_missing' });
    expect(v['gw/wiki']!.detail).toContain('no tool named "wiki___get_page"');
    expect(v['gw/github']).toMatchObject({ outcome: 'healthy' });
    expect(v['gw']).toMatchObject({ outcome: 'healthy' });
  });

  it('fails a backend whose answer breaks its assertion without touching the others', async () => {
    const { gateway } = await fleet();
    const t = gatewayTarget(gateway.url, {
      backends: [
        { name: 'github', tool: { name: 'get_status', expectJson: { backend: 'gitlab' } } },
        { name: 'docs', tool: { name: 'get_status' } },
      ],
    });
    const v = byName(await judgeAll(t));
    expect(v['gw/github']).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(v['gw/docs']).toMatchObject({ outcome: 'healthy' });
  });

  it('times out a backend whose call hangs at the gateway, and still judges the backends after it within the budget', async () => {
    const hang = await startMcpServer({
      era: 'dual',
      name: 'slow',
      tools: [{ name: 'get_status', annotations: { readOnlyHint: true }, handler: () => new Promise(() => {}) }],
    });
    running.push(hang);
    const ok = await backend('github', 'modern');
    const gateway = await startGateway([
      { name: 'slow', url: hang.url },
      { name: 'github', url: ok.url },
    ]);
    running.push(gateway);
    const t = gatewayTarget(gateway.url, {
      timeoutMs: 500,
      budgetMs: 5_000,
      backends: [
        { name: 'slow', tool: { name: 'get_status' } },
        { name: 'github', tool: { name: 'get_status' } },
      ],
    });
    const v = byName(await judgeAll(t));
    expect(v['gw/slow']).toMatchObject({ outcome: 'failed', failure: 'timeout' });
    expect(v['gw/github']).toMatchObject({ outcome: 'healthy' });
    expect(v['gw']).toMatchObject({ outcome: 'healthy' });
    expect(v['gw/slow']!.durationMs).toBeLessThan(5_000);
  });

  it('warns of catalog drift per backend, against its own tools with the prefix taken off', async () => {
    const { gateway } = await fleet();
    // Recorded as the gateway lists github's tools, the prefix taken off, plus one tool it no longer has.
    const listed = await listTools(gateway.url);
    const github = listed.filter((x) => x.name.startsWith('github___')).map((x) => ({ ...x, name: x.name.slice('github___'.length) }));
    const recorded = fingerprintCatalog(github);
    expect(Object.keys(recorded).sort()).toEqual(['get_status', 'search']);
    const t = gatewayTarget(gateway.url, {
      backends: [
        { name: 'github', tool: { name: 'get_status' }, catalog: { ...recorded, create_issue: recorded.search! } },
        { name: 'docs', tool: { name: 'get_status' } },
      ],
    });
    const v = byName(await judgeAll(t));
    const drift = v['gw/github']!.warnings.filter((w) => w.kind === 'catalog_drift');
    expect(drift).toHaveLength(1);
    expect(drift[0]!.detail).toContain('create_issue');
    expect(drift[0]!.detail).not.toContain('github___');
    expect(v['gw/docs']!.warnings).toEqual([]);
    expect(v['gw']!.warnings).toEqual([]);
  });

  it('refuses an unannotated backend tool as unsafe_tool for that backend, never calling it', async () => {
    const b = await startMcpServer({
      era: 'dual',
      name: 'ops',
      tools: [{ name: 'restart', handler: () => ({ content: [{ type: 'text', text: 'restarted' }] }) }],
    });
    running.push(b);
    const gateway = await startGateway([{ name: 'ops', url: b.url }]);
    running.push(gateway);
    const v = byName(await judgeAll(gatewayTarget(gateway.url, { backends: [{ name: 'ops', tool: { name: 'restart' } }] })));
    expect(v['gw/ops']).toMatchObject({ outcome: 'inconclusive', failure: 'unsafe_tool' });
    expect(b.methods()).not.toContain('tools/call');
  });
});
