/**
 * Tool calls that run as tasks (SEP-2663) against a real 2026-07-28 SDK server with a hand-written task
 * front (test/helpers/tasks.ts): each terminal state judged, the deadline cancelled on the server, the
 * poll interval clamped both ways, requestState echoed, and a task nobody declared still a named failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpServer, type RunningServer } from '../../../../functions/demo/servers.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { MIN_POLL_MS } from '../../../../functions/engine/probe/task.ts';
import type { TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { target } from '../../../helpers/probe.ts';
import { taskFront, type TaskScript } from '../../../helpers/tasks.ts';

const done = (text: string, isError = false) => ({ status: 'completed', result: { content: [{ type: 'text', text }], isError } }) as const;

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function taskServer(script: TaskScript, era: 'modern' | 'legacy' = 'modern') {
  const front = taskFront({ export_report: script });
  server = await startMcpServer({
    era,
    tools: [
      {
        name: 'export_report',
        annotations: { readOnlyHint: true },
        handler: () => ({ content: [{ type: 'text', text: 'report ready at once' }] }),
      },
    ],
    intercept: front.intercept,
  });
  return { front, url: server.url };
}

function taskTarget(url: string, over: Partial<TargetInput> = {}) {
  return target(url, { tool: { name: 'export_report', task: true, expectText: 'ready' }, ...over });
}

describe('a tool that runs as a task', () => {
  it('polls a slow task to completion, echoing requestState, and reports the time to its terminal state', async () => {
    const { front, url } = await taskServer({
      pollInterval: 150,
      states: [{ status: 'working' }, { status: 'working' }, done('report ready')],
    });
    const v = await judge(taskTarget(url));
    expect(v.outcome, v.detail).toBe('healthy');
    const call = v.probes.find((p) => p.name === 'tools/call')!;
    expect(call.task).toMatchObject({ taskId: 'task-1', status: 'completed', polls: 3 });
    expect(call.task!.terminalMs).toBeGreaterThanOrEqual(3 * 150);
    expect(front.declared).toEqual([true]);
    expect(front.polls.map((p) => p.requestState)).toEqual(['rs-0', 'rs-1', 'rs-2']);
    expect(front.cancels).toEqual([]);
  });

  it('judges a completed task with isError as tool_error, with the server words', async () => {
    const { url } = await taskServer({ pollInterval: 100, states: [done('upstream said 401 Unauthorized', true)] });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toBe('tools/call: export_report answered isError: upstream said 401 Unauthorized');
  });

  it('judges a completed task against the expectations like any answer', async () => {
    const { url } = await taskServer({ pollInterval: 100, states: [done('queued for tomorrow')] });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(v.detail).toContain('text contains "ready", got "queued for tomorrow"');
  });

  it('judges a failed task as tool_error with the server JSON-RPC error', async () => {
    const { url } = await taskServer({
      pollInterval: 100,
      states: [{ status: 'working' }, { status: 'failed', error: { code: -32603, message: 'exporter crashed' } }],
    });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toMatch(/^tools\/call: task task-1 of export_report failed after \d+ ms: JSON-RPC error -32603 "exporter crashed"$/);
  });

  it('names a task that needs input: the canary answers unattended', async () => {
    const ask = { 'pick-format': { method: 'elicitation/create', params: { message: 'CSV or PDF?' } } };
    const { front, url } = await taskServer({ pollInterval: 100, states: [{ status: 'input_required', inputRequests: ask }] });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toContain('task task-1 of export_report needs input — input_required: elicitation/create (pick-format)');
    expect(v.probes.find((p) => p.name === 'tools/call')!.task).toMatchObject({ status: 'input_required', polls: 1 });
    expect(front.polls).toHaveLength(1);
  });

  it('cancels a task still working at the deadline (seen on the server) and calls it a timeout naming the task', async () => {
    const { front, url } = await taskServer({ pollInterval: 100, states: [{ status: 'working' }] });
    const v = await judge(taskTarget(url, { timeoutMs: 500, budgetMs: 2_500 }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'timeout' });
    expect(v.detail).toMatch(
      /^tools\/call: task task-1 of export_report was still working at the run's deadline, \d+ ms after the call \(\d+ tasks\/get poll\(s\)\); tasks\/cancel sent$/,
    );
    expect(front.cancels).toEqual(['task-1']);
    expect(v.durationMs).toBeLessThan(2_500 + 1_000);
    expect(v.probes.find((p) => p.name === 'tools/call')!.task).toMatchObject({ status: 'working', terminalMs: null });
  });

  it('polls a pollInterval of 0 no faster than the floor', async () => {
    const { front, url } = await taskServer({
      pollInterval: 0,
      states: (_poll, since) => (since > 600 ? done('report ready') : { status: 'working', pollInterval: 0 }),
    });
    const v = await judge(taskTarget(url));
    expect(v.outcome, v.detail).toBe('healthy');
    const gaps = front.polls.slice(1).map((p, i) => p.atMs - front.polls[i]!.atMs);
    expect(gaps.length).toBeGreaterThan(1);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(MIN_POLL_MS - 10);
    expect(front.polls.length).toBeLessThanOrEqual(Math.ceil(700 / MIN_POLL_MS) + 1);
  });

  it('bounds an hour-long pollInterval by the budget: one last poll before the deadline', async () => {
    const { front, url } = await taskServer({ pollInterval: 3_600_000, states: [done('report ready')] });
    const v = await judge(taskTarget(url, { timeoutMs: 500, budgetMs: 2_000 }));
    expect(v.outcome, v.detail).toBe('healthy');
    expect(front.polls).toHaveLength(1);
    expect(v.durationMs).toBeLessThan(2_000);
  });

  it('stops at the first state it cannot wait past when a task flips between states', async () => {
    const flip = (poll: number) =>
      poll % 2 === 0
        ? ({ status: 'working', pollInterval: 100 } as const)
        : ({ status: 'input_required', inputRequests: { again: { method: 'sampling/createMessage' } } } as const);
    const { front, url } = await taskServer({ pollInterval: 100, states: flip });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toContain('input_required: sampling/createMessage (again)');
    expect(front.polls).toHaveLength(2);
  });

  it('calls a poll that answers another task protocol', async () => {
    const { url } = await taskServer({ pollInterval: 100, states: [{ status: 'working', taskId: 'someone-else' }] });
    const v = await judge(taskTarget(url));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'protocol' });
    expect(v.detail).toContain('tasks/get for task task-1 answered task someone-else');
  });

  it('keeps a task the target did not declare a named failure, and declares nothing', async () => {
    const { front, url } = await taskServer({ pollInterval: 100, evenUndeclared: true, states: [done('report ready')] });
    const v = await judge(target(url, { tool: { name: 'export_report' } }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
    expect(v.detail).toContain('resultType "task"');
    expect(front.declared).toEqual([false]);
    expect(front.polls).toEqual([]);
  });

  it('runs a declared task tool as a plain call on 2025-11-25, where the extension is not spoken', async () => {
    const { front, url } = await taskServer({ pollInterval: 100, states: [done('report ready')] }, 'legacy');
    const v = await judge(taskTarget(url));
    expect(v.outcome, v.detail).toBe('healthy');
    expect(v.probes.find((p) => p.name === 'tools/call')!.task).toBeUndefined();
    expect(front.polls).toEqual([]);
  });

  it('runs a task step inside a flow, its line carrying the task', async () => {
    const { url } = await taskServer({ pollInterval: 100, states: [{ status: 'working' }, done('report ready')] });
    const v = await judge(
      target(url, {
        tool: undefined,
        flow: [{ id: 'export', kind: 'tools/call', name: 'export_report', task: true, expectText: 'ready' }],
      }),
    );
    expect(v.outcome, v.detail).toBe('healthy');
    expect(v.probes.at(-1)).toMatchObject({ step: { index: 1, id: 'export' }, task: { status: 'completed', polls: 2 } });
  });
});
