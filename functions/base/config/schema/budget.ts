/**
 * The run's time budget. A scheduled run must end on its own, well before the Lambda timeout (a
 * timeout is an error, and errors are retried and double-count) and before the next run starts:
 *
 *   schedule period  >  Lambda timeout  >  run budget
 *   run budget = secret read + the slowest target's budgetMs + grace + publish reserve
 */

/** One credential read (with the SDK's own retries) gets this long; then the target is `inconclusive`. */
export const SECRET_READ_TIMEOUT_MS = 5_000;

/**
 * Extra time `judge()` gets past `target.budgetMs` before its verdict is abandoned. The engine enforces
 * the budget itself; this only guards the other targets against a hang the engine did not catch.
 */
export const JUDGE_GRACE_MS = 2_000;
/** Kept free after judging for PutMetricData (with its retries) and the log lines. */
export const PUBLISH_RESERVE_MS = 5_000;
/** Kept free before the Lambda timeout, so the handler always returns on its own. */
export const RETURN_MARGIN_MS = 1_000;

/** How long a run over targets whose slowest `budgetMs` is `maxBudgetMs` may take, all in. */
export function runBudgetMs(maxBudgetMs: number): number {
  return SECRET_READ_TIMEOUT_MS + maxBudgetMs + JUDGE_GRACE_MS + PUBLISH_RESERVE_MS;
}

/**
 * The Lambda timeout (whole seconds) the CDK stack should give the function: the run budget plus the
 * margin. The schedule period must be longer than this.
 */
export function lambdaTimeoutSeconds(maxBudgetMs: number): number {
  return Math.ceil((runBudgetMs(maxBudgetMs) + RETURN_MARGIN_MS) / 1000);
}
