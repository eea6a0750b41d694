/**
 * Which stack holds what: items (a target's alarms, a schedule, a mute rule) are split into stacks by
 * size, automatically, and a given item stays in its stack while the fleet grows or shrinks around it.
 *
 * Why this shape. A resource that moves between stacks is deleted from one and created in the other,
 * and our physical names (alarm, schedule and rule names) are unique per account and region: if the
 * create runs first it collides, if the delete runs first there is a gap. So placement must depend on
 * the item alone as far as possible, and when it must change, only a few items may move, always in the
 * same direction, to a stack that deploys after the one they leave.
 *
 * The rule (extendible hashing, pure, no state): an item's bucket at depth d is `fnv1a(key) mod 2^d`.
 * Start at `minDepth`; a bucket whose items do not fit one stack splits into its two halves at depth
 * d+1: items whose bit d is 0 keep the bucket's id (and stack), the others go to id + 2^d, a new stack.
 * Hence:
 * - adding or removing an item moves nothing unless its bucket crosses the size limit;
 * - a split moves about half of one stack's items, from stack `p` to its child `p + 2^d`, never sideways;
 *   `parentBucket` names `p`, and the child stack depends on it, so `cdk deploy --all` deletes the moved
 *   resources in `p` before the child creates them (a gap of one stack update, no collision);
 * - when a fleet shrinks back under a limit, the child's items return to `p` and the child stack leaves
 *   the app: CloudFormation does not delete a stack that left the app, so destroy it first (docs/deploy.md, "Scale").
 */
import { fnv1a } from './hash.ts';

/** What a stack may hold, in CloudFormation's units. */
export interface StackBudget {
  readonly resources: number;
  readonly bytes: number;
}

export interface ItemSize {
  readonly resources: number;
  readonly bytes: number;
}

export interface SplitOptions<T> {
  /** Stable identity of an item: its physical name, or the target name. */
  key(item: T): string;
  size(item: T): ItemSize;
  /** Buckets at this depth exist from the start (16 alarm shards: their stack names predate splitting). */
  readonly minDepth: number;
  /** Room in the stack of a bucket (bucket 0 of a probe region is the main stack, which holds more). */
  budget(bucket: number): StackBudget;
  /** The error when even one item, or items of one hash, do not fit an empty stack. */
  tooLarge(item: T): Error;
}

const MAX_DEPTH = 32;

/** Items by bucket id; only non-empty buckets are listed, ids ascending, items in input order. */
export function splitBySize<T>(items: readonly T[], o: SplitOptions<T>): Map<number, T[]> {
  const out = new Map<number, T[]>();
  const hashed = items.map((item) => ({ item, hash: fnv1a(o.key(item)), size: o.size(item) }));
  const place = (depth: number, bucket: number, members: typeof hashed): void => {
    if (members.length === 0) return;
    const budget = o.budget(bucket);
    const resources = members.reduce((n, m) => n + m.size.resources, 0);
    const bytes = members.reduce((n, m) => n + m.size.bytes, 0);
    if (resources <= budget.resources && bytes <= budget.bytes) {
      out.set(
        bucket,
        members.map((m) => m.item),
      );
      return;
    }
    if (depth >= MAX_DEPTH || members.length === 1) throw o.tooLarge(members[0]!.item);
    const bit = 2 ** depth;
    place(
      depth + 1,
      bucket,
      members.filter((m) => Math.floor(m.hash / bit) % 2 === 0),
    );
    place(
      depth + 1,
      bucket + bit,
      members.filter((m) => Math.floor(m.hash / bit) % 2 === 1),
    );
  };
  const base = 2 ** o.minDepth;
  const roots = new Map<number, typeof hashed>();
  for (const h of hashed) roots.set(h.hash % base, [...(roots.get(h.hash % base) ?? []), h]);
  for (const [bucket, members] of roots) place(o.minDepth, bucket, members);
  return new Map([...out].sort(([a], [b]) => a - b));
}

/**
 * The stack a bucket split from (its id without the highest bit), or undefined for a bucket that
 * exists from the start (`id < 2^minDepth`).
 */
export function parentBucket(id: number, minDepth: number): number | undefined {
  if (id < 2 ** minDepth) return undefined;
  return id - 2 ** Math.floor(Math.log2(id));
}

/** The nearest ancestor of `id` among the stacks that exist (a bucket can be empty after a split). */
export function existingParent(id: number, minDepth: number, exists: (id: number) => boolean): number | undefined {
  let p = parentBucket(id, minDepth);
  while (p !== undefined && !exists(p)) p = parentBucket(p, minDepth);
  return p;
}
