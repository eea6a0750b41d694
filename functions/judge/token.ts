/**
 * What `judge()` does before and after its attempts for OAuth and expiry warnings, kept here so the
 * engine's own files change by a few lines: get the token (the `auth` probe, first in `probes`), put
 * it in the Authorization header, start the once-an-hour certificate look beside the run, and at the
 * end add the warnings and say when the MCP server refused the token it was given.
 */
import type { Target } from '../config/target.ts';
import { FailureClass, type ProbeResult, type Verdict, type Warning } from '../common/verdict.ts';
import type { FetchLike } from '../net/wire.ts';
import { authorize, type Authorized, type AuthorizeDeps } from '../auth/authorize.ts';
import { bearerWarnings, processCertificateWatch, secretRefWarnings, type CertificateWatch } from '../auth/expiry.ts';
import type { OAuthSecrets } from '../config/oauth-secrets.ts';
import { processTokenCache, type TokenCache } from '../auth/tokens.ts';

/** The judge's extra dependencies for OAuth and warnings; all optional. */
export interface AuthJudgeDeps {
  /** The target's OAuth client secret / private key, resolved by the run or the CLI. */
  readonly oauthSecrets?: OAuthSecrets;
  /** @default - the process's token cache */
  readonly tokenCache?: TokenCache;
  /** @default - the process's certificate watch */
  readonly certificates?: CertificateWatch;
  /** Wall-clock ms (token and certificate expiry). @default - Date.now */
  readonly wallNow?: () => number;
  /** Resolves host names for the SSRF guard (tests). @default - DNS */
  readonly lookup?: AuthorizeDeps['lookup'];
}

export interface Prepared {
  /** The target with the OAuth token in its Authorization header. */
  readonly target: Target;
  /** Every value the Redactor must know: secrets, assertion, token. Filled before each is used. */
  readonly secretValues: readonly string[];
  readonly auth: Authorized | null;
  readonly warnings: Promise<Warning[]>;
  readonly cache: TokenCache;
}

export async function beforeAttempt(
  target: Target,
  deps: AuthJudgeDeps,
  ctx: { fetch?: FetchLike | undefined; now: () => number; budget: AbortSignal },
): Promise<Prepared> {
  const wallNow = deps.wallNow ?? Date.now;
  const cache = deps.tokenCache ?? processTokenCache;
  const secretValues: string[] = [];
  const watch = deps.certificates ?? processCertificateWatch;
  // Never waited for past the run's budget: a slow handshake drops the warning, never the verdict.
  const certificate = untilAborted(
    watch.warning(target.url, target.certWarningDays).catch(() => null),
    ctx.budget,
  );
  const staticWarnings = [
    // Only the headers the user gave: a token the canary obtains and refreshes itself never warns.
    ...bearerWarnings(target.headers, target.credentialWarningDays, wallNow()),
    ...secretRefWarnings(target.auth?.oauth, target.credentialWarningDays, wallNow()),
  ];
  const warnings = certificate.then((c) => (c ? [...staticWarnings, c] : staticWarnings));
  if (!target.auth) return { target, secretValues, auth: null, warnings, cache };
  const auth = await authorize(
    target,
    { fetch: ctx.fetch, now: ctx.now, wallNow, budget: ctx.budget, secrets: deps.oauthSecrets, cache, lookup: deps.lookup },
    (v) => secretValues.push(v),
  );
  const withToken = auth.ok ? { ...target, headers: { ...target.headers, Authorization: `Bearer ${auth.token}` } } : target;
  return { target: withToken, secretValues, auth, warnings, cache };
}

/** The verdict when the token step failed: no MCP request was made with a token we do not have. */
export async function authFailedVerdict(p: Prepared, name: string, durationMs: number, traceId: string): Promise<Verdict | null> {
  if (!p.auth || p.auth.ok) return null;
  const { probe, outcome } = p.auth;
  return {
    target: name,
    outcome,
    failure: probe.failure,
    detail: probe.detail,
    revision: null,
    server: null,
    durationMs: Math.round(durationMs),
    retries: 0,
    probes: [{ ...probe, durationMs: Math.round(probe.durationMs) }],
    warnings: await p.warnings,
    traceId,
  };
}

/** The auth probe first, the warnings added, and a refused token named as such (and dropped from the cache). */
export async function afterAttempt(p: Prepared, v: Verdict): Promise<Verdict> {
  const warnings = await p.warnings;
  if (!p.auth?.ok) return { ...v, warnings };
  const auth = p.auth;
  let { detail } = v;
  const probes: ProbeResult[] = v.probes.map((probe) => {
    if (probe.failure !== FailureClass.auth) return probe;
    // The token step succeeded, so a 401/403 now is the MCP server refusing that token.
    const code = /error="?([a-z_]+)/i.exec(probe.detail)?.[1];
    const seen = probe.detail.startsWith(`${probe.name}: `) ? probe.detail.slice(probe.name.length + 2) : probe.detail;
    const refused = `${probe.name}: the MCP server refused the OAuth token${code ? ` (${code})` : ''}; ${seen.replace(/ — check the credentials the canary sends$/, '')}`;
    if (v.detail === probe.detail) detail = refused;
    return { ...probe, detail: refused };
  });
  if (v.failure === FailureClass.auth) p.cache.invalidate(auth.key, auth.token);
  return { ...v, detail, probes: [{ ...auth.probe, durationMs: Math.round(auth.probe.durationMs) }, ...probes], warnings };
}

/** `work`, or null once `signal` aborts (the run's budget is spent), whichever comes first. */
function untilAborted<T>(work: Promise<T | null>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const stop = () => resolve(null);
    signal.addEventListener('abort', stop, { once: true });
    void work.then((v) => {
      signal.removeEventListener('abort', stop);
      resolve(v);
    });
  });
}
