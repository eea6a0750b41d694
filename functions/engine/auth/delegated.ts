/**
 * The token step of a target with `auth.authorizationCode`: the access token the refresher published
 * (or the CLI refreshed), judged, never refreshed here. Probe runs never use the refresh token: with
 * many warm functions in several regions, a second refresher would void the grant on a server that
 * rotates refresh tokens (see rotate.ts).
 *
 * Whose fault, written down (docs/oauth.md's "Whose fault a refused credential is" says the same):
 * - a token issued for another server (the grant of another target, binding.ts): the canary's own
 *   configuration. `inconclusive`, `canary_credential`, and the token is never sent;
 * - no usable token because the grant was refused (invalid_grant: revoked, expired, consent withdrawn),
 *   or none was ever published, or the refresher stopped: the canary's own credential. `inconclusive`,
 *   failure `canary_credential`, with the fix; the endpoint's owner is never paged for it.
 * - the token endpoint did not answer the refresher: agents meet that too. While the last access token
 *   is still valid, the run goes on with it and warns (`credential_expiry`); once it has expired, the
 *   endpoint's auth has failed for every client: `failed`, failure `auth`.
 */
import { faulted, passed, type StepResult } from '../../base/common/step.ts';
import { FailureClass, WarningKind, type Warning } from '../../base/common/verdict.ts';
import type { AuthorizationCodeSettings } from '../../base/config/schema/oauth-delegated.ts';
import type { DelegatedAccess } from '../../base/config/load/oauth-secrets.ts';
import type { Bearer } from './authorize.ts';
import { grantMismatch } from './binding.ts';
import { expiryWarning, inWords } from './expiry.ts';
import { shownUrl } from '../../base/common/shown-url.ts';

/** An access token this close to its expiry is not sent: it could expire on the way. */
export const ACCESS_SKEW_MS = 10_000;
const DAY_MS = 86_400_000;

export interface DelegatedStep {
  readonly result: StepResult<Bearer>;
  readonly warnings: readonly Warning[];
}

export function delegatedToken(
  target: {
    readonly url: string;
    readonly credentialWarningDays: number;
    readonly auth?: { readonly authorizationCode?: AuthorizationCodeSettings | undefined } | undefined;
  },
  found: DelegatedAccess | undefined,
  now: number,
): DelegatedStep {
  const login = `run \`mcp-canary login ${shownUrl(target.url)}\``;
  if (!found || 'missing' in found) {
    const why = found && 'missing' in found ? found.missing : 'the run was given none';
    return credential(`auth: no access token for the delegated grant (${why}): ${login} to store one`);
  }
  const a = found.access;
  // Before anything else is judged: a token for another server is not sent, whatever state it is in.
  const elsewhere = grantMismatch(a, target.url);
  if (elsewhere)
    return credential(
      `auth: the published delegated token is not for this server: ${elsewhere}. It was not sent. Point auth.authorizationCode.store at this target's own grant, or ${login} to store one${a.serverUrl ? '' : ' (a grant published before grants were bound is re-published bound by the refresher on its next run)'}`,
    );
  const expires = Date.parse(a.accessExpiresAt);
  const live = expires - now > ACCESS_SKEW_MS;
  const warnings: Warning[] = [];
  const days = target.credentialWarningDays;
  if (a.refreshExpiresAt && days > 0 && Date.parse(a.refreshExpiresAt) - now <= days * DAY_MS) {
    warnings.push(
      expiryWarning(
        WarningKind.credentialExpiry,
        `the delegated grant's refresh token (${login} before then)`,
        Date.parse(a.refreshExpiresAt),
        now,
      ),
    );
  }
  if (a.status === 'refused') {
    const why = a.problem?.detail ?? 'the authorization server refused the refresh token';
    if (!live)
      return credential(`auth: the canary's delegated grant was refused (${why}) and its last access token has expired: ${login} again`);
    warnings.push({
      kind: WarningKind.credentialExpiry,
      detail: `the canary's delegated grant was refused (${why}); its last access token works until ${a.accessExpiresAt}: ${login} again`,
      expiresAt: a.accessExpiresAt,
    });
  } else if (a.problem?.kind === 'unavailable') {
    if (!live) {
      return {
        result: faulted({
          failure: FailureClass.auth,
          retryable: false,
          detail: `auth: the authorization server has issued no token since ${a.problem.since} (${a.problem.detail}), and the last access token ${expires > now ? 'expires within seconds' : `expired ${inWords(expires - now)}`}: agents cannot get a token either`,
        }),
        warnings,
      };
    }
    warnings.push({
      kind: WarningKind.credentialExpiry,
      detail: `the token endpoint has not refreshed the delegated grant since ${a.problem.since} (${a.problem.detail}); the access token expires ${a.accessExpiresAt} (${inWords(expires - now)})`,
      expiresAt: a.accessExpiresAt,
    });
  } else if (!live) {
    return credential(
      `auth: the delegated grant's access token ${expires > now ? 'expires within seconds' : `expired ${inWords(expires - now)}`} and nobody renewed it: check the refresher function (its log and Errors alarm), or ${login} again`,
    );
  }
  return {
    result: passed(
      { token: a.accessToken, key: `delegated\n${a.issuer}\n${a.generation}` },
      `delegated token from ${a.issuer} (grant generation ${a.generation}, expires ${inWords(expires - now)})`,
    ),
    warnings,
  };
}

function credential(detail: string): DelegatedStep {
  return { result: faulted({ failure: FailureClass.canaryCredential, retryable: false, detail }), warnings: [] };
}
