/**
 * Access tokens per warm process (a warm Lambda, one CLI run): an access token lives about an hour
 * and a canary runs every minute, so a token request per run would load the authorization server
 * and put its latency on every run. Keyed by issuer + client + resource + scopes (+ a hash of the
 * credential, so a target with a wrong secret never borrows the token a right one got); reused until
 * shortly before `expires_in`; single-flight, so concurrent targets sharing a key make one request.
 *
 * The SDK's providers keep the last token (`tokens()`), but without its expiry time, per provider
 * instance, and with no guard against two concurrent requests: this is what they lack.
 */
import { createHash } from 'node:crypto';

/** Refresh this long before the token expires (or at half its lifetime, if that is sooner). */
export const REFRESH_BEFORE_MS = 60_000;
/** A token response without `expires_in` (and not a JWT with `exp`) is reused this long. */
export const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;

export interface IssuedToken {
  readonly accessToken: string;
  /** Wall-clock ms when the token was obtained. */
  readonly obtainedAt: number;
  /** Wall-clock ms when it expires (from `expires_in`, else the JWT's `exp`, else the default lifetime). */
  readonly expiresAt: number;
  readonly issuer: string;
  readonly tokenEndpoint: string;
}

export interface CacheKeyParts {
  /** The configured issuer or token URL, else the MCP server whose metadata names the issuer. */
  readonly authority: string;
  readonly clientId: string;
  readonly resource: string;
  readonly scopes: readonly string[];
  /** The client secret or private key: hashed into the key, never stored. */
  readonly credential: string;
}

export function cacheKey(p: CacheKeyParts): string {
  const credential = createHash('sha256').update(p.credential).digest('hex').slice(0, 16);
  return [p.authority, p.clientId, p.resource, [...p.scopes].sort().join(' '), credential].join('\n');
}

export interface Cached {
  readonly token: IssuedToken;
  /** Served from the cache (no request made by this caller). */
  readonly cached: boolean;
}

export class TokenCache {
  private readonly fresh = new Map<string, IssuedToken>();
  private readonly inFlight = new Map<string, Promise<IssuedToken>>();
  /** Token requests started, for tests and docs/oauth.md's measurements. */
  requests = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh token for `key`: the cached one, the one already being requested, or a new request. */
  async get(key: string, request: () => Promise<IssuedToken>): Promise<Cached> {
    const hit = this.fresh.get(key);
    if (hit && this.now() < refreshAt(hit)) return { token: hit, cached: true };
    const pending = this.inFlight.get(key);
    if (pending) return { token: await pending, cached: true };
    this.requests++;
    const p = request();
    this.inFlight.set(key, p);
    try {
      const token = await p;
      this.fresh.set(key, token);
      return { token, cached: false };
    } catch (e) {
      // A refused request is not kept: the next run asks again.
      this.fresh.delete(key);
      throw e;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** The MCP server refused this token: drop it so the next run gets a new one. */
  invalidate(key: string, accessToken: string): void {
    if (this.fresh.get(key)?.accessToken === accessToken) this.fresh.delete(key);
  }
}

function refreshAt(t: IssuedToken): number {
  const lifetime = t.expiresAt - t.obtainedAt;
  return t.expiresAt - Math.min(REFRESH_BEFORE_MS, lifetime / 2);
}

/** The process's cache: one per warm Lambda container, one per CLI run. */
export const processTokenCache = new TokenCache();
