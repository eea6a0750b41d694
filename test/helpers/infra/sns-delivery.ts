/**
 * SNS's HTTP/S delivery retries as the SNS Developer Guide documents them ("Amazon SNS message delivery
 * retries"): after the first try, an immediate-retry phase (numNoDelayRetries, no delay), a pre-backoff
 * phase (numMinDelayRetries, minDelayTarget apart), a backoff phase (the retries left over, delays
 * growing from minDelayTarget to maxDelayTarget: exponential, modelled geometrically), and a
 * post-backoff phase (numMaxDelayRetries, maxDelayTarget apart). When every try failed, the message
 * goes to the subscription's dead-letter queue, or is dropped without one.
 */
export interface RetryPolicy {
  readonly minDelayTarget: number;
  readonly maxDelayTarget: number;
  readonly numRetries: number;
  readonly numNoDelayRetries: number;
  readonly numMinDelayRetries: number;
  readonly numMaxDelayRetries: number;
}

/** SNS's default HTTP/S policy: 3 retries 20 s apart. */
export const SNS_DEFAULT_HTTPS: RetryPolicy = {
  minDelayTarget: 20,
  maxDelayTarget: 20,
  numRetries: 3,
  numNoDelayRetries: 0,
  numMinDelayRetries: 0,
  numMaxDelayRetries: 0,
};

/** Seconds after publishing at which each try is made (the first at 0). */
export function attemptTimes(p: RetryPolicy): number[] {
  const backoff = p.numRetries - p.numNoDelayRetries - p.numMinDelayRetries - p.numMaxDelayRetries;
  const delays: number[] = [
    ...Array<number>(p.numNoDelayRetries).fill(0),
    ...Array<number>(p.numMinDelayRetries).fill(p.minDelayTarget),
    ...Array.from({ length: backoff }, (_, i) => p.minDelayTarget * (p.maxDelayTarget / p.minDelayTarget) ** ((i + 1) / backoff)),
    ...Array<number>(p.numMaxDelayRetries).fill(p.maxDelayTarget),
  ];
  const times = [0];
  for (const d of delays) times.push(times.at(-1)! + d);
  return times;
}

export type Delivery =
  | { readonly delivered: true; readonly at: number; readonly tries: number }
  | { readonly delivered: false; readonly deadLettered: boolean; readonly tries: number };

/** One message published at `publishedAt` to an endpoint that refuses everything while `down(t)`. */
export function deliver(p: RetryPolicy, publishedAt: number, down: (t: number) => boolean, hasDeadLetterQueue: boolean): Delivery {
  const times = attemptTimes(p).map((t) => publishedAt + t);
  const ok = times.findIndex((t) => !down(t));
  if (ok >= 0) return { delivered: true, at: times[ok]!, tries: ok + 1 };
  return { delivered: false, deadLettered: hasDeadLetterQueue, tries: times.length };
}
