/**
 * The CLI's OAuth and warning flags, declared once: their parseArgs options, their help lines, what
 * they put in the target, and which flag a config error names. The client secret is never a flag
 * value (it would sit in shell history and `ps`): the flag names the environment variable holding it.
 */
import type { TargetInput } from '../config/target.ts';
import { configError } from '../errors.ts';

export const OAUTH_OPTIONS = {
  'oauth-client-id': { type: 'string' },
  'oauth-client-secret-env': { type: 'string' },
  'oauth-private-key-file': { type: 'string' },
  'oauth-alg': { type: 'string' },
  'oauth-scope': { type: 'string' },
  'oauth-resource': { type: 'string' },
  'oauth-token-url': { type: 'string' },
  'oauth-issuer': { type: 'string' },
  'oauth-allow-private-network': { type: 'boolean' },
  'cert-warning-days': { type: 'string' },
  'credential-warning-days': { type: 'string' },
} as const;

type Values = { readonly [K in keyof typeof OAUTH_OPTIONS]?: (typeof OAUTH_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** The target fields these flags set; nothing when none is given. */
export function oauthInput(v: Values): Pick<TargetInput, 'auth' | 'certWarningDays' | 'credentialWarningDays'> {
  const out: Pick<TargetInput, 'auth' | 'certWarningDays' | 'credentialWarningDays'> = {};
  if (v['cert-warning-days'] !== undefined) out.certWarningDays = days('--cert-warning-days', v['cert-warning-days']);
  if (v['credential-warning-days'] !== undefined)
    out.credentialWarningDays = days('--credential-warning-days', v['credential-warning-days']);
  const anyOAuth = Object.keys(v).some((k) => k.startsWith('oauth-') && v[k as keyof Values] !== undefined);
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
      clientId: v['oauth-client-id'],
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
  certWarningDays: '--cert-warning-days',
  credentialWarningDays: '--credential-warning-days',
};

/** The flag a config path under `auth.oauth` (or a warning field) came from, or undefined. */
export function oauthFlagFor(path: readonly string[]): string | undefined {
  const [head, , field, sub] = path;
  if (head === 'certWarningDays' || head === 'credentialWarningDays') return FLAG_FOR_OAUTH_FIELD[head];
  if (head !== 'auth') return undefined;
  if (field === 'privateKeyJwt' && sub === 'alg') return '--oauth-alg';
  return FLAG_FOR_OAUTH_FIELD[field ?? ''] ?? '--oauth-*';
}

function days(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw configError(`${flag} must be a whole number of days, got "${raw}"`);
  return Number(raw);
}
