/** A flow's own mistakes are config errors before any run (the CLI's and synth's one line), never a failed run. */
import { describe, expect, it } from 'vitest';
import { CanaryError } from '../../../../functions/base/common/errors.ts';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { flowOf, Target } from '../../../../functions/base/config/schema/target.ts';

const base = { name: 'orders', url: 'https://orders.example/mcp' };

function errorOf(target: Record<string, unknown>): string {
  try {
    parseFleet({ homeRegion: 'eu-west-1', targets: [{ ...base, ...target }] }, 'mcp-canary.config.ts');
  } catch (e) {
    expect(e).toBeInstanceOf(CanaryError);
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

const find = { id: 'find', kind: 'tools/call', name: 'find_order', extract: { orderId: { path: 'order.id' } } };

describe('flow config', () => {
  it('keeps a single tool a one-step flow, and a flow as written with its defaults', () => {
    const single = Target.parse({ ...base, tool: { name: 'get_rate' } });
    expect(flowOf(single)).toEqual([
      { kind: 'tools/call', name: 'get_rate', arguments: {}, expectJson: {}, allowUnsafe: false, task: false, extract: {} },
    ]);
    const flow = Target.parse({ ...base, flow: [find, { kind: 'resources/read', uri: 'docs://${steps.find.orderId}' }] });
    expect(flowOf(flow)).toHaveLength(2);
    expect(flowOf(Target.parse(base))).toEqual([]);
  });

  it.each([
    [
      'a duplicate step id',
      { flow: [find, { id: 'find', kind: 'prompts/list' }] },
      'targets[0].flow[1].id "find" is already the id of step 1: each step\'s id must be unique',
    ],
    [
      'a reference to a step that does not exist',
      { flow: [find, { kind: 'tools/call', name: 'status', arguments: { id: '${steps.lookup.orderId}' } }] },
      'targets[0].flow[1].arguments.id refers to ${steps.lookup.orderId}, but no step has the id "lookup"',
    ],
    [
      'a reference to a later step',
      { flow: [{ kind: 'resources/read', uri: '${steps.find.orderId}' }, find] },
      'targets[0].flow[0].uri refers to ${steps.find.orderId}, but step "find" runs later: a step can use only the values of the steps before it',
    ],
    [
      'a reference to a value no earlier step makes',
      { flow: [find, { kind: 'prompts/get', name: 'brief', arguments: { topic: 'order ${steps.find.total}' } }] },
      'targets[0].flow[1].arguments.topic refers to ${steps.find.total}, but step "find" extracts no value "total" (it extracts orderId): add it to that step\'s extract',
    ],
    [
      'a reference written another way',
      { flow: [find, { kind: 'resources/read', uri: '${find.orderId}' }] },
      'targets[0].flow[1].uri has "${find.orderId}", which is not a reference: write ${steps.<id>.<name>}',
    ],
    [
      'a budget that cannot fit the steps',
      { timeoutMs: 10_000, budgetMs: 25_000, flow: [find, { kind: 'resources/list' }, { kind: 'prompts/list' }] },
      "targets[0].budgetMs (25000) cannot fit the flow's 3 steps at timeoutMs 10000 each (30000 ms): raise budgetMs (--budget-ms) or lower timeoutMs",
    ],
    ['both a tool and a flow', { tool: { name: 'get_rate' }, flow: [find] }, 'targets[0].flow and tool are both given'],
    ['an empty flow', { flow: [] }, 'targets[0].flow is empty: give at least one step'],
    ['a step of an unknown kind', { flow: [{ kind: 'resources/subscribe' }] }, 'targets[0].flow[0].kind'],
    [
      'a regex that does not compile',
      { flow: [{ kind: 'prompts/list', extract: { n: { regex: '(' } } }] },
      'targets[0].flow[0].extract.n.regex is not a regular expression',
    ],
  ])('refuses %s in one line naming the field', (_what, target, message) => {
    const error = errorOf(target);
    expect(error).toContain(message);
    expect(error.split('\n')[0]).toContain(message.split(' ')[0]!);
  });
});
