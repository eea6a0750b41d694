/** Work raced against a deadline: the scheduled run's guard against a target that holds it open. */

/** How a piece of work ended when raced against a deadline. Never rejects. */
export type Settled<T> =
  { readonly kind: 'value'; readonly value: T } | { readonly kind: 'error'; readonly error: unknown } | { readonly kind: 'late' };

/**
 * Waits for `work` at most `ms`. Late work keeps running but its result is dropped, and its rejection
 * is still handled: an unhandled rejection would crash the warm container on a later run.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<Settled<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'late' }), Math.max(0, ms));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve({ kind: 'value', value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ kind: 'error', error });
      },
    );
  });
}
