/**
 * Which credential a run speaks with, named without revealing it: a private tool list is recorded
 * and compared per credential. The id is derived from the header names and values the target sends,
 * the same wherever the same headers are sent (the CLI's `snapshot` and the scheduled run, which reads
 * them from Secrets Manager).
 *
 * The id is printed into configs and warnings, so it must not let anyone test guesses of a short API
 * key offline: scrypt (a deliberately slow, memory-hard hash, ~30 ms here) instead of one SHA-256, with
 * a fixed salt because the id must be reproducible on every machine. Computed once per header set and
 * process.
 */
import { scryptSync } from 'node:crypto';

const ANONYMOUS = 'anonymous';

const SALT = 'mcp-canary catalog credential v1';
/** scrypt cost 2^14 with r = 8: 16 MiB and tens of milliseconds a guess. */
const COST = { N: 2 ** 14, r: 8, p: 1 } as const;
const ids = new Map<string, string>();

export function credentialId(headers: Readonly<Record<string, string>>): string {
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name.toLowerCase()}:${value.trim()}`)
    .sort()
    .join('\n');
  if (lines === '') return ANONYMOUS;
  let id = ids.get(lines);
  if (id === undefined) {
    id = `cred-${scryptSync(lines, SALT, 6, COST).toString('hex')}`;
    ids.set(lines, id);
  }
  return id;
}

/**
 * The headers that name a target's credential. An OAuth target's Authorization header is the token the
 * canary fetched and refreshes itself, a new value every hour: its OAuth client names the credential.
 */
export function credentialHeaders(target: {
  readonly headers: Readonly<Record<string, string>>;
  readonly auth?:
    | { readonly oauth?: { readonly clientId: string } | undefined; readonly authorizationCode?: { readonly store: object } | undefined }
    | undefined;
}): Record<string, string> {
  if (!target.auth) return { ...target.headers };
  const own = Object.fromEntries(Object.entries(target.headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
  // A delegated grant is named by where it is stored: a new login into the same store is the same credential.
  const named = target.auth.oauth ? target.auth.oauth.clientId : JSON.stringify(target.auth.authorizationCode?.store ?? {});
  return { ...own, 'oauth-client': named };
}
