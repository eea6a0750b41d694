/**
 * The hostile-endpoint matrix (flows and tasks): a step whose answer lacks the value a later step needs,
 * a step that answers another type, a task that flips between states, a pollInterval of 0 or an hour, a
 * task that never ends or ends in a state SEP-2663 does not define. Hand-written 2026-07-28 endpoints on
 * 127.0.0.1; every row within the run budget + 10 % (harness.ts). The rows are in README.md too.
 */
import { describe, expect, it } from 'vitest';
import { modernEndpoint, readOnlyRateTool, rpcError, rpcResult, type FaultHandler } from '../../../../helpers/faults.ts';
import { BUDGET_MS, expectVerdict, judgeFault } from '../../../../helpers/hostile/harness.ts';

const task = (status: string, extra: Record<string, unknown> = {}) => ({
  taskId: 't-1',
  status,
  createdAt: '2026-12-05T08:00:00Z',
  lastUpdatedAt: '2026-12-05T08:00:00Z',
  ttl: 60,
  ...extra,
});

/** A task tool: tools/call answers a task; tasks/get answers `poll(n)`; tasks/cancel is acknowledged. */
function taskEndpoint(seed: Record<string, unknown>, poll: (n: number) => Record<string, unknown>): FaultHandler {
  let polls = 0;
  return modernEndpoint({
    tools: [readOnlyRateTool],
    call: () => ({ ...seed, resultType: 'task' }),
    onOther: (_req, res, rx) => {
      if (rx.rpcMethod === 'tasks/get') return rpcResult(res, rx.rpcId, { resultType: 'complete', ...poll(polls++) });
      if (rx.rpcMethod === 'tasks/cancel') return rpcResult(res, rx.rpcId, { resultType: 'complete' });
      res.writeHead(400).end();
    },
  });
}
const asTask = { tool: { name: 'get_rate', task: true } };

describe('flows', () => {
  const rate: FaultHandler = modernEndpoint({
    tools: [readOnlyRateTool],
    call: () => ({ content: [{ type: 'text', text: 'rate 1.08' }], structuredContent: { rate: 1.08 } }),
  });

  it('a step whose answer lacks the value a later step needs → failed/assertion at that step, nothing after it sent', async () => {
    const flow = [
      { id: 'a', kind: 'tools/call' as const, name: 'get_rate', extract: { pair: { path: 'quote.pair' } } },
      { id: 'b', kind: 'tools/call' as const, name: 'get_rate', arguments: { pair: '${steps.a.pair}' } },
    ];
    const { v, received } = await judgeFault(rate, { tool: undefined, flow });
    expectVerdict(v, 'failed', 'assertion', /^step 1 "a": tools\/call: extract pair: the path quote\.pair matches nothing in the answer$/);
    expect(received.filter((m) => m === 'tools/call')).toHaveLength(1);
  });

  it('a step that answers another type than the next needs (a number inside a path, an object inside text) → failed/assertion naming the type', async () => {
    const flow = [
      { id: 'a', kind: 'tools/call' as const, name: 'get_rate', extract: { all: { path: 'rate' }, whole: { regex: '(rate)' } } },
      { id: 'b', kind: 'tools/call' as const, name: 'get_rate', arguments: { note: 'at ${steps.a.all}', again: '${steps.a.whole}' } },
    ];
    const ok = await judgeFault(rate, { tool: undefined, flow });
    expectVerdict(ok.v, 'healthy', null);
    const objects: FaultHandler = modernEndpoint({
      tools: [readOnlyRateTool],
      call: () => ({ content: [], structuredContent: { rate: 1.08, quote: { pair: 'EURUSD' } } }),
    });
    const bad = [
      { id: 'a', kind: 'tools/call' as const, name: 'get_rate', extract: { quote: { path: 'quote' } } },
      { id: 'b', kind: 'tools/call' as const, name: 'get_rate', arguments: { note: 'pair ${steps.a.quote}' } },
    ];
    const { v } = await judgeFault(objects, { tool: undefined, flow: bad });
    expectVerdict(
      v,
      'failed',
      'assertion',
      /^step 2 "b": tools\/call: arguments: \$\{steps\.a\.quote\} is an object \(\{"pair":"EURUSD"\}\), which cannot be part of the text "pair \$\{steps\.a\.quote\}"$/,
    );
  });
});

describe('the budget over a flow', () => {
  it('a flow whose later step never answers → failed/timeout naming that step, within the run budget', async () => {
    let calls = 0;
    const hangsSecond: FaultHandler = modernEndpoint({
      tools: [readOnlyRateTool],
      call: () => ({ content: [{ type: 'text', text: 'rate 1.08' }], structuredContent: { rate: 1.08 } }),
    });
    const flow = [
      { id: 'a', kind: 'tools/call' as const, name: 'get_rate' },
      { id: 'b', kind: 'tools/call' as const, name: 'get_rate' },
      { id: 'c', kind: 'tools/call' as const, name: 'get_rate' },
    ];
    const { v, received } = await judgeFault(
      (req, res, rx) => (rx.rpcMethod === 'tools/call' && ++calls === 2 ? undefined : hangsSecond(req, res, rx)),
      { tool: undefined, flow },
    );
    expectVerdict(v, 'failed', 'timeout', /^step 2 "b": tools\/call: /);
    expect(received.filter((m) => m === 'tools/call')).toHaveLength(2);
  });
});

