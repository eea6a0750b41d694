/**
 * Stacks split by size, and what a growing or shrinking fleet does to them: an item keeps its stack
 * unless that stack splits, and then it moves only to a child that deploys after its parent (so the
 * parent deletes what moves before the child creates it: names are unique, and a create-first would
 * collide). Pure placement over thousands of generated names; the templates follow it (scale.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { FleetNames } from '../../../infra/plan/names.ts';
import { fnv1a } from '../../../infra/plan/hash.ts';
import { ALARM_SHARD_DEPTH, placeAlarms } from '../../../infra/plan/placement.ts';
import { existingParent, parentBucket, splitBySize, type SplitOptions } from '../../../infra/plan/stack-split.ts';
import { STACK_BUDGET } from '../../../infra/plan/template-size.ts';

interface Item {
  readonly key: string;
  readonly bytes: number;
}

const options = (budget = { resources: 100, bytes: 1_000_000 }, minDepth = 0): SplitOptions<Item> => ({
  key: (i) => i.key,
  size: (i) => ({ resources: 3, bytes: i.bytes }),
  minDepth,
  budget: () => budget,
  tooLarge: (i) => new Error(`too large: ${i.key}`),
});

/** Deterministic pseudo-random names, the way users name services. */
function names(n: number, seed = 1): Item[] {
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  return Array.from({ length: n }, (_, i) => ({ key: `svc-${next().toString(36)}-${i}`, bytes: 1_000 + (next() % 4_000) }));
}

function stackOf(placed: Map<number, Item[]>): Map<string, number> {
  return new Map([...placed].flatMap(([id, items]) => items.map((i) => [i.key, id] as const)));
}

/** `to` is `from` itself or a bucket split (transitively) from it. */
function isDescendant(to: number, from: number, minDepth: number): boolean {
  for (let b: number | undefined = to; b !== undefined; b = parentBucket(b, minDepth)) if (b === from) return true;
  return false;
}

describe('splitBySize', () => {
  it('keeps every stack within its budget and places every item exactly once', () => {
    const items = names(2_000);
    const placed = splitBySize(items, options());
    for (const [, members] of placed) expect(members.length * 3).toBeLessThanOrEqual(100);
    expect([...placed.values()].flat().length).toBe(2_000);
    expect(new Set([...placed.values()].flat().map((i) => i.key)).size).toBe(2_000);
  });

  it('splits by bytes as well as by resources', () => {
    const big = names(60).map((i) => ({ ...i, bytes: 50_000 }));
    const placed = splitBySize(big, options({ resources: 500, bytes: 800_000 }));
    expect(placed.size).toBeGreaterThan(3);
    for (const [, members] of placed) expect(members.reduce((n, i) => n + i.bytes, 0)).toBeLessThanOrEqual(800_000);
  });

  it('as a fleet grows, moves an item only from a stack that split, to a stack split from it', () => {
    const all = names(1_200, 7);
    let before = stackOf(splitBySize(all.slice(0, 1), options()));
    let moved = 0;
    for (let n = 2; n <= all.length; n++) {
      const placed = splitBySize(all.slice(0, n), options());
      const after = stackOf(placed);
      const split = new Set<number>();
      for (const [key, from] of before) {
        const to = after.get(key)!;
        if (to === from) continue;
        moved++;
        expect(isDescendant(to, from, 0), `${key}: ${from} → ${to}`).toBe(true);
        split.add(from);
      }
      // One new item: at most the one stack it lands in splits (its halves may split again, all below it).
      expect(split.size).toBeLessThanOrEqual(1);
      before = after;
    }
    // Far fewer moves than items: a split moves half of one stack, once.
    expect(moved).toBeLessThan(all.length);
  });

  it('as a fleet shrinks, moves an item only back to the stack its stack split from', () => {
    const all = names(1_500, 11);
    let before = stackOf(splitBySize(all, options()));
    for (let n = all.length - 10; n > 0; n -= 10) {
      const after = stackOf(splitBySize(all.slice(0, n), options()));
      for (const [key, to] of after) {
        const from = before.get(key)!;
        if (to !== from) expect(isDescendant(from, to, 0), `${key}: ${from} → ${to}`).toBe(true);
      }
      before = after;
    }
  });

  it('leaves an item in place when items hashed elsewhere come and go', () => {
    const all = names(400, 3);
    const a = stackOf(splitBySize(all, options()));
    const b = stackOf(splitBySize([...all.slice(100), ...names(50, 99)], options()));
    const unchanged = all.slice(100).filter((i) => a.get(i.key) === b.get(i.key));
    expect(unchanged.length).toBeGreaterThan(250);
  });

  it('names a stack by the low bits of its items: a parent is its id without the highest bit', () => {
    expect(parentBucket(5, 2)).toBe(1);
    expect(parentBucket(3, 2)).toBeUndefined();
    expect(parentBucket(49, 4)).toBe(17);
    expect(parentBucket(17, 4)).toBe(1);
    expect(existingParent(49, 4, (p) => p === 1)).toBe(1);
    const placed = splitBySize(names(1_000), options());
    for (const [id, members] of placed) {
      const depth = Math.max(0, Math.ceil(Math.log2(id + 1)));
      for (const m of members) expect(fnv1a(m.key) % 2 ** depth).toBe(id % 2 ** depth);
    }
  });

  it('refuses an item bigger than a whole stack, with the error the caller words', () => {
    expect(() => splitBySize([{ key: 'huge', bytes: 2_000_000 }], options())).toThrow('too large: huge');
  });
});

describe('placeAlarms', () => {
  const fleetNames = new FleetNames('McpCanary');
  const target = (i: number) => ({
    index: i,
    name: `svc-${String(i).padStart(4, '0')}`,
    url: `https://svc-${i}.mcp.example.com/mcp`,
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1'],
    quorum: 3,
    periodSeconds: 60,
    runbookUrl: 'https://runbooks.example.com/mcp-canary',
  });

  it("keeps a small fleet in the first release's 16 shards, fnv1a(name) mod 16", () => {
    const targets = Array.from({ length: 300 }, (_, i) => target(i));
    const { stackOf } = placeAlarms(targets, fleetNames, { namespace: 'McpCanary', failureThreshold: 3 });
    for (const t of targets) expect(stackOf.get(t.name)).toBe(fnv1a(t.name) % 2 ** ALARM_SHARD_DEPTH);
  });

  it('splits a shard that would pass 480 resources or the byte budget', () => {
    const targets = Array.from({ length: 5_000 }, (_, i) => target(i));
    const { stacks } = placeAlarms(targets, fleetNames, { namespace: 'McpCanary', failureThreshold: 3 });
    expect(stacks.size).toBeGreaterThan(16);
    for (const [, ts] of stacks) expect(ts.length * 3).toBeLessThanOrEqual(480);
    expect([...stacks.values()].flat().length).toBe(5_000);
    expect(STACK_BUDGET.bytes).toBeLessThan(1_000_000);
  });
});
