/**
 * The OAuth secrets of a target, read by their references: an environment variable or a file here,
 * Secrets Manager / SSM through the caller's reader (the scheduled run's SecretReader, with its cache
 * and its error words). Values are returned, never logged; a failure names the field and the fix.
 */
import { readFile } from 'node:fs/promises';
import type { OAuthSecretRef, OAuthSettings } from '../schema/oauth.ts';
import { CanaryError, CanaryErrorCode } from '../../common/errors.ts';
import { accessSecretName, type AuthorizationCodeSettings, type PublishedAccess } from '../schema/oauth-delegated.ts';

/**
 * A delegated grant's access token as the probe finds it (`auth.authorizationCode`): published by the
 * refresher (or refreshed by the CLI), or why there is none. Never the refresh token.
 */
export type DelegatedAccess = { readonly access: PublishedAccess } | { readonly missing: string };

/** The resolved OAuth secrets of a target (never in config, never logged). */
export interface OAuthSecrets {
  readonly clientSecret?: string;
  readonly privateKey?: string;
  /** `auth.authorizationCode`: the access token to send, read from where the refresher publishes it. */
  readonly delegated?: DelegatedAccess;
}

/** Reads a store reference (Secrets Manager, SSM); `field` is for the error message. */
export type StoreReader = (
  field: string,
  ref: Extract<OAuthSecretRef, { secretsManager: string } | { ssmParameter: string }>,
) => Promise<string>;

export async function resolveOAuthSecrets(
  oauth: OAuthSettings | undefined,
  readStore: StoreReader | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OAuthSecrets> {
  if (!oauth) return {};
  const read = async (field: string, ref: OAuthSecretRef): Promise<string> => {
    let value: string | undefined;
    if ('env' in ref) {
      value = env[ref.env];
      if (!value?.trim()) throw secretError(`${field}: environment variable ${ref.env} is not set or empty. Export the secret in it.`);
    } else if ('file' in ref) {
      try {
        value = await readFile(ref.file, 'utf8');
      } catch (e) {
        throw secretError(
          `${field}: cannot read file ${JSON.stringify(ref.file)} (${(e as { code?: string }).code ?? 'error'}). Check the path.`,
          e,
        );
      }
    } else {
      if (!readStore)
        throw secretError(
          `${field}: a ${'secretsManager' in ref ? 'Secrets Manager' : 'SSM'} reference is read by the scheduled run only. For the CLI, use --oauth-client-secret-env or --oauth-private-key-file.`,
        );
      value = await readStore(field, ref);
    }
    const trimmed = value.trim();
    if (!trimmed) throw secretError(`${field} is empty. Put the credential in it.`);
    return trimmed;
  };
  const [clientSecret, privateKey] = await Promise.all([
    oauth.clientSecret ? read('auth.oauth.clientSecret', oauth.clientSecret) : undefined,
    oauth.privateKeyJwt ? read('auth.oauth.privateKeyJwt.privateKey', oauth.privateKeyJwt.privateKey) : undefined,
  ]);
  return { ...(clientSecret ? { clientSecret } : {}), ...(privateKey ? { privateKey: pem(privateKey) } : {}) };
}

/**
 * What the Redactor must know of these secrets. A PEM key is given as its base64 body lines, not
 * whole: the Redactor also redacts every whitespace-separated part of a secret, and "PRIVATE" or
 * "-----BEGIN" would then be cut out of every line the canary writes.
 */
export function redactionValues(s: OAuthSecrets): string[] {
  const out: string[] = [];
  if (s.clientSecret) out.push(s.clientSecret);
  if (s.delegated && 'access' in s.delegated) out.push(s.delegated.access.accessToken);
  if (s.privateKey) {
    const body = s.privateKey
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('-----'));
    out.push(...body, body.join(''));
  }
  return out;
}

/** A key stored with literal "\n" (a JSON secret, an env var) is turned back into lines. */
function pem(value: string): string {
  return value.includes('-----BEGIN') && !value.includes('\n') ? value.replace(/\\n/g, '\n') : value;
}

function secretError(message: string, cause?: unknown): CanaryError {
  return new CanaryError(CanaryErrorCode.secret, message, { unavailable: false }, cause === undefined ? undefined : { cause });
}

/**
 * The target's OAuth secrets that live in Secrets Manager or SSM, shaped as header secret references:
 * what the deployed function must be allowed to read (infra/plan/plan.ts adds them to `headerSecrets`).
 */
export function oauthStoreRefs(oauth: OAuthSettings | undefined): Array<{ secretsManager: string } | { ssmParameter: string }> {
  const out: Array<{ secretsManager: string } | { ssmParameter: string }> = [];
  for (const r of [oauth?.clientSecret, oauth?.privateKeyJwt?.privateKey]) {
    if (r && 'secretsManager' in r) out.push({ secretsManager: r.secretsManager });
    else if (r && 'ssmParameter' in r) out.push({ ssmParameter: r.ssmParameter });
  }
  return out;
}

/**
 * The target's OAuth references a deployed function cannot read (`env`, `file`: the CLI's), as
 * config paths, for a synth-time check: "auth.oauth.clientSecret is { env } — deploy it with
 * { secretsManager } or { ssmParameter }".
 */
export function localOnlyRefs(oauth: OAuthSettings | undefined, delegated?: AuthorizationCodeSettings): string[] {
  const refs: Array<[string, OAuthSecretRef | undefined]> = [
    ['auth.oauth.clientSecret', oauth?.clientSecret],
    ['auth.oauth.privateKeyJwt.privateKey', oauth?.privateKeyJwt?.privateKey],
  ];
  const local = refs.filter(([, r]) => r && ('env' in r || 'file' in r)).map(([field]) => field);
  // A grant in a file is the CLI's: the deployed runs read the access token the refresher publishes.
  return delegated && 'file' in delegated.store ? [...local, 'auth.authorizationCode.store'] : local;
}

/** The published access token of a delegated grant, as the reference the probe runs read (by name, in their region). */
export function delegatedAccessRef(delegated: AuthorizationCodeSettings | undefined): { secretsManager: string } | undefined {
  return delegated && 'secretsManager' in delegated.store
    ? { secretsManager: accessSecretName(delegated.store.secretsManager) }
    : undefined;
}