describe('tasks', () => {
  it('a task that flips between working and input_required → failed/tool_error at the first input_required', async () => {
    const flip = (n: number) =>
      n % 2 === 0 ? task('input_required', { inputRequests: { k: { method: 'elicitation/create' } } }) : task('working');
    const { v } = await judgeFault(taskEndpoint(task('working', { pollInterval: 100 }), flip), asTask);
    expectVerdict(v, 'failed', 'tool_error', /needs input — input_required: elicitation\/create \(k\)/);
  });

  it('a pollInterval of 0 on a task that never ends → failed/timeout, polled no faster than the floor, cancelled', async () => {
    const { v, received } = await judgeFault(
      taskEndpoint(task('working', { pollInterval: 0 }), () => task('working', { pollInterval: 0 })),
      asTask,
    );
    expectVerdict(v, 'failed', 'timeout', /task t-1 of get_rate was still working at the run's deadline/);
    expect(received.filter((m) => m === 'tasks/get').length).toBeLessThanOrEqual(BUDGET_MS / 100);
    expect(received.at(-1)).toBe('tasks/cancel');
  });

  it('a pollInterval of an hour → one last poll before the deadline, then tasks/cancel: failed/timeout within the budget', async () => {
    const { v, received } = await judgeFault(
      taskEndpoint(task('working', { pollInterval: 3_600_000 }), () => task('working')),
      asTask,
    );
    expectVerdict(v, 'failed', 'timeout', /\(1 tasks\/get poll\(s\)\); tasks\/cancel sent$/);
    expect(received.filter((m) => m === 'tasks/get')).toHaveLength(1);
    expect(received).toContain('tasks/cancel');
  });

  it('each poll and the cancel carry Mcp-Name: <taskId> and the latest requestState (SEP-2663 routing)', async () => {
    const seen: { method: string | null; name: unknown; state: unknown }[] = [];
    const inner = taskEndpoint(task('working', { pollInterval: 100, requestState: 's0' }), (n) =>
      task('working', { pollInterval: 100, requestState: `s${n + 1}` }),
    );
    const { v } = await judgeFault(
      (req, res, rx) => {
        if (rx.rpcMethod?.startsWith('tasks/'))
          seen.push({
            method: rx.rpcMethod,
            name: rx.headers['mcp-name'],
            state: (JSON.parse(rx.body) as { params: { requestState?: string } }).params.requestState,
          });
        return inner(req, res, rx);
      },
      { ...asTask, timeoutMs: 300, budgetMs: 1_500 },
    );
    expectVerdict(v, 'failed', 'timeout');
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((s) => s.name === 't-1')).toBe(true);
    expect(seen.map((s) => s.state)).toEqual(seen.map((_s, i) => `s${i}`));
    expect(seen.at(-1)!.method).toBe('tasks/cancel');
  });

  it('a task in a status SEP-2663 does not define → failed/protocol, named', async () => {
    const { v } = await judgeFault(
      taskEndpoint(task('working', { pollInterval: 100 }), () => task('paused')),
      asTask,
    );
    expectVerdict(v, 'failed', 'protocol', /task t-1 has status "paused", which SEP-2663 does not define/);
  });

  it('a poll answered with a JSON-RPC error → failed/tool_error naming the poll and the server words', async () => {
    const unknown: FaultHandler = modernEndpoint({
      tools: [readOnlyRateTool],
      call: () => ({ ...task('working', { pollInterval: 100 }), resultType: 'task' }),
      onOther: (_req, res, rx) => rpcError(res, 200, rx.rpcId, -32602, 'unknown task t-1'),
    });
    const { v } = await judgeFault(unknown, asTask);
    expectVerdict(v, 'failed', 'tool_error', /tasks\/get for task t-1 of get_rate answered JSON-RPC error -32602 "unknown task t-1"/);
  });

  it('a task answer without a task → failed/protocol, not "cannot consume"', async () => {
    const { v } = await judgeFault(
      taskEndpoint({ status: 'working' }, () => task('working')),
      asTask,
    );
    expectVerdict(v, 'failed', 'protocol', /answered resultType "task" without a task \(no taskId or status\)/);
  });

  it('a task that completes without a tool result → failed/protocol', async () => {
    const { v } = await judgeFault(
      taskEndpoint(task('working', { pollInterval: 100 }), () => task('completed', { result: { text: 'done' } })),
      asTask,
    );
    expectVerdict(v, 'failed', 'protocol', /task t-1 completed without a tool result/);
  });
});
