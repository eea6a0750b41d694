/**
 * How one step of a run ended, in one shape for every step — the token step, the health path,
 * discover or initialize, tools/list, tools/call: what it found, or the fault that ends the attempt.
 * A later rule reads the fault's fields, never its detail's text.
 */
import { FailureClass, Outcome, type ProbeName, type ProbeResult } from './verdict.ts';

export interface Fault {
  /** The failure class; null when the canary itself could not judge (its own OAuth key or secret): inconclusive. */
  readonly failure: FailureClass | null;
  /** One line, starting with the step: what was seen and, where it helps, what to do. Redacted later, like every detail. */
  readonly detail: string;
  /** Worth another attempt within the run (unreachable, timeout, 5xx, a transient status); never for auth or answers. */
  readonly retryable: boolean;
  /** The HTTP status, when the failure was one. */
  readonly status?: number;
  /** How long the server asked the canary to wait (its `Retry-After`), when it said: an in-run retry waits at least this. */
  readonly retryAfterMs?: number;
  /**
   * An auth wall (401/403): what was seen — status, content type, the server's words, the challenge —
   * without the step's name or the advice, and the challenge's OAuth `error` (RFC 6750), as the SDK's
   * parser reads it. The token step names a refused token with them.
   */
  readonly wall?: { readonly seen: string; readonly challengeError?: string };
}

/**
 * A step's result. `as` names the probe the result is reported as when the step itself decides it: the
 * protocol step is `discover` or `initialize`, by the era that answered.
 */
export type StepResult<T> =
  | { readonly ok: true; readonly value: T; readonly detail: string; readonly as?: ProbeName }
  | { readonly ok: false; readonly fault: Fault; readonly as?: ProbeName };

export function passed<T>(value: T, detail: string, as?: ProbeName): StepResult<T> {
  return { ok: true, value, detail, ...(as ? { as } : {}) };
}

export function faulted<T = never>(fault: Fault, as?: ProbeName): StepResult<T> {
  return { ok: false, fault, ...(as ? { as } : {}) };
}

/** The outcome a fault gives the run: inconclusive when the canary could not judge (its own config, a tool it must not call). */
export function faultOutcome(f: Fault): Outcome {
  return f.failure === null ||
    f.failure === FailureClass.unsafeTool ||
    f.failure === FailureClass.canaryCredential ||
    f.failure === FailureClass.gatewayDown
    ? Outcome.inconclusive
    : Outcome.failed;
}

/** The probe line of a step's result, `durationMs` long. */
export function probeOf(name: ProbeName, r: StepResult<unknown>, durationMs: number): ProbeResult {
  const as = r.as ?? name;
  return r.ok
    ? { name: as, ok: true, durationMs, detail: r.detail, failure: null }
    : { name: as, ok: false, durationMs, detail: r.fault.detail, failure: r.fault.failure };
}

/** Runs one step, timed on `now`: its result, and its probe line. */
export async function timedStep<T>(
  name: ProbeName,
  now: () => number,
  run: () => Promise<StepResult<T>>,
): Promise<{ readonly result: StepResult<T>; readonly probe: ProbeResult }> {
  const started = now();
  const result = await run();
  return { result, probe: probeOf(name, result, now() - started) };
}
