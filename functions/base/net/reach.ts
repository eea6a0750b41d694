/**
 * The dispatcher a target's requests go out on, from its reach (common/run-context.ts): its client
 * certificate and private CAs as TLS options of every connection, and a forward proxy when one is set.
 *
 * Without a proxy it is a sibling of Node's own Agent (dispatcher.ts) with those TLS options: nothing
 * added to the bundle's start. With one, undici's EnvHttpProxyAgent (the library: CONNECT tunnels,
 * NO_PROXY as curl reads it, Proxy-Authorization) and undici's own fetch beside it — a dispatcher and
 * the fetch that drives it from one undici, whatever version the Node runtime bundles. A private CA is
 * trusted *beside* the public roots (and NODE_EXTRA_CA_CERTS): Node's `ca` option replaces them.
 */
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import type { FetchLike, ProxyReach, Reach, TlsMaterial } from '../common/run-context.ts';
import { nodeFetch, siblingAgent, type Dispatcher } from './dispatcher.ts';
import { directByAddress, noProxyEntries } from './no-proxy.ts';
import { tunnelError } from './proxy-tunnel.ts';

/** Where a target's requests go out: the fetch to drive them and the dispatcher for a URL. */
export interface Route {
  readonly fetch: FetchLike;
  /** The proxy as shown (origin, no credentials), or null when requests go direct. */
  readonly proxy: string | null;
  dispatcherFor(url: URL): Dispatcher | undefined;
  /** CONNECTs sent to the proxy and not yet answered (always 0 without a proxy). */
  tunnelsPending(): number;
  destroy(): Promise<void>;
}

/** The TLS options a connection of this target gets (undici `connect`, node:tls). */
export function tlsOptions(material: TlsMaterial | undefined): tls.ConnectionOptions {
  if (!material) return {};
  return {
    ...(material.cert && material.key
      ? { cert: material.cert, key: material.key, ...(material.passphrase !== undefined ? { passphrase: material.passphrase } : {}) }
      : {}),
    ...(material.ca ? { ca: [...defaultRoots(), material.ca] } : {}),
  };
}

/** The roots Node trusts by default, NODE_EXTRA_CA_CERTS included where Node can say (22.15+). */
function defaultRoots(): readonly string[] {
  const get = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  return get ? get('default') : tls.rootCertificates;
}

/** The environment's proxies, as curl and undici read them (lowercase first). */
function envProxies(env: NodeJS.ProcessEnv): { http?: string; https?: string } {
  const http = env.http_proxy ?? env.HTTP_PROXY;
  const https = env.https_proxy ?? env.HTTPS_PROXY ?? http;
  return { ...(http ? { http } : {}), ...(https ? { https } : {}) };
}

/** The proxy URL a reach sends through, or null: the fleet's, or the environment's HTTPS_PROXY (HTTP_PROXY). */
export function proxyUrlOf(proxy: ProxyReach | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!proxy) return null;
  if ('url' in proxy) return proxy.url;
  const found = envProxies(env);
  return found.https ?? found.http ?? null;
}

/** A proxy URL cut to scheme, host and port: what any message may show. */
export function shownProxyUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the proxy (an unparsable URL)';
  }
}

