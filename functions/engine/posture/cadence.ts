/**
 * Posture checks run at most once an interval (an hour) per target per warm process, not on every
 * run: they are evidence of configuration, which changes with deploys, and a 1-minute canary would
 * otherwise send five extra requests a minute. A cold start runs them again — at worst once per
 * instance per hour. The clock is injected so the cadence is tested without waiting an hour.
 */
export const POSTURE_INTERVAL_MS = 60 * 60 * 1000;

export interface PostureCadenceOptions {
  /** @default - POSTURE_INTERVAL_MS (one hour) */
  readonly intervalMs?: number;
  /** Wall clock in ms. @default - Date.now */
  readonly now?: () => number;
}

export class PostureCadence {
  private readonly lastRun = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(opts: PostureCadenceOptions = {}) {
    this.intervalMs = opts.intervalMs ?? POSTURE_INTERVAL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** True when `key` has not run within the interval. Does not claim the slot: see `claim`. */
  due(key: string): boolean {
    const last = this.lastRun.get(key);
    return last === undefined || this.now() - last >= this.intervalMs;
  }

  /** Records a run now: the next is due one interval later. */
  claim(key: string): void {
    this.lastRun.set(key, this.now());
  }

  /** The wall clock the cadence reads (certificate days left use the same one). */
  wallNow(): number {
    return this.now();
  }
}

/** The warm process's cadence: module state survives between invocations of a warm Lambda. */
export const processCadence = new PostureCadence();
