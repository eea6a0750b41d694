/**
 * Judges one target the way an agent uses it, and ends in one Verdict: the orchestrator, the only code
 * that knows every feature. It builds the run context once (context.ts), runs the token step
 * (token.ts), the attempts with in-run retries (probe/), then the warnings (warnings.ts), all inside the
 * target's budget and through one Redactor. A failing endpoint is a Verdict, never a throw. No AWS here.
 */
import type { CertificateWatch } from '../auth/expiry.ts';
import type { CardMemory } from '../card/memory.ts';
import { redactConsoleWhile, Redactor, secretsOf } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { newTraceId } from '../../base/common/trace.ts';
import { canaryVerdict, Outcome, type Verdict } from '../../base/common/verdict.ts';
import { headerValueProblem, type Target } from '../../base/config/schema/target.ts';
import { PostureCadence } from '../posture/cadence.ts';
import { runAttempt, type Listed } from '../probe/attempt.ts';
import { startRun, type ContextDeps } from './context.ts';
import { backendVerdicts } from './gateway.ts';
import { authShrunk } from './shrunk.ts';
import { tokenFailedVerdict, tokenStep, withTokenProbe, type TokenDeps } from './token.ts';
import { verdictOf, type Attempts } from './verdict.ts';
import { driftAndPosture, expiryWarnings, upstreamCredentialWarning, withWarnings } from './warnings.ts';

export interface JudgeDeps extends ContextDeps, TokenDeps {
  /** @default - the process's certificate watch */
  readonly certificates?: CertificateWatch;
  /** When posture checks are due. @default - hourly per target in this process */
  readonly postureCadence?: PostureCadence;
  /** Posture on every run, as the CLI asks for it (a fresh cadence). @default false */
  readonly postureEveryRun?: boolean;
  /** The Server Cards read before, with their ETags. @default - the warm process's memory */
  readonly serverCards?: CardMemory;
}

/** In-run retry delays: 500 ms, doubling, capped. */
export const RETRY_BASE_DELAY_MS = 500;
export const RETRY_MAX_DELAY_MS = 4_000;

export async function judge(target: Target, deps: JudgeDeps = {}): Promise<Verdict> {
  return (await judgeRun(target, deps)).verdict;
}

/**
 * Every verdict of one run: the target's, then a gateway's backends' (`<gateway>/<backend>`, one each,
 * judged on the same session). A target without backends has one.
 */
export async function judgeAll(target: Target, deps: JudgeDeps = {}): Promise<Verdict[]> {
  const { verdict, backends } = await judgeRun(target, deps);
  return [verdict, ...backends];
}

/** The verdict, what tools/list answered (for `mcp-canary snapshot`), a gateway's backends' verdicts, and the run's Redactor. */
export interface Judged {
  readonly verdict: Verdict;
  readonly listed: Listed | null;
  readonly redactor: Redactor;
  readonly backends: readonly Verdict[];
}

export async function judgeRun(target: Target, deps: JudgeDeps = {}): Promise<Judged> {
  const own = configProblem(target);
  if (own) {
    const redactor = new Redactor(secretsOf(target));
    const verdict = redactor.value(canaryVerdict(target.name, Outcome.inconclusive, null, own, 0, newTraceId()));
    return { verdict, listed: null, redactor, backends: backendVerdicts(target, verdict, null) };
  }
  const { ctx, end } = startRun(target, deps);
  const started = ctx.now();
  try {
    const warnings = expiryWarnings(target, ctx, deps.certificates);
    const token = await tokenStep(target, ctx, deps);
    // Every value the canary was given (headers, the URL's query values, path keys and userinfo, the
    // OAuth material) is in the Redactor every output of this run passes through.
    const redactor = new Redactor(secretsOf({ ...target, extra: [...token.secretValues, ...reachSecrets(deps)] }));
    // What libraries print while this run is judged (the SDK quotes server-supplied tool names) is
    // redacted too: in the scheduled run it would reach the logs.
    return await redactConsoleWhile(redactor, async () => {
      const refused = tokenFailedVerdict(token, target.name, ctx.now() - started, ctx.traceId);
      if (refused) {
        const verdict = redactor.value(withWarnings(refused, { warnings: [...token.warnings, ...(await warnings)] }));
        return { verdict, listed: null, redactor, backends: backendVerdicts(target, verdict, null).map((v) => redactor.value(v)) };
      }
      const tried = await attempts(token.target, ctx);
      const run = { ...tried, last: authShrunk(token.target, tried.last) };
      const verdict = withTokenProbe(token, verdictOf(token.target, run, ctx.now() - started, ctx.traceId), run.last.fault);
      const expiring = await warnings;
      // Catalog drift and posture: warnings only, after the verdict's timing so they never make it slow.
      const cadence = deps.postureEveryRun ? new PostureCadence() : deps.postureCadence;
      const beside = await driftAndPosture(token.target, run.last, ctx, cadence, deps.serverCards);
      const answered = upstreamCredentialWarning(token.target, run.last);
      const warned = withWarnings(verdict, {
        warnings: [...token.warnings, ...expiring, ...answered, ...beside.warnings],
        posture: beside.posture,
      });
      const backends = backendVerdicts(token.target, warned, run.last).map((v) => redactor.value(v));
      return { verdict: redactor.value(warned), listed: run.last.listed, redactor, backends };
    });
  } finally {
    end();
  }
}

/**
 * Retries a failed attempt only after `unreachable`, `timeout`, a 5xx or a transient status (429, 408,
 * …), and only while a whole attempt still fits the budget. A server's `Retry-After` is respected: the
 * retry waits at least that long, or does not happen when that wait does not fit.
 */
async function attempts(target: Target, ctx: RunContext): Promise<Attempts> {
  let last = await runAttempt(target, ctx);
  const first = last;
  let retries = 0;
  while (last.outcome === Outcome.failed && last.retryable && retries < target.retries) {
    const backoff = Math.min(RETRY_BASE_DELAY_MS * 2 ** retries, RETRY_MAX_DELAY_MS);
    const delay = Math.max(backoff, last.fault?.retryAfterMs ?? 0);
    // Otherwise the first verdict stands (saying so when it was the server's own wait that did not fit).
    if (ctx.remainingMs() < delay + target.timeoutMs) {
      if (delay > backoff) last = { ...last, detail: `${last.detail}; not retried: the Retry-After wait does not fit the run's budget` };
      break;
    }
    await ctx.sleep(delay);
    retries++;
    last = await runAttempt(target, ctx);
  }
  return { last, retries, firstFailure: retries > 0 ? first : undefined };
}

/**
 * A header value fetch cannot send (a character above U+00FF, a line break) is the canary's own config
 * mistake — a secret read at run time can carry one too — never the endpoint's failure: inconclusive.
 */
function configProblem(target: Target): string | null {
  for (const [name, value] of Object.entries(target.headers)) {
    const problem = headerValueProblem(value);
    if (problem) return `headers.${name}: the value ${problem}. This is the canary's configuration, not the endpoint`;
  }
  return null;
}

/** The secrets of the target's reach (key passphrase, proxy credentials), so the run's own Redactor knows them too. */
function reachSecrets(deps: JudgeDeps): string[] {
  const proxy = deps.reach?.proxy;
  const credentials = proxy && 'url' in proxy ? proxy.credentials : undefined;
  return [
    ...(deps.reach?.tls?.passphrase ? [deps.reach.tls.passphrase] : []),
    ...(credentials ? [credentials, credentials.slice(credentials.indexOf(':') + 1), Buffer.from(credentials).toString('base64')] : []),
  ];
}
