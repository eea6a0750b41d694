/**
 * The token step of a run, as the orchestrator runs it: the OAuth token first (the `auth` probe,
 * first in `probes`, inside the budget), the target's requests then carrying it, and at the end a
 * 401/403 from the MCP server named as a refused token (and the token dropped from the cache).
 */
import { authorize, type AuthorizeDeps, type Bearer } from '../auth/authorize.ts';
import { delegatedToken } from '../auth/delegated.ts';
import { processTokenCache, type TokenCache } from '../auth/tokens.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faultOutcome, timedStep, type Fault } from '../../base/common/step.ts';
import { FailureClass, type ProbeResult, type Verdict, type Warning } from '../../base/common/verdict.ts';
import type { OAuthSecrets } from '../../base/config/load/oauth-secrets.ts';
import type { Target } from '../../base/config/schema/target.ts';

/** The judge's dependencies for the token step; all optional. */
export interface TokenDeps {
  /** The target's OAuth client secret / private key, resolved by the run or the CLI. */
  readonly oauthSecrets?: OAuthSecrets;
  /** @default - the process's token cache */
  readonly tokenCache?: TokenCache;
  /** Resolves host names for the SSRF guard (tests). @default - DNS */
  readonly lookup?: AuthorizeDeps['lookup'];
}

export interface TokenStep {
  /** The target, with the OAuth token in its Authorization header once there is one. */
  readonly target: Target;
  /** Every value the Redactor must know: secrets, assertion, token. Filled before each is used. */
  readonly secretValues: readonly string[];
  /** The `auth` probe, when the target uses OAuth. */
  readonly probe: ProbeResult | null;
  /** The token, or null (no OAuth, or the step failed: then `fault`). */
  readonly bearer: Bearer | null;
  readonly fault: Fault | null;
  readonly cache: TokenCache;
  /** What the token step warns of (a delegated grant that is refused, not refreshing, or near its end). */
  readonly warnings: readonly Warning[];
}

/** Runs the token step when the target uses OAuth; a target without it passes straight through. */
export async function tokenStep(target: Target, ctx: RunContext, deps: TokenDeps): Promise<TokenStep> {
  const cache = deps.tokenCache ?? processTokenCache;
  const secretValues: string[] = [];
  let warnings: readonly Warning[] = [];
  if (!target.auth) return { target, secretValues, probe: null, bearer: null, fault: null, cache, warnings };
  const { result, probe } = await timedStep('auth', ctx.now, async () => {
    // A delegated grant is read, never refreshed, by a run (auth/delegated.ts says why).
    if (!target.auth?.oauth) {
      const step = delegatedToken(target, deps.oauthSecrets?.delegated, ctx.wallNow());
      warnings = step.warnings;
      if (step.result.ok) secretValues.push(step.result.value.token);
      return step.result;
    }
    return authorize(target, ctx, { secrets: deps.oauthSecrets, cache, lookup: deps.lookup }, (v) => secretValues.push(v));
  });
  if (!result.ok) return { target, secretValues, probe, bearer: null, fault: result.fault, cache, warnings };
  const bearer = result.value;
  const withToken = { ...target, headers: { ...target.headers, Authorization: `Bearer ${bearer.token}` } };
  return { target: withToken, secretValues, probe, bearer, fault: null, cache, warnings };
}

/** The verdict when the token step failed: no MCP request was made with a token we do not have. */
export function tokenFailedVerdict(step: TokenStep, name: string, durationMs: number, traceId: string): Verdict | null {
  if (!step.fault || !step.probe) return null;
  return {
    target: name,
    outcome: faultOutcome(step.fault),
    failure: step.fault.failure,
    detail: step.fault.detail,
    revision: null,
    server: null,
    durationMs: Math.round(durationMs),
    retries: 0,
    probes: [{ ...step.probe, durationMs: Math.round(step.probe.durationMs) }],
    warnings: [],
    traceId,
  };
}

/**
 * The auth probe first, and a 401/403 after a token was obtained named as the MCP server refusing that
 * token — with the challenge's OAuth `error` the classifier read, not text parsed back out of the
 * detail — and the token dropped from the cache so the next run asks for a new one.
 */
export function withTokenProbe(step: TokenStep, v: Verdict, ending: Fault | null): Verdict {
  if (!step.bearer || !step.probe) return v;
  let { detail } = v;
  const probes: ProbeResult[] = v.probes.map((probe) => {
    if (probe.failure !== FailureClass.auth) return probe;
    const wall = ending?.failure === FailureClass.auth ? ending.wall : undefined;
    const code = wall?.challengeError ? ` (${wall.challengeError})` : '';
    const refused = `${probe.name}: the MCP server refused the OAuth token${code}; ${wall?.seen ?? probe.detail}`;
    if (v.detail === probe.detail) detail = refused;
    return { ...probe, detail: refused };
  });
  if (v.failure === FailureClass.auth) step.cache.invalidate(step.bearer.key, step.bearer.token);
  return { ...v, detail, probes: [{ ...step.probe, durationMs: Math.round(step.probe.durationMs) }, ...probes] };
}
