/**
 * What the CLI's OAuth flags (declared in flags.ts) put in the target, and which flag a config error
 * under `auth.oauth` names. Built here, not field by field: one flag's meaning depends on the others
 * (a secret or a key, the algorithm only with a key). The client secret is never a flag value (it would
 * sit in shell history and `ps`): the flag names the environment variable holding it.
 */
import type { TargetInput } from '../base/config/schema/target.ts';
import { configError } from '../base/common/errors.ts';

type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The `auth` the OAuth flags set; nothing when none is given. */
export function oauthInput(raw: Values): Pick<TargetInput, 'auth'> {
  const out: Pick<TargetInput, 'auth'> = {};
  const v = raw as Readonly<Record<string, string | undefined>> & { readonly 'oauth-allow-private-network'?: boolean };
  const anyOAuth = Object.keys(raw).some((k) => k.startsWith('oauth-') && raw[k] !== undefined);
  const grantFile = v['grant-file'];
  if (grantFile !== undefined) {
    if (anyOAuth)
      throw configError('--grant-file (a delegated grant) and the --oauth-* flags (client credentials) are two kinds of auth: give one.');
    return { auth: { authorizationCode: { store: { file: grantFile } } } };
  }
  if (!anyOAuth) return out;
  if (v['oauth-client-id'] === undefined)
    throw configError("the --oauth-* flags need --oauth-client-id ID: name the canary's OAuth client.");
  if ((v['oauth-client-secret-env'] === undefined) === (v['oauth-private-key-file'] === undefined)) {
    throw configError(
      'give exactly one of --oauth-client-secret-env NAME (the secret in env var NAME) or --oauth-private-key-file PATH (a PEM key).',
    );
  }
  if (v['oauth-alg'] !== undefined && v['oauth-private-key-file'] === undefined)
    throw configError('--oauth-alg goes with --oauth-private-key-file PATH.');
  out.auth = {
    oauth: {
      clientId: v['oauth-client-id']!,
      ...(v['oauth-client-secret-env'] !== undefined ? { clientSecret: { env: v['oauth-client-secret-env'] } } : {}),
      ...(v['oauth-private-key-file'] !== undefined
        ? {
            privateKeyJwt: {
              privateKey: { file: v['oauth-private-key-file'] },
              ...(v['oauth-alg'] !== undefined ? { alg: v['oauth-alg'] as never } : {}),
            },
          }
        : {}),
      ...(v['oauth-scope'] !== undefined ? { scopes: v['oauth-scope'].split(/\s+/).filter(Boolean) } : {}),
      ...(v['oauth-resource'] !== undefined ? { resource: v['oauth-resource'] } : {}),
      ...(v['oauth-token-url'] !== undefined ? { tokenUrl: v['oauth-token-url'] } : {}),
      ...(v['oauth-issuer'] !== undefined ? { issuer: v['oauth-issuer'] } : {}),
      ...(v['oauth-allow-private-network'] ? { allowPrivateNetwork: true } : {}),
    },
  };
  return out;
}

const FLAG_FOR_OAUTH_FIELD: Record<string, string> = {
  clientId: '--oauth-client-id',
  clientSecret: '--oauth-client-secret-env',
  privateKeyJwt: '--oauth-private-key-file',
  scopes: '--oauth-scope',
  resource: '--oauth-resource',
  tokenUrl: '--oauth-token-url',
  issuer: '--oauth-issuer',
  allowPrivateNetwork: '--oauth-allow-private-network',
};

/** The flag a config path under `auth.oauth` came from, or undefined. */
export function oauthFlagFor(path: readonly string[]): string | undefined {
  const [head, , field, sub] = path;
  if (head !== 'auth') return undefined;
  if (field === 'privateKeyJwt' && sub === 'alg') return '--oauth-alg';
  return FLAG_FOR_OAUTH_FIELD[field ?? ''] ?? '--oauth-*';
}