/** The route for one pool: `connectTimeoutMs` on every connect, the reach's TLS options and proxy. */
export async function openRoute(connectTimeoutMs: number, reach: Reach | undefined): Promise<Route> {
  const options = tlsOptions(reach?.tls);
  const proxyUrl = proxyUrlOf(reach?.proxy);
  if (!proxyUrl) {
    const agent = await siblingAgent({ connect: { timeout: connectTimeoutMs, ...options } });
    // A custom global dispatcher (not Node's Agent) cannot be copied; the target's TLS material must not be dropped for it.
    if (agent || !reach?.tls)
      return { fetch: nodeFetch, proxy: null, dispatcherFor: () => agent, tunnelsPending: () => 0, destroy: async () => agent?.destroy() };
    const undici = await loadUndici();
    const own = new undici.Agent({ connect: { timeout: connectTimeoutMs, ...options } });
    return {
      fetch: undici.fetch as unknown as FetchLike,
      proxy: null,
      dispatcherFor: () => own,
      tunnelsPending: () => 0,
      destroy: () => own.destroy(),
    };
  }
  const undici = await loadUndici();
  const proxy = reach!.proxy!;
  const fixed =
    'url' in proxy
      ? {
          httpProxy: proxy.url,
          httpsProxy: proxy.url,
          noProxy: proxy.noProxy.join(','),
          ...(proxy.credentials ? { token: `Basic ${Buffer.from(proxy.credentials).toString('base64')}` } : {}),
        }
      : {};
  // The connection to the proxy itself. A proxy that closes it instead of answering CONNECT fails with
  // "other side closed" (UND_ERR_SOCKET), which undici takes for a recoverable socket error: it dials the
  // proxy again at once, thousands of times a second, until the request's timeout blames the endpoint. An
  // error of the CONNECT is the proxy's: renamed (proxy-tunnel.ts), undici ends the request and the words name the proxy.
  // A proxy that never answers CONNECT leaves it pending (undici gives it no signal): counted, so that the
  // request timeout that ends such a request names the proxy (wire.ts), not the endpoint it never reached.
  let pending = 0;
  const clientFactory = (origin: string | URL, opts: object) => {
    const pool = new undici.Pool(origin, opts);
    const connect = pool.connect.bind(pool) as (params: unknown) => Promise<unknown>;
    (pool as { connect: unknown }).connect = (params: unknown) => {
      pending++;
      return connect(params)
        .catch((e: unknown) => {
          throw tunnelError(e);
        })
        .finally(() => pending--);
    };
    return pool;
  };
  // requestTls is the endpoint's TLS inside the tunnel, and undici takes its servername from it alone
  // when it is set: one agent per host, so each tunnel names the host it is for (SNI).
  const agents = new Map<string, InstanceType<typeof undici.EnvHttpProxyAgent>>();
  // NO_PROXY's CIDR ranges and IPv6 literals, which undici does not read (no-proxy.ts): such a host goes direct here.
  const direct = directByAddress(noProxyEntries('url' in proxy ? proxy.noProxy : (process.env.no_proxy ?? process.env.NO_PROXY ?? '')));
  let directAgent: InstanceType<typeof undici.Agent> | undefined;
  const agentFor = (url: URL): Dispatcher => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (direct(host, Number(url.port) || (url.protocol === 'https:' ? 443 : 80))) {
      directAgent ??= new undici.Agent({ connect: { timeout: connectTimeoutMs, ...options } });
      return directAgent;
    }
    let agent = agents.get(host);
    if (!agent) {
      const servername = isIP(host) ? {} : { servername: host };
      agent = new undici.EnvHttpProxyAgent({
        ...fixed,
        // As curl does: a plain http:// request goes to an http proxy in absolute form (`POST http://host/mcp`),
        // never through a CONNECT tunnel, which proxies commonly allow to TLS ports only (squid's SSL_ports).
        proxyTunnel: false,
        clientFactory,
        connect: { timeout: connectTimeoutMs, ...options },
        requestTls: { timeout: connectTimeoutMs, ...options, ...servername },
      });
      agents.set(host, agent);
    }
    return agent;
  };
  return {
    fetch: undici.fetch as unknown as FetchLike,
    proxy: shownProxyUrl(proxyUrl),
    dispatcherFor: agentFor,
    tunnelsPending: () => pending,
    destroy: async () => {
      await Promise.all([...agents.values(), ...(directAgent ? [directAgent] : [])].map((a) => a.destroy().catch(() => {})));
    },
  };
}

/**
 * undici, loaded only when a route needs it. The built run Lambda has it as a side file beside index.mjs
 * (undici.ts, built by infra/constructs/bundle.ts); from source, the CLI's bundle and the installed
 * package it is the dependency in node_modules. The specifiers are variables so that esbuild leaves the
 * import alone instead of inlining undici into every run's cold start.
 */
export const UNDICI_SIDE_FILE = 'net-undici.mjs';
const SIDE_SPECIFIER = `./${UNDICI_SIDE_FILE}`;
const PACKAGE_SPECIFIER = 'undici';
type Undici = typeof import('./undici.ts');
async function loadUndici(): Promise<Undici> {
  if (!/\/net\/reach\.(ts|js)$/.test(import.meta.url)) {
    try {
      return (await import(SIDE_SPECIFIER)) as Undici;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    }
  }
  return (await import(PACKAGE_SPECIFIER)) as Undici;
}
