/**
 * The SSRF guard for OAuth URLs. The canary runs server-side (a Lambda inside an AWS account), and
 * discovery makes it fetch URLs a remote server hands it: protected-resource metadata, authorization
 * server metadata, a token endpoint. The MCP authorization spec's security guidance for server-side
 * clients says to refuse private, link-local and cloud-metadata addresses and to check every redirect
 * hop; no library here does that, so it is written once, here.
 *
 * Rules, for every request (every redirect hop is a request of its own: redirects are never followed
 * by fetch itself), checked before the request and again when the connection resolves the host:
 * - https only; plain http only to a loopback host, and only when the MCP target is itself on
 *   loopback (a local server under test) — the Lambda's own loopback is its runtime API;
 * - the host's every address (a literal, or what DNS answers) must be public: no private, shared,
 *   loopback, link-local or unspecified address unless the target sets `allowPrivateNetwork`;
 * - cloud metadata endpoints (169.254.169.254, fd00:ec2::254, 169.254.170.2, 100.100.100.200) are
 *   refused always: no authorization server lives there, and credentials do.
 */
import { CanaryError, CanaryErrorCode, isCanaryError } from '../common/errors.ts';
import { shownUrl } from '../common/shown-url.ts';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { FetchLike, Reach } from '../common/run-context.ts';
import { nodeFetch, siblingAgent } from './dispatcher.ts';
import { proxyUrlOf, tlsOptions } from './reach.ts';

export interface GuardOptions {
  /** The target opted in to authorization servers on private addresses. */
  readonly allowPrivateNetwork: boolean;
  /** The MCP target itself is on loopback: loopback (and plain http to it) is allowed. */
  readonly loopbackAllowed: boolean;
  /** Resolves a host name to its addresses. @default - the system resolver, every address */
  readonly lookup?: (host: string) => Promise<string[]>;
  /**
   * Requests go out through a forward proxy, which resolves names itself: a network whose only way out
   * is the proxy often resolves no outside name at all. A name this side cannot resolve is then the
   * proxy's to resolve, not a refusal (proxy-words.ts still refuses a metadata address through it, and
   * a name that does resolve here is judged by its addresses). @default false
   */
  readonly viaProxy?: boolean;
}

/** A URL the guard refused: a `CanaryError` with code `GUARD_REFUSED`; `reason` is one phrase, e.g. "a private address (10.0.0.7)". */
export class GuardRefusal extends CanaryError<'GUARD_REFUSED'> {
  override readonly name = 'GuardRefusal';
  constructor(url: string, reason: string) {
    super(CanaryErrorCode.guardRefused, `refused to fetch ${url}: ${reason}`, { url, reason });
  }
  get url(): string {
    return this.data.url;
  }
  get reason(): string {
    return this.data.reason;
  }
}

const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'];

type Kind = 'cloud metadata' | 'loopback' | 'link-local' | 'private';

const ranges: ReadonlyArray<readonly [Kind, BlockList]> = (() => {
  const make = (v4: string[], v6: string[]) => {
    const b = new BlockList();
    for (const r of v4) b.addSubnet(r.split('/')[0]!, Number(r.split('/')[1]), 'ipv4');
    for (const r of v6) b.addSubnet(r.split('/')[0]!, Number(r.split('/')[1]), 'ipv6');
    return b;
  };
  const metadata = new BlockList();
  for (const a of METADATA) metadata.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  return [
    ['cloud metadata', metadata],
    ['loopback', make(['127.0.0.0/8'], ['::1/128'])],
    ['link-local', make(['169.254.0.0/16'], ['fe80::/10'])],
    // RFC 1918, shared (CGNAT), "this network", benchmarking, multicast and reserved; IPv6 unique-local, unspecified, multicast.
    [
      'private',
      make(
        ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '0.0.0.0/8', '198.18.0.0/15', '224.0.0.0/3'],
        ['fc00::/7', '::/128', 'ff00::/8'],
      ),
    ],
  ] as const;
})();

/** What kind of non-public address this is, or null for a public one. */
export function addressKind(address: string): Kind | null {
  let a = address.replace(/^\[|\]$/g, '');
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  const family = isIP(a) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of ranges) if (list.check(a, family)) return kind;
  return null;
}

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Checks one URL before it is fetched; throws GuardRefusal naming the rule. */
export async function checkUrl(raw: string | URL, o: GuardOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new GuardRefusal(String(raw), 'not a URL');
  }
  const shown = shownUrl(url.href);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0;
  const addresses = literal
    ? [host]
    : isLoopbackName(host)
      ? ['127.0.0.1']
      : await resolve(host, shown, o).catch((e: unknown) => {
          if (o.viaProxy) return [];
          throw e;
        });
  const kinds = addresses.map((a) => [a, addressKind(a)] as const);
  // No address (a name only the proxy resolves) is never loopback: plain http stays refused for it.
  const loopbackOnly = kinds.length > 0 && kinds.every(([, k]) => k === 'loopback');
  if (url.protocol !== 'https:') {
    if (url.protocol !== 'http:' || !loopbackOnly || !o.loopbackAllowed) {
      throw new GuardRefusal(
        shown,
        `${url.protocol.replace(':', '')} is not allowed for OAuth URLs: https only (plain http only to loopback, when the target is on loopback)`,
      );
    }
  }
  for (const [address, kind] of kinds) refuseAddress(shown, address, kind, o);
  return url;
}

