/**
 * What `mcp-canary init` proposes, as pure rules: which listed tools may be called and in what order
 * (candidates.ts), the arguments a schema fills, and what of the real answers is recorded as the
 * expectation (expectation.ts). The CLI tests run the same against real servers.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { bestToAsk, fillArguments, rankCandidates } from '../../../../functions/engine/judge/candidates.ts';
import { expectationFrom } from '../../../../functions/engine/judge/expectation.ts';
import { checkAnswer } from '../../../../functions/engine/probe/expect.ts';

const tool = (name: string, extra: Partial<Tool> = {}): Tool =>
  ({ name, inputSchema: { type: 'object', properties: {} }, ...extra }) as Tool;
const readOnly = { annotations: { readOnlyHint: true } };
const never = (): boolean => false;

describe('init: the tools ranked as canaries', () => {
  it('puts read-only tools first, then those it must ask about, and a destructive one last and never callable', () => {
    const ranked = rankCandidates([
      tool('wipe', { annotations: { destructiveHint: true } }),
      tool('create_note'),
      tool('get_status', readOnly),
      tool('both', { annotations: { readOnlyHint: true, destructiveHint: true } }),
    ]);
    expect(ranked.map((c) => [c.name, c.gate])).toEqual([
      ['get_status', 'read-only'],
      ['create_note', 'ask'],
      ['both', 'never'],
      ['wipe', 'never'],
    ]);
    expect(bestToAsk(ranked.filter((c) => c.gate === 'never'))).toBeNull();
  });

  it('ranks a tool with no required arguments before one whose arguments come from its schema', () => {
    const needsPair = tool('get_rate', {
      ...readOnly,
      inputSchema: { type: 'object', properties: { pair: { type: 'string', enum: ['EURUSD', 'GBPUSD'] } }, required: ['pair'] },
    });
    const ranked = rankCandidates([needsPair, tool('version', readOnly)]);
    expect(ranked.map((c) => c.name)).toEqual(['version', 'get_rate']);
    expect(ranked[1]!.arguments).toEqual({ pair: 'EURUSD' });
  });

  it('never proposes a read-only tool whose required argument has no default, example or enum', () => {
    const search = tool('search', { ...readOnly, inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
    const ranked = rankCandidates([search]);
    expect(ranked[0]).toMatchObject({ arguments: null, unfilled: ['q'] });
    expect(ranked[0]!.why).toContain('needs q');
  });

  it('asks about a name listed twice unless every listing is read-only, as the call step does', () => {
    expect(rankCandidates([tool('dup', readOnly), tool('dup')])[0]!.gate).toBe('ask');
    expect(rankCandidates([tool('dup', readOnly), tool('dup', readOnly)])[0]!.gate).toBe('read-only');
  });

  it('fills required arguments from default, examples, const and enum, nested objects too', () => {
    const filled = fillArguments({
      type: 'object',
      properties: {
        a: { type: 'string', default: 'd' },
        b: { type: 'number', examples: [7, 8] },
        c: { const: 'k' },
        d: { type: 'object', properties: { e: { enum: ['x', 'y'] }, f: { type: 'string' } }, required: ['e'] },
        optional: { type: 'string' },
      },
      required: ['a', 'b', 'c', 'd'],
    });
    expect(filled).toEqual({ value: { a: 'd', b: 7, c: 'k', d: { e: 'x' } }, unfilled: [] });
    expect(
      fillArguments({ type: 'object', properties: { d: { type: 'object', properties: { g: {} }, required: ['g'] } }, required: ['d'] })
        .unfilled,
    ).toEqual(['d.g']);
  });
});

describe('init: the expectation recorded from real answers', () => {
  it('keeps structuredContent strings and booleans all answers agree on, and leaves numbers, times, ids and arrays out', () => {
    const answer = (n: number) => ({
      structuredContent: {
        status: 'ok',
        region: 'eu-west-1',
        healthy: true,
        requests: n,
        at: `2026-12-05T08:0${n}:00Z`,
        checkedOn: 'Saturday',
        requestId: `r-${n}`,
        version: '1.4.2',
        build: 'f3c9a2b41d7e',
        nodes: ['a', 'b'],
        nested: { tier: 'gold', seenAt: 'now' },
      },
      text: 'ignored',
    });
    const e = expectationFrom([answer(1), answer(2)], never);
    expect(e.expectJson).toEqual({ status: 'ok', region: 'eu-west-1', healthy: true, checkedOn: 'Saturday', 'nested.tier': 'gold' });
    expect(e.expectText).toBeUndefined();
  });

  it('goes no deeper than six levels into an answer that nests without end', () => {
    let deep: Record<string, unknown> = { status: 'bottom' };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const e = expectationFrom([{ structuredContent: { ok: true, deep }, text: '' }], never);
    expect(e.expectJson).toEqual({ ok: true });
  });

  it('drops a value that differs between the answers', () => {
    const e = expectationFrom(
      [
        { structuredContent: { status: 'ok', mood: 'sunny' }, text: '' },
        { structuredContent: { status: 'ok', mood: 'rainy' }, text: '' },
      ],
      never,
    );
    expect(e.expectJson).toEqual({ status: 'ok' });
  });

  it('never records a value the run knows as a secret', () => {
    const answers = [{ structuredContent: { user: 'canary', token: 'x', key: 'sk-live-abc' }, text: '' }];
    const e = expectationFrom(answers, (s) => s.includes('sk-live'));
    expect(e.expectJson).toEqual({ user: 'canary' });
  });

  it('records the longest phrase every text answer holds, cut before a number', () => {
    const e = expectationFrom(
      [
        { structuredContent: undefined, text: 'Weather in Paris: 12°C at 10:32\nsource: meteo' },
        { structuredContent: undefined, text: 'Weather in Paris: 13°C at 10:33\nsource: meteo' },
      ],
      never,
    );
    expect(e.expectText).toBe('Weather in Paris:');
    const result = { content: [{ type: 'text' as const, text: 'Weather in Paris: 9°C at 23:59' }] };
    expect(checkAnswer(result, { expectJson: e.expectJson, expectText: e.expectText })).toEqual([]);
  });

  it('records nothing, and says so, when every value moves', () => {
    const e = expectationFrom(
      [
        { structuredContent: { n: 1 }, text: '1' },
        { structuredContent: { n: 2 }, text: '2' },
      ],
      never,
    );
    expect(e).toMatchObject({ expectJson: {} });
    expect(e.expectText).toBeUndefined();
    expect(e.said).toContain('nothing recorded');
  });

  it('records what the call step then passes: the expectJson checks the next good answer', () => {
    const good = { structuredContent: { status: 'ok', load: 0.4 }, text: '' };
    const e = expectationFrom([good, { ...good, structuredContent: { status: 'ok', load: 0.7 } }], never);
    const next = { content: [], structuredContent: { status: 'ok', load: 0.9 } };
    expect(checkAnswer(next, { expectJson: e.expectJson })).toEqual([]);
    expect(checkAnswer({ content: [], structuredContent: { status: 'down' } }, { expectJson: e.expectJson })).toHaveLength(1);
  });
});
