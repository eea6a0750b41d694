/**
 * How late this process's timers fired while something ran: the event loop's worst delay (Node's
 * monitorEventLoopDelay). A bound such as "the run ends within its budget + 10 %" is behaviour on a
 * quiet machine and a coin toss on a loaded one, where every timer — the budget's too — fires late by
 * however long the process was not scheduled. Allowing exactly the lateness measured keeps the bound
 * tight when the machine is quiet and true when it is not: a run that ignored its budget still fails it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Starts measuring; `stop()` returns the worst lateness since, in ms (rounded up). */
export function measureLateness(): { stop(): number } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    stop: () => {
      h.disable();
      return Math.ceil(h.max / 1e6);
    },
  };
}

/** `fn`'s result and the lateness measured while it ran. */
export async function withLateness<T>(fn: () => Promise<T>): Promise<{ value: T; lateMs: number }> {
  const m = measureLateness();
  try {
    const value = await fn();
    return { value, lateMs: m.stop() };
  } catch (e) {
    m.stop();
    throw e;
  }
}
