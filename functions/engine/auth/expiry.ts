/**
 * Warnings before something the canary depends on expires, while the endpoint still works: a static
 * bearer that is a JWT whose `exp` is near, an OAuth secret whose reference records `expiresAt`, and
 * the endpoint's TLS certificate. They ticket, never page, and never change the outcome. A token the
 * canary obtains and refreshes itself never warns.
 */
import type { TlsMaterial } from '../../base/common/run-context.ts';
import type { OAuthSecretRef, OAuthSettings } from '../../base/config/schema/oauth.ts';
import { WarningKind, type Warning } from '../../base/common/verdict.ts';
import { readCertificate } from '../../base/net/certificate.ts';

const DAY_MS = 86_400_000;
/** The certificate is looked at once an hour per origin per warm process, never on every run. */
export const CERT_CHECK_INTERVAL_MS = 3_600_000;
/** The certificate look is a side path: it never holds the verdict longer than this. */
export const CERT_CHECK_TIMEOUT_MS = 3_000;

/**
 * The `exp` of a JWT in ms, or null when the value is not a JWT with a numeric `exp`. Not verified:
 * only the expiry is read, to warn; the server judges the signature. (A JWT library would add a
 * dependency for three lines.)
 */
export function jwtExpiry(value: string): number | null {
  const token = value.trim().replace(/^(bearer|dpop)\s+/i, '');
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' && Number.isFinite(payload.exp) ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** "in 3 days", "in 5 hours", "2 days ago". */
export function inWords(ms: number): string {
  const abs = Math.abs(ms);
  const [n, unit] =
    abs >= 1.5 * DAY_MS
      ? [Math.round(abs / DAY_MS), 'day']
      : abs >= 2 * 3_600_000
        ? [Math.round(abs / 3_600_000), 'hour']
        : [Math.max(1, Math.round(abs / 60_000)), 'minute'];
  const words = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms >= 0 ? `in ${words}` : `${words} ago`;
}

export function expiryWarning(kind: Warning['kind'], what: string, expiresAt: number, now: number): Warning {
  const iso = new Date(expiresAt).toISOString();
  const when = expiresAt > now ? `expires ${iso} (${inWords(expiresAt - now)})` : `expired ${iso} (${inWords(expiresAt - now)})`;
  return { kind, detail: `${what} ${when}`, expiresAt: iso };
}

/** Static headers whose value is a JWT expiring within `days`. Names the header, never the value. */
export function bearerWarnings(headers: Record<string, string>, days: number, now: number): Warning[] {
  if (days <= 0) return [];
  const out: Warning[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const exp = jwtExpiry(value);
    if (exp !== null && exp - now <= days * DAY_MS)
      out.push(expiryWarning(WarningKind.credentialExpiry, `the JWT in header ${name}`, exp, now));
  }
  return out;
}

/** OAuth secret references that record an `expiresAt` within `days`. */
export function secretRefWarnings(oauth: OAuthSettings | undefined, days: number, now: number): Warning[] {
  if (!oauth || days <= 0) return [];
  const refs: Array<[string, OAuthSecretRef | undefined]> = [
    ['auth.oauth.clientSecret', oauth.clientSecret],
    ['auth.oauth.privateKeyJwt.privateKey', oauth.privateKeyJwt?.privateKey],
  ];
  const out: Warning[] = [];
  for (const [field, ref] of refs) {
    if (!ref?.expiresAt) continue;
    const exp = Date.parse(ref.expiresAt);
    if (exp - now <= days * DAY_MS)
      out.push(expiryWarning(WarningKind.credentialExpiry, `the OAuth credential ${field} (client ${oauth.clientId})`, exp, now));
  }
  return out;
}

/** The target's client certificate (`tls.clientCertificate`) when it expires within `days`: a ticket, never a page, until it has expired. */
export function clientCertificateWarnings(tls: TlsMaterial | undefined, days: number, now: number): Warning[] {
  if (!tls?.certNotAfter || days <= 0 || tls.certNotAfter - now > days * DAY_MS) return [];
  const what = `the client certificate in tls.clientCertificate (${tls.certSubject ?? 'its subject unknown'})`;
  return [expiryWarning(WarningKind.credentialExpiry, what, tls.certNotAfter, now)];
}

/** Reads the certificate's `notAfter` (ms) of host:port; rejects on any failure. */
export type CertificateReader = (host: string, port: number, timeoutMs: number) => Promise<number>;

/**
 * The endpoint's certificate, looked at once an hour per origin: a separate TLS handshake beside the
 * run (not before it), so 59 runs in 60 make no extra connection and the one that does waits for it
 * only while its budget lasts (judge passes the budget signal). Trust is not judged here (the probes
 * do that and fail `tls`); only the expiry date is read.
 */
export class CertificateWatch {
  private readonly seen = new Map<string, { readonly at: number; readonly notAfter: Promise<number | null> }>();
  /** Handshakes made, for tests and docs/oauth.md's measurements. */
  handshakes = 0;

  constructor(
    private readonly read: CertificateReader = readCertificate,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = CERT_CHECK_INTERVAL_MS,
  ) {}

  async warning(url: string, days: number): Promise<Warning | null> {
    if (days <= 0) return null;
    const u = new URL(url);
    if (u.protocol !== 'https:') return null;
    const origin = u.origin;
    let entry = this.seen.get(origin);
    if (!entry || this.now() - entry.at >= this.intervalMs) {
      this.handshakes++;
      const port = Number(u.port || 443);
      // A failed look is kept for the interval too: the probes report a broken TLS endpoint.
      entry = { at: this.now(), notAfter: this.read(u.hostname.replace(/^\[|\]$/g, ''), port, CERT_CHECK_TIMEOUT_MS).catch(() => null) };
      this.seen.set(origin, entry);
    }
    const notAfter = await entry.notAfter;
    const now = this.now();
    if (notAfter === null || notAfter - now > days * DAY_MS) return null;
    return expiryWarning(WarningKind.certificateExpiry, `the TLS certificate of ${u.host}`, notAfter, now);
  }
}

/** The process's watch: one per warm Lambda container, one per CLI run. */
export const processCertificateWatch = new CertificateWatch();
