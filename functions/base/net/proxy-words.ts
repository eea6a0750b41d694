/**
 * A forward proxy in the path, in on-call's words, and the one destination it must never carry.
 *
 * Whose fault: through a proxy the canary's only connection is to the proxy; a refused CONNECT (407
 * without or with wrong credentials, 403 by policy, 502/503/504 when the proxy cannot reach the host)
 * and a proxy that does not answer are the proxy's, said with its origin (never its credentials), not
 * blamed on the endpoint. A TLS failure inside the tunnel is still the endpoint's.
 *
 * What it must not carry: the proxy resolves the host itself, so the connect-time DNS check of the
 * SSRF guard (ssrf-guard.ts) cannot see that connection. The guard's check before each OAuth request
 * still runs (it resolves the host here); beside it, every request through a proxy is refused here when
 * its host is, or resolves to, a cloud metadata address — the proxy's own network may have one.
 */
import { lookup } from 'node:dns/promises';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { CanaryError, CanaryErrorCode, isCanaryError } from '../common/errors.ts';
import { addressKind } from './ssrf-guard.ts';

/** How long the metadata check waits for this side's DNS before leaving the name to the proxy. */
const LOOKUP_TIMEOUT_MS = 1_000;
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;
const FORWARD_REFUSED = /^Proxy Authentication Required \(407\)/;
const PROXY_NET =
  /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET)$/;

/** Words for a failure that was the proxy's (`the proxy http://proxy:3128 refused CONNECT: 407 …`), or null when it was not. */
export function proxyFailure(e: unknown, proxyUrl: string): { words: string; retryable: boolean } | null {
  const proxy = new URL(proxyUrl);
  const port = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  for (let cur: unknown = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (isCanaryError(cur, CanaryErrorCode.proxyTunnel))
      return { words: `the proxy ${shown(proxyUrl)} ${cur.data.what}; the endpoint was not reached`, retryable: true };
    // A plain http:// request the proxy was asked to forward (no tunnel, as curl does): undici ends it on a 407.
    if (FORWARD_REFUSED.test((cur as Error).message ?? ''))
      return {
        words: `the proxy ${shown(proxyUrl)} refused to forward the request: 407 (Proxy Authentication Required): set or fix the proxy credentials (proxy.credentials; for the CLI, user:password in HTTP_PROXY); the endpoint was not reached`,
        retryable: false,
      };
    const m = TUNNEL_REFUSED.exec((cur as Error).message ?? '');
    if (m) {
      const status = Number(m[1]);
      const why = STATUS_CODES[status] ?? 'refused';
      const fix =
        status === 407
          ? ': set or fix the proxy credentials (proxy.credentials; for the CLI, user:password in HTTPS_PROXY)'
          : status === 403
            ? ': the proxy policy does not allow this host; allow it there, or list it in NO_PROXY'
            : status >= 500
              ? ': the proxy could not reach the endpoint'
              : '';
      return {
        words: `the proxy ${shown(proxyUrl)} refused CONNECT: ${status} (${why})${fix}; the endpoint was not reached`,
        retryable: status >= 500,
      };
    }
    const err = cur as { code?: unknown; port?: unknown; address?: unknown; hostname?: unknown };
    if (typeof err.code === 'string' && PROXY_NET.test(err.code)) {
      const toProxy = err.port === port || err.hostname === host || err.address === host;
      if (toProxy)
        return { words: `the proxy ${shown(proxyUrl)} cannot be reached (${err.code}); the endpoint was not tried`, retryable: true };
    }
  }
  return null;
}

function shown(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** Refuses a request through a proxy whose host is, or resolves to, a cloud metadata address. */
export async function refuseThroughProxy(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A host this side cannot resolve (only the proxy can), or not in time, is the proxy's to resolve: a
  // metadata *literal* is still caught, and OAuth URLs are judged by the guard's own rules besides.
  const resolved = lookup(host, { all: true }).then(
    (r) => r.map((a) => a.address),
    () => [],
  );
  const cut = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS).unref());
  const addresses = isIP(host) ? [host] : await Promise.race([resolved, cut]);
  const metadata = addresses.find((a) => addressKind(a) === 'cloud metadata');
  if (metadata) {
    throw new CanaryError(
      CanaryErrorCode.guardRefused,
      `refused to send ${url.origin} through the proxy: a cloud metadata address (${metadata}), never followed`,
      { url: url.origin, reason: `a cloud metadata address (${metadata}) through the proxy` },
    );
  }
}
