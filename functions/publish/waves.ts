/**
 * Publishing in waves: each target's datapoint goes out soon after its own verdict, so one slow target
 * delays only itself. The first release published every datapoint of a schedule in one call at the end,
 * so one target that held its run for its whole budget delayed its 24 batch-mates' datapoints by as
 * much — past the alarm evaluation of their period, moving their pages from run N to N+1.
 *
 * A wave opens with the first verdict nobody has sent yet and goes out `windowMs` later with every
 * verdict known by then, or at once when every target has its verdict. PutMetricData is billed per call,
 * so the number of waves is bounded: the last one allowed waits for all the rest. A healthy batch finishes
 * within one window and costs one call, as before; a batch with one hanging target costs two.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { publishRuns, type PublishOptions, type PublishResult } from './metrics.ts';
import type { RunRecord } from '../common/run-record.ts';

/** How long a wave waits for batch-mates after its first verdict. */
export const WAVE_WINDOW_MS = 1_000;
/** At most this many PutMetricData waves per invocation (each of up to 1,000 datums). */
export const MAX_WAVES = 3;

export interface WaveOptions extends PublishOptions {
  /** Verdicts to expect: the wave that holds the last one goes out at once. */
  readonly expected: number;
  /** @default - WAVE_WINDOW_MS */
  readonly windowMs?: number;
  /** @default - MAX_WAVES */
  readonly maxWaves?: number;
}

export interface WavesResult extends PublishResult {
  readonly waves: number;
  /** Targets whose datum was not accepted. */
  readonly failedTargets: readonly string[];
}

export class WavePublisher {
  private readonly pending: RunRecord[] = [];
  private readonly sent: Array<Promise<{ records: readonly RunRecord[]; result: PublishResult }>> = [];
  private timer: NodeJS.Timeout | undefined;
  private received = 0;

  constructor(
    private readonly client: CloudWatchClient,
    private readonly opts: WaveOptions,
  ) {}

  /** A target's verdict is known: it goes out with the current wave. */
  add(record: RunRecord): void {
    this.pending.push(record);
    this.received++;
    if (this.received >= this.opts.expected) return this.flush();
    const lastWave = this.sent.length >= (this.opts.maxWaves ?? MAX_WAVES) - 1;
    if (!this.timer && !lastWave) this.timer = setTimeout(() => this.flush(), this.opts.windowMs ?? WAVE_WINDOW_MS);
  }

  /** Sends what is left and waits for every wave. */
  async settle(): Promise<WavesResult> {
    this.flush();
    const waves = await Promise.all(this.sent);
    const results = waves.map((w) => w.result);
    return {
      published: results.every((r) => r.published),
      calls: results.reduce((n, r) => n + r.calls, 0),
      attempts: results.reduce((n, r) => n + r.attempts, 0),
      errors: results.flatMap((r) => r.errors),
      waves: waves.length,
      failedTargets: waves.flatMap((w) => (w.result.published ? [] : w.records.map((r) => r.target))),
    };
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const records = this.pending.splice(0);
    this.sent.push(publishRuns(this.client, records, this.opts).then((result) => ({ records, result })));
  }
}
