/**
 * Publishing in waves: each target's datapoint goes out soon after its own verdict, so one slow target
 * delays only itself. The first release published every datapoint of a schedule in one call at the end,
 * so one target that held its run for its whole budget delayed its 24 batch-mates' datapoints by as
 * much — past the alarm evaluation of their period, moving their pages from run N to N+1.
 *
 * A wave opens with the first verdict nobody has sent yet and goes out `windowMs` later with every
 * verdict known by then, or at once when every target has its verdict (or was skipped). There is no cap
 * on the number of waves: an earlier release let the last allowed wave wait for every verdict left, so
 * three slow targets held each other's datapoints back by the slowest one's budget. The window is the
 * only batching, and it bounds the calls instead: at most one PutMetricData call per target of the
 * payload (25 at most, each call far inside PutMetricData's 1,000 datums and 1 MB; publishRuns splits
 * past that), and one call for a batch whose verdicts arrive within one window. PutMetricData is billed
 * per call ($0.01 per 1,000), so a healthy batch costs one call, a batch with one hanging target two.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { publishRuns, type PublishOptions, type PublishResult } from './metrics.ts';
import type { RunRecord } from '../../base/common/run-record.ts';

/** How long a wave waits for batch-mates after its first verdict. */
export const WAVE_WINDOW_MS = 1_000;

export interface WaveOptions extends PublishOptions {
  /** Verdicts to expect: the wave that holds the last one goes out at once. */
  readonly expected: number;
  /** @default - WAVE_WINDOW_MS */
  readonly windowMs?: number;
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
  private expected: number;

  constructor(
    private readonly client: CloudWatchClient,
    private readonly opts: WaveOptions,
  ) {
    this.expected = opts.expected;
  }

  /** A target's verdict is known: it goes out with the current wave. */
  add(record: RunRecord): void {
    this.pending.push(record);
    this.received++;
    if (this.received >= this.expected) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), this.opts.windowMs ?? WAVE_WINDOW_MS);
  }

  /** One expected verdict will not come (its run was a duplicate): nobody waits for it. */
  skip(): void {
    this.expected--;
    if (this.received >= this.expected) this.flush();
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
