/** A gateway's backends: their own mistakes are config errors before any run, one line naming the field. */
import { describe, expect, it } from 'vitest';
import { CanaryError } from '../../../../functions/base/common/errors.ts';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { prefixedFlow, prefixOf } from '../../../../functions/base/config/schema/backends.ts';
import { flowOf, Target } from '../../../../functions/base/config/schema/target.ts';

const base = { name: 'gateway', url: 'https://gateway.example/mcp' };

function errorOf(target: Record<string, unknown>): string {
  try {
    parseFleet({ homeRegion: 'eu-west-1', targets: [{ ...base, ...target }] }, 'mcp-canary.config.ts');
  } catch (e) {
    expect(e).toBeInstanceOf(CanaryError);
    return (e as Error).message;
  }
  throw new Error('expected a config error');
}

describe('gateway backends config', () => {
  it('names a backend\'s tools behind its prefix, "<name>___" unless given', () => {
    const t = Target.parse({
      ...base,
      backends: [
        { name: 'github', tool: { name: 'get_me' } },
        {
          name: 'docs',
          prefix: 'docs-',
          flow: [{ kind: 'tools/call', name: 'search', arguments: { q: 'x' } }, { kind: 'resources/list' }],
        },
      ],
    });
    const [github, docs] = t.backends!;
    expect(prefixOf(github!)).toBe('github___');
    expect(prefixedFlow(github!, flowOf).map((s) => s.kind === 'tools/call' && s.name)).toEqual(['github___get_me']);
    expect(prefixedFlow(docs!, flowOf).map((s) => (s.kind === 'tools/call' ? s.name : s.kind))).toEqual(['docs-search', 'resources/list']);
  });

  it.each([
    [
      'a duplicate backend name',
      {
        backends: [
          { name: 'a', tool: { name: 'x' } },
          { name: 'a', tool: { name: 'y' } },
        ],
      },
      'targets[0].backends[1].name "a" is already the name of backend 1: each backend\'s name must be unique',
    ],
    [
      'a backend with neither a tool nor a flow',
      { backends: [{ name: 'a' }] },
      'targets[0].backends[0] ("a") has neither a tool nor a flow',
    ],
    [
      'a backend with both a tool and a flow',
      { backends: [{ name: 'a', tool: { name: 'x' }, flow: [{ kind: 'prompts/list' }] }] },
      'targets[0].backends[0].flow and tool are both given',
    ],
    [
      "a prefix that begins another backend's",
      {
        backends: [
          { name: 'git', prefix: 'git_', tool: { name: 'x' } },
          { name: 'gitlab', prefix: 'git_lab_', tool: { name: 'y' } },
        ],
      },
      'targets[0].backends[0].prefix "git_" begins backend "gitlab"\'s prefix "git_lab_"',
    ],
    [
      'two backends with one prefix',
      {
        backends: [
          { name: 'a', prefix: 'p_', tool: { name: 'x' } },
          { name: 'b', prefix: 'p_', tool: { name: 'y' } },
        ],
      },
      'targets[0].backends[1].prefix "p_" is also backend "a"\'s prefix',
    ],
    [
      "a backend flow's own mistake, placed under the backend",
      { backends: [{ name: 'a', flow: [{ kind: 'tools/call', name: 'x', arguments: { q: '${steps.nope.v}' } }] }] },
      'targets[0].backends[0].flow[0].arguments.q refers to ${steps.nope.v}, but no step has the id "nope"',
    ],
    [
      "a budget that cannot hold the gateway's and its backends' steps",
      {
        timeoutMs: 10_000,
        budgetMs: 30_000,
        tool: { name: 'ping' },
        backends: ['a', 'b', 'c'].map((name) => ({ name, tool: { name: 'x' } })),
      },
      "targets[0].budgetMs (30000) cannot fit the gateway's 4 steps (its own and its backends', in one session) at timeoutMs 10000 each (40000 ms)",
    ],
    ['an empty list', { backends: [] }, 'targets[0].backends is empty'],
    ['an unknown field', { backends: [{ name: 'a', tool: { name: 'x' }, tools: [] }] }, 'targets[0].backends[0]'],
  ])('refuses %s in one line naming the field', (_what, target, message) => {
    const error = errorOf(target);
    expect(error).toContain(message);
    expect(error.split('\n')[0]).toContain(message.split(' ')[0]!);
  });

  it('accepts a gateway whose backends fit the budget', () => {
    expect(() =>
      Target.parse({
        ...base,
        timeoutMs: 2_000,
        budgetMs: 30_000,
        backends: ['a', 'b', 'c'].map((name) => ({ name, tool: { name: 'x' } })),
      }),
    ).not.toThrow();
  });
});
