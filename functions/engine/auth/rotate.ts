/**
 * Keeps one delegated grant fresh without ever racing itself.
 *
 * Why this shape: an authorization server that rotates refresh tokens (OAuth 2.1 §4.3.1 for public
 * clients; oidc-provider, Okta, Auth0, Entra with rotation on) accepts each refresh token exactly once,
 * and many treat a second use as theft and revoke the whole grant. So two refreshers holding the same
 * refresh token — two warm Lambdas, two regions, a duplicate Scheduler delivery, two laptops — end the
 * grant for everybody. Therefore:
 * - exactly one party refreshes: the home-region writer (functions/lambdas/refresh) for a Secrets Manager store,
 *   the CLI under a file lock for a file store. Probe runs only read the published access token;
 * - even that party first takes a **lease** with a compare-and-swap on the store (only one swap from a
 *   given version can win), so a duplicate invocation that read the same version loses before it sends
 *   the refresh token, not after;
 * - the rotated refresh token is stored (swap from the lease's version) **before** the access token is
 *   published anywhere: a crash after the store loses nothing (the next run publishes), and a crash
 *   before it is the one window no design can close (the server already rotated), kept to one request;
 * - a refused grant (`invalid_grant`) is kept as `refused` and never sent again: retrying cannot mend
 *   it, and a person must run `mcp-canary login` again.
 */
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import type { GrantStore, GrantVersion, StoredGrant } from '../../base/config/schema/oauth-delegated.ts';
import { grantMismatch } from './binding.ts';
import { refreshGrant, type RefreshDeps } from './refresh.ts';
import { shownUrl } from '../../base/common/shown-url.ts';

/** Renew at half the access token's lifetime, or this long before it expires, whichever comes first. */
export const DEFAULT_REFRESH_LEAD_MS = 10 * 60_000;
/** A lease outlives one refresh request (its timeout) with room to store the answer. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * Waits between tries of storing a rotated refresh token: about 15 s in all, inside the lease (60 s) and
 * the refresher's timeout, beside the SDK's own 3 attempts per try.
 */
export const STORE_RETRY_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000];

export interface KeepFreshDeps extends RefreshDeps {
  /** @default STORE_RETRY_DELAYS_MS */
  readonly storeRetryDelaysMs?: readonly number[];
  /** Who takes the lease (a request id): two holders never share one. */
  readonly holder: string;
  /** @default DEFAULT_REFRESH_LEAD_MS */
  readonly refreshLeadMs?: number;
  /** @default DEFAULT_LEASE_MS */
  readonly leaseMs?: number;
  /**
   * The URL the grant is used for: a grant logged in to another server (binding.ts) is `mismatch`, read
   * but neither refreshed nor returned for use. @default - not checked
   */
  readonly serverUrl?: string;
}

/**
 * - `fresh`: nothing to do; `refreshed`: a new access token is stored;
 * - `busy`: another refresher holds the lease (or won the swap): it is doing the work;
 * - `refused`: the grant is gone (kept so; `detail` says why); `unavailable`: the token endpoint did not
 *   answer, the old access token stays until it expires;
 * - `missing`: the store holds no grant (no login yet); `mismatch`: it holds the grant of another server
 *   (`detail` says which): untouched, no request was made with it, and it is not to be used or published.
 */
export type KeepFreshResult =
  | {
      readonly kind: 'fresh' | 'refreshed' | 'busy' | 'refused' | 'unavailable' | 'mismatch';
      readonly grant: StoredGrant;
      readonly detail?: string;
    }
  | { readonly kind: 'missing' };

export function refreshDue(g: StoredGrant, now: number, leadMs = DEFAULT_REFRESH_LEAD_MS): boolean {
  const issued = Date.parse(g.accessIssuedAt);
  const expires = Date.parse(g.accessExpiresAt);
  // The lead matters for long tokens (a day-long token still renews 10 minutes before its end if a run
  // was missed at half life); a short token renews at half life, never on every run.
  return now >= issued + (expires - issued) / 2 || expires - now <= Math.min(leadMs, (expires - issued) / 2);
}

