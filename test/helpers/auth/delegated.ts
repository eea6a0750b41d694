/**
 * A real authorization server for delegated OAuth (oidc-provider 9.13, certified OpenID provider) on
 * 127.0.0.1: authorization code with PKCE required, dynamic client registration, refresh-token
 * rotation (a reused refresh token revokes the whole grant, as oidc-provider does), revocation, JWT
 * access tokens for the MCP server's resource indicator. Plus a person's browser, answered over HTTP:
 * `consent(url)` follows the authorization URL, signs in and consents on the provider's own
 * interaction pages, and delivers the answer to the loopback redirect.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import { closeServer, listen, sendJson } from '../../../functions/demo/servers.ts';
import { SCOPE } from './servers.ts';

export const PUBLIC_CLIENT_ID = 'canary-public';

export interface DelegatedAuthServer {
  readonly issuer: string;
  /** Every token response's error code, and how many refreshes it answered. */
  readonly tokenErrors: string[];
  refreshes(): number;
  registrations(): number;
  /** Every access and refresh token it issued (to check none leaks). */
  readonly issued: string[];
  /** The token endpoint answers 503 while this is true. */
  setDown(down: boolean): void;
  /** Revokes a refresh token at the revocation endpoint (the person withdraws consent). */
  revoke(refreshToken: string, clientId: string): Promise<void>;
  close(): Promise<void>;
}

export interface DelegatedAuthOptions {
  readonly resources: () => readonly string[];
  /** @default 3600 */
  readonly accessTtlSeconds?: number;
  /** Answer `refresh_expires_in` (seconds) with each token response. @default - not sent */
  readonly refreshExpiresIn?: number;
  /** Answer this `token_type` instead of Bearer (a server that binds its tokens with DPoP). @default - Bearer */
  readonly tokenType?: string;
  /** Refuse every token request for want of a DPoP proof (`invalid_dpop_proof`, RFC 9449). @default false */
  readonly demandDpop?: boolean;
}

export async function startDelegatedAuthServer(o: DelegatedAuthOptions): Promise<DelegatedAuthServer> {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const http = createServer();
  const base = await listen(http, '');
  const tokenErrors: string[] = [];
  const issued: string[] = [];
  let refreshes = 0;
  let registrations = 0;
  let down = false;
  const ttl = o.accessTtlSeconds ?? 3600;
  const provider = new Provider(base, {
    jwks: { keys: [{ ...signing, kid: 'as-1', use: 'sig', alg: 'RS256' }] },
    scopes: ['openid', 'offline_access', SCOPE],
    clients: [
      {
        client_id: PUBLIC_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: async () => true,
    ttl: { AccessToken: ttl, RefreshToken: 30 * 86_400, Grant: 30 * 86_400, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (!o.resources().includes(indicator)) throw new errors.InvalidTarget();
          return { scope: SCOPE, audience: indicator, accessTokenTTL: ttl, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
  });
  const handler = provider.callback();
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url === '/reg') registrations++;
    if (req.method === 'POST' && req.url === '/token') {
      if (down) return sendJson(res, 503, { error: 'temporarily_unavailable' });
      if (o.demandDpop) return sendJson(res, 400, { error: 'invalid_dpop_proof', error_description: 'DPoP proof JWT header is missing' });
      const end = res.end.bind(res);
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        try {
          const body = JSON.parse(String(chunk)) as { access_token?: string; refresh_token?: string; error?: string };
          if (body.error) tokenErrors.push(body.error);
          if (body.access_token) issued.push(body.access_token);
          if (body.refresh_token) issued.push(body.refresh_token);
          if (body.access_token && (o.refreshExpiresIn !== undefined || o.tokenType !== undefined)) {
            const extended = JSON.stringify({
              ...body,
              ...(o.refreshExpiresIn !== undefined ? { refresh_expires_in: o.refreshExpiresIn } : {}),
              ...(o.tokenType !== undefined ? { token_type: o.tokenType } : {}),
            });
            res.setHeader('content-length', Buffer.byteLength(extended));
            return end(extended as never, ...(rest as []));
          }
        } catch {
          /* not JSON */
        }
        return end(chunk as never, ...(rest as []));
      }) as typeof res.end;
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        if (new URLSearchParams(raw).get('grant_type') === 'refresh_token') refreshes++;
      });
    }
    handler(req, res);
  });
  return {
    issuer: base,
    tokenErrors,
    issued,
    refreshes: () => refreshes,
    registrations: () => registrations,
    setDown: (d) => (down = d),
    revoke: async (token, clientId) => {
      const res = await fetch(`${base}/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: clientId, token_type_hint: 'refresh_token' }),
      });
      if (!res.ok) throw new Error(`revocation answered ${res.status}`);
    },
    close: () => closeServer(http),
  };
}

/**
 * A person in a browser, over HTTP: follows the authorization URL through the provider's sign-in and
 * consent pages (keeping its cookies), and ends at the loopback redirect, which it calls. Returns the
 * redirect's query, as the browser saw it.
 */
export async function consent(authorizationUrl: URL, login = 'alice'): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  };
  let url = authorizationUrl.href;
  let method = 'GET';
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith('http://127.0.0.1') && new URL(url).pathname === '/callback') {
      await fetch(url);
      return new URL(url).searchParams;
    }
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: cookie(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    keep(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`the authorization server showed no form (HTTP ${res.status}): ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url).href;
    method = 'POST';
    body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString();
  }
  throw new Error('the authorization flow did not reach the redirect in 20 hops');
}
