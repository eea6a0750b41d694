/**
 * Flows against real SDK servers of both eras on loopback: tools, resources and prompts in order, values
 * extracted from one step's answer feeding the next, each step's own line and latency, and a failing
 * step named by its place, id and kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startMcpServer, type RunningServer } from '../../../../functions/demo/servers.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import type { TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { target } from '../../../helpers/probe.ts';

const readOnly = { readOnlyHint: true };

function catalogServer(era: 'modern' | 'legacy', over: { resources?: boolean; prompts?: boolean } = {}): Promise<RunningServer> {
  return startMcpServer({
    era,
    tools: [
      {
        name: 'find_order',
        annotations: readOnly,
        outputSchema: z.object({ order: z.object({ id: z.string(), total: z.number() }) }),
        handler: () => ({
          content: [{ type: 'text', text: 'order ord-42 found' }],
          structuredContent: { order: { id: 'ord-42', total: 12.5 } },
        }),
      },
      {
        name: 'order_status',
        annotations: readOnly,
        handler: (args) => ({ content: [{ type: 'text', text: `order ${String(args.id)} is shipped` }] }),
      },
      { name: 'wipe', annotations: { destructiveHint: true }, handler: () => ({ content: [{ type: 'text', text: 'wiped' }] }) },
    ],
    ...(over.resources === false
      ? {}
      : { resources: [{ uri: 'docs://orders/readme', name: 'readme', text: () => 'Orders API: use status=ok to check' }] }),
    ...(over.prompts === false
      ? {}
      : {
          prompts: [{ name: 'summarize', args: ['topic'], text: (a: Record<string, string>) => `Summarize ${a.topic ?? '?'} for on-call` }],
        }),
  });
}

const servers: Record<string, RunningServer> = {};
beforeAll(async () => {
  servers.modern = await catalogServer('modern');
  servers.legacy = await catalogServer('legacy');
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
});

function flowTarget(url: string, flow: TargetInput['flow'], over: Partial<TargetInput> = {}) {
  return target(url, { tool: undefined, flow, ...over });
}

const wholeFlow: TargetInput['flow'] = [
  { id: 'find', kind: 'tools/call', name: 'find_order', extract: { orderId: { path: 'order.id' } }, expectJson: { 'order.total': 12.5 } },
  { id: 'status', kind: 'tools/call', name: 'order_status', arguments: { id: '${steps.find.orderId}' }, expectText: 'shipped' },
  { id: 'docs', kind: 'resources/list', extract: { uri: { path: 'resources.0.uri' } } },
  { id: 'readme', kind: 'resources/read', uri: '${steps.docs.uri}', extract: { word: { regex: 'status=(\\w+)' } } },
  { id: 'prompts', kind: 'prompts/list', expectText: 'summarize' },
  {
    id: 'brief',
    kind: 'prompts/get',
    name: 'summarize',
    arguments: { topic: 'order ${steps.find.orderId} (${steps.readme.word})' },
    expectText: 'ord-42 (ok)',
  },
];

describe.each(['modern', 'legacy'] as const)('a flow on %s', (era) => {
  it('runs every step in order, feeding extracted values forward, one line each with its place and latency', async () => {
    const v = await judge(flowTarget(servers[era]!.url, wholeFlow, { budgetMs: 20_000 }));
    expect(v.outcome, v.detail).toBe('healthy');
    expect(v.detail).toContain('flow of 6 step(s) passed (find, status, docs, readme, prompts, brief)');
    const steps = v.probes.filter((p) => p.step);
    expect(steps.map((p) => [p.step!.index, p.step!.id, p.name])).toEqual([
      [1, 'find', 'tools/call'],
      [2, 'status', 'tools/call'],
      [3, 'docs', 'resources/list'],
      [4, 'readme', 'resources/read'],
      [5, 'prompts', 'prompts/list'],
      [6, 'brief', 'prompts/get'],
    ]);
    for (const p of steps) expect(p.durationMs).toBeGreaterThanOrEqual(0);
    expect(steps[1]!.detail).toContain('order ord-42 is shipped');
    expect(steps[3]!.detail).toContain('docs://orders/readme');
  });

  it('names the failing step by place, id and kind, with what was seen', async () => {
    const flow: TargetInput['flow'] = [
      { id: 'find', kind: 'tools/call', name: 'find_order', extract: { orderId: { path: 'order.id' } } },
      { id: 'status', kind: 'tools/call', name: 'order_status', arguments: { id: '${steps.find.orderId}' }, expectText: 'delivered' },
    ];
    const v = await judge(flowTarget(servers[era]!.url, flow));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(v.detail).toMatch(/^step 2 "status": tools\/call: text contains "delivered", got "order ord-42 is shipped"/);
    expect(v.probes.at(-1)).toMatchObject({ name: 'tools/call', ok: false, step: { index: 2, id: 'status' }, failure: 'assertion' });
  });
});

describe('flow failures', () => {
  it('fails a step whose value path matches nothing, and sends nothing after it', async () => {
    const flow: TargetInput['flow'] = [
      { id: 'find', kind: 'tools/call', name: 'find_order', extract: { orderId: { path: 'order.number' } } },
      { id: 'status', kind: 'tools/call', name: 'order_status', arguments: { id: '${steps.find.orderId}' } },
    ];
    const before = servers.modern!.methods().filter((m) => m === 'tools/call').length;
    const v = await judge(flowTarget(servers.modern!.url, flow));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(v.detail).toBe('step 1 "find": tools/call: extract orderId: the path order.number matches nothing in the answer');
    expect(servers.modern!.methods().filter((m) => m === 'tools/call').length - before).toBe(1);
  });

  it('fails a step fed a value of another type than it needs (an object where a URI must be text)', async () => {
    const flow: TargetInput['flow'] = [
      { id: 'find', kind: 'tools/call', name: 'find_order', extract: { order: { path: 'order' } } },
      { id: 'read', kind: 'resources/read', uri: '${steps.find.order}' },
    ];
    const v = await judge(flowTarget(servers.legacy!.url, flow));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(v.detail).toBe(
      'step 2 "read": resources/read: uri must be a string, and the value given is an object ({"id":"ord-42","total":12.5})',
    );
  });

  it('fails a regex extraction that matches nothing, quoting the text it read', async () => {
    const flow: TargetInput['flow'] = [
      { id: 'readme', kind: 'resources/read', uri: 'docs://orders/readme', extract: { v: { regex: 'version=(\\d+)' } } },
    ];
    const v = await judge(flowTarget(servers.modern!.url, flow));
    expect(v.detail).toBe(
      'step 1 "readme": resources/read: extract v: /version=(\\d+)/ matches nothing in the text "Orders API: use status=ok to check"',
    );
  });

  it('never sends a step whose capability the server does not advertise: capability_missing', async () => {
    const bare = await catalogServer('modern', { resources: false, prompts: false });
    try {
      const flow: TargetInput['flow'] = [
        { id: 'find', kind: 'tools/call', name: 'find_order' },
        { id: 'brief', kind: 'prompts/get', name: 'summarize', arguments: { topic: 'x' } },
      ];
      const v = await judge(flowTarget(bare.url, flow));
      expect(v).toMatchObject({ outcome: 'failed', failure: 'capability_missing' });
      expect(v.detail).toMatch(
        /^step 2 "brief": prompts\/get: not sent — the server does not advertise the prompts capability \(capabilities: tools/,
      );
      expect(bare.methods()).not.toContain('prompts/get');
      expect(bare.methods()).not.toContain('tools/call');
    } finally {
      await bare.close();
    }
  });

  it('refuses a flow tool step that is not read-only, as it refuses the canary tool', async () => {
    const v = await judge(flowTarget(servers.modern!.url, [{ id: 'wipe', kind: 'tools/call', name: 'wipe' }]));
    expect(v).toMatchObject({ outcome: 'inconclusive', failure: 'unsafe_tool' });
    expect(v.detail).toMatch(/^step 1 "wipe": tools\/call: not called — wipe is annotated destructiveHint: true/);
    expect(servers.modern!.methods()).not.toContain('wipe');
  });

  it('fails tools/list when a step names a tool the server does not list', async () => {
    const v = await judge(
      flowTarget(servers.modern!.url, [
        { kind: 'tools/call', name: 'find_order' },
        { kind: 'tools/call', name: 'refund' },
      ]),
    );
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_missing' });
    expect(v.detail).toContain('no tool named "refund"');
  });

  it('runs a resources-only flow on a server without tools, never listing tools', async () => {
    const docs = await startMcpServer({ era: 'legacy', tools: [], resources: [{ uri: 'docs://a', name: 'a', text: () => 'alpha' }] });
    try {
      const v = await judge(flowTarget(docs.url, [{ kind: 'resources/read', uri: 'docs://a', expectText: 'alpha' }]));
      expect(v.outcome, v.detail).toBe('healthy');
      expect(docs.methods()).not.toContain('tools/list');
    } finally {
      await docs.close();
    }
  });
});