export async function keepFresh(store: GrantStore, d: KeepFreshDeps): Promise<KeepFreshResult> {
  const read = await store.read();
  if (!read) return { kind: 'missing' };
  tell(read.grant, d.onSecret);
  const elsewhere = d.serverUrl === undefined ? null : grantMismatch(read.grant, d.serverUrl);
  if (elsewhere && d.serverUrl !== undefined)
    return {
      kind: 'mismatch',
      grant: read.grant,
      detail: `${store.label} holds a grant that is not for ${shownUrl(d.serverUrl)}: ${elsewhere}`,
    };
  const now = d.now();
  const { grant } = read;
  if (grant.status === 'refused') return { kind: 'refused', grant, detail: grant.problem?.detail ?? 'the grant was refused' };
  if (!refreshDue(grant, now, d.refreshLeadMs)) return { kind: 'fresh', grant };
  if (grant.lease && grant.lease.holder !== d.holder && Date.parse(grant.lease.until) > now) return { kind: 'busy', grant };
  const leased: StoredGrant = {
    ...grant,
    lease: { holder: d.holder, until: new Date(now + (d.leaseMs ?? DEFAULT_LEASE_MS)).toISOString() },
  };
  const leaseVersion = await store.swap(read.version, leased);
  if (leaseVersion === false) return busyNow(store, grant, d);
  const outcome = await refreshGrant(grant, d);
  const since = grant.problem?.kind === outcome.kind && grant.problem.since ? grant.problem.since : new Date(d.now()).toISOString();
  const { lease: _lease, ...unleased } = grant;
  const next: StoredGrant =
    outcome.kind === 'refreshed'
      ? outcome.grant
      : outcome.kind === 'refused'
        ? { ...unleased, status: 'refused', problem: { kind: 'refused', detail: outcome.detail, since } }
        : { ...unleased, problem: { kind: 'unavailable', detail: outcome.detail, since } };
  const stored = await storeRotated(store, leaseVersion, next, d);
  if (stored === false) {
    // Our lease ran out while the token endpoint was slow and someone else swapped: if they did not
    // refresh (the stored refresh token is still the one we sent), ours is the only live one: store it.
    const again = await store.read();
    if (!again || again.grant.refreshToken !== grant.refreshToken || (await store.swap(again.version, next)) === false) {
      return again ? { kind: 'busy', grant: again.grant } : { kind: 'missing' };
    }
  }
  return outcome.kind === 'refreshed' ? { kind: 'refreshed', grant: next } : { kind: outcome.kind, grant: next, detail: outcome.detail };
}

/**
 * The store of a refresh answer, tried until it lands: the server has already rotated, so the refresh
 * token in `next` is the grant's only live one, and an error here (throttled, an answer lost after the
 * write landed or before it) would lose it — the next run would send the old one, which a rotating
 * server refuses and may take as theft, revoking the grant. Each try is the same swap from the same
 * version with the same value, so a write that landed answers the retry as done (Secrets Manager's
 * ClientRequestToken; a file store sees its own write and says false, read below).
 */
async function storeRotated(store: GrantStore, leaseVersion: string, next: StoredGrant, d: KeepFreshDeps): Promise<string | false> {
  const delays = d.storeRetryDelaysMs ?? STORE_RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await store.swap(leaseVersion, next);
    } catch (e) {
      if (attempt >= delays.length) {
        throw new CanaryError(
          CanaryErrorCode.grantStore,
          `${(e as Error).message} The refresh token was rotated but could not be stored after ${attempt + 1} tries: if the next refresh is refused, run \`mcp-canary login\` again.`,
          { store: store.label, problem: 'not_stored' },
          { cause: e },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

async function busyNow(store: GrantStore, grant: StoredGrant, d: KeepFreshDeps): Promise<KeepFreshResult> {
  const now: GrantVersion | null = await store.read();
  if (now) tell(now.grant, d.onSecret);
  return { kind: 'busy', grant: now?.grant ?? grant };
}

function tell(g: StoredGrant, onSecret: (v: string) => void): void {
  onSecret(g.accessToken);
  if (g.refreshToken) onSecret(g.refreshToken);
  if (g.client.client_secret) onSecret(g.client.client_secret);
}
