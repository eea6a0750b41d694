/**
 * Medians and an interleaved runner: every contender runs once per round, in a rotated order, so a
 * noisy neighbour or a GC pause spreads over all of them instead of landing on one.
 */

/** The median of a non-empty sample. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Contender {
  readonly name: string;
  /** One run; resolves when it is done. Throws if the run did not do what it should (a wrong answer is no timing). */
  run(): Promise<void>;
}

export interface InterleaveOptions {
  readonly rounds: number;
  /** Untimed rounds first (JIT, connection pools, file cache). @default - 3 */
  readonly warmupRounds?: number;
  readonly now?: () => number;
}

/** Wall time of each run in ms, per contender name. */
export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<Map<string, number[]>> {
  const now = options.now ?? (() => performance.now());
  const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const warmup = options.warmupRounds ?? 3;
  for (let round = 0; round < warmup + options.rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(round + k) % contenders.length]!;
      const t0 = now();
      await c.run();
      const ms = now() - t0;
      if (round >= warmup) samples.get(c.name)!.push(ms);
    }
  }
  return samples;
}