function refuseAddress(shown: string, address: string, kind: Kind | null, o: GuardOptions): void {
  if (kind === null) return;
  if (kind === 'cloud metadata') throw new GuardRefusal(shown, `a cloud metadata address (${address}), never followed`);
  if (kind === 'loopback' && o.loopbackAllowed) return;
  if (!o.allowPrivateNetwork) {
    throw new GuardRefusal(
      shown,
      `a ${kind} address (${address}); set auth.oauth.allowPrivateNetwork (--oauth-allow-private-network) if the authorization server really is on a private network`,
    );
  }
}

async function resolve(host: string, shown: string, o: GuardOptions): Promise<string[]> {
  let found: string[];
  try {
    found = o.lookup ? await o.lookup(host) : (await dnsLookup(host, { all: true, verbatim: true })).map((r) => r.address);
  } catch (e) {
    throw new GuardRefusal(shown, `its host does not resolve (${(e as { code?: string }).code ?? (e as Error).message})`);
  }
  if (found.length === 0) throw new GuardRefusal(shown, 'its host does not resolve (no address)');
  return found;
}

/**
 * A fetch that checks every request with `checkUrl` and never lets fetch follow a redirect itself: a
 * 3xx comes back to the caller (the SDK's discovery follows same-origin redirects by calling this
 * fetch again, so every hop is checked; a token request's redirect is not followed at all).
 */
export function guardedFetch(base: FetchLike, o: GuardOptions): FetchLike {
  return async (url, init = {}) => {
    await checkUrl(url, o);
    try {
      return await base(url, { ...init, redirect: 'manual' });
    } catch (e) {
      // A refusal at connect time (see pinnedFetch) arrives wrapped in fetch's "fetch failed".
      const cause = (e as { cause?: unknown }).cause;
      throw isCanaryError(cause, CanaryErrorCode.guardRefused) ? cause : e;
    }
  };
}

/**
 * A fetch whose connections resolve host names through the guard's rules again, at connect time:
 * without it, DNS could answer a public address to `checkUrl` and a private one to the connection
 * (DNS rebinding). Node's fetch takes a `dispatcher` (dispatcher.ts). With a custom global dispatcher
 * (a proxy) the check before the request is all there is.
 */
export async function pinnedFetch(
  o: GuardOptions,
  reach?: Reach,
): Promise<{ fetch: FetchLike | undefined; reach: Reach; close(): Promise<void> }> {
  // The OAuth requests trust the target's private CAs too, and present no client certificate: that is the endpoint's.
  const forAuth: Reach = { ...(reach?.tls?.ca ? { tls: { ca: reach.tls.ca } } : {}), ...(reach?.proxy ? { proxy: reach.proxy } : {}) };
  // Through a proxy the proxy resolves the host: the wire's own proxied pool carries these requests, and
  // checkUrl before each (guardedFetch) with proxy-words.ts's metadata refusal is the guard there.
  if (proxyUrlOf(forAuth.proxy)) return { fetch: undefined, reach: forAuth, close: async () => {} };
  const dispatcher = await siblingAgent({ connect: { lookup: connectLookup(o), ...tlsOptions(forAuth.tls) } });
  if (!dispatcher) return { fetch: nodeFetch, reach: forAuth, close: async () => {} };
  return {
    fetch: (url, init) => nodeFetch(url, { ...init, dispatcher } as RequestInit),
    reach: forAuth,
    close: () => dispatcher.destroy().catch(() => {}),
  };
}

type LookupCallback = (err: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void;

/** net.connect's `lookup`: resolve, apply the address rules, answer in the shape asked for. */
function connectLookup(o: GuardOptions) {
  return (host: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const shown = `https://${host}/`;
    resolve(host, shown, o)
      .then((addresses) => {
        for (const a of addresses) refuseAddress(shown, a, addressKind(a), o);
        const found = addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
        if (options.all) callback(null, found);
        else callback(null, found[0]!.address, found[0]!.family);
      })
      .catch((e: Error) => callback(e, ''));
  };
}
