/**
 * Real OAuth parts on 127.0.0.1: `oidc-provider` (a certified OpenID provider) issuing client
 * credentials tokens as JWTs whose audience is the resource indicator (RFC 8707), and an MCP server
 * (the SDK's) that verifies every token's signature against the provider's JWKS, its issuer,
 * audience, expiry and scope with jose, and serves RFC 9728 protected resource metadata.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider, { errors } from 'oidc-provider';
import { z } from 'zod';
import { closeServer, listen, sendJson } from '../../../functions/demo/servers.ts';

export const CLIENT_ID = 'canary-svc';
export const CLIENT_SECRET = 'cs-9f2c4e7a1b3d5f60-canary-secret';
export const JWT_CLIENT_ID = 'canary-jwt';
export const SCOPE = 'mcp:read';

export interface AuthServer {
  readonly issuer: string;
  /** Token requests the server received (each POST /token). */
  tokenRequests(): number;
  /** Every access token it issued (to check none leaks). */
  readonly issued: string[];
  close(): Promise<void>;
}

export interface ClientKey {
  readonly privateKeyPem: string;
  readonly publicJwk: Record<string, unknown>;
}

export function rsaClientKey(): ClientKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicJwk: { ...(publicKey as KeyObject).export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: 'canary-key' },
  };
}

export interface AuthServerOptions {
  readonly clientKey: ClientKey;
  /** Resource indicators the server issues tokens for (audiences). */
  readonly resources: () => readonly string[];
  /** @default 3600 */
  readonly tokenTtlSeconds?: number;
}

export async function startAuthServer(o: AuthServerOptions): Promise<AuthServer> {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const http = createServer();
  const base = await listen(http, '');
  let tokenRequests = 0;
  const issued: string[] = [];
  const provider = new Provider(base, {
    jwks: { keys: [{ ...signing, kid: 'as-1', use: 'sig', alg: 'RS256' }] },
    scopes: ['openid', SCOPE, 'mcp:admin'],
    ttl: { ClientCredentials: o.tokenTtlSeconds ?? 3600 },
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPE,
      },
      {
        client_id: JWT_CLIENT_ID,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks: { keys: [o.clientKey.publicJwk] },
        scope: SCOPE,
      },
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (!o.resources().includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: `${SCOPE} mcp:admin`,
            audience: indicator,
            accessTokenTTL: o.tokenTtlSeconds ?? 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  const handler = provider.callback();
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url === '/token') {
      tokenRequests++;
      const end = res.end.bind(res);
      // Keep what it issued, so the tests can look for it in every output.
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        try {
          const token = (JSON.parse(String(chunk)) as { access_token?: string }).access_token;
          if (token) issued.push(token);
        } catch {
          /* not JSON */
        }
        return end(chunk as never, ...(rest as []));
      }) as typeof res.end;
    }
    handler(req, res);
  });
  return { issuer: base, tokenRequests: () => tokenRequests, issued, close: () => closeServer(http) };
}

export interface ProtectedMcpOptions {
  readonly issuer: string;
  /**
   * How the server points at its metadata. @default 'header' (401 resource_metadata and the well-known URL);
   * 'challenge-only': only at a path of its own that its 401 names, the well-known URLs 404 (compliant).
   */
  readonly advertise?: 'header' | 'well-known' | 'none' | 'challenge-only';
  /** The 401 to a request without a token names this scope (RFC 6750 §3). @default - none */
  readonly challengeScope?: string;
  /** The metadata's scopes_supported. @default [SCOPE] */
  readonly scopesSupported?: readonly string[];
  /** The authorization servers the metadata names. @default [issuer] */
  readonly authorizationServers?: readonly string[];
  /** The verifier's clock runs this far ahead (an expired token). @default 0 */
  readonly clockAheadSeconds?: number;
  /** A hostile server: its refusal echoes the token it was sent, in the challenge and the body. */
  readonly echoToken?: boolean;
}

export interface ProtectedMcp {
  readonly url: string;
  /** Every request it received: method, path, and the Authorization header it carried. */
  readonly received: Array<{ readonly method: string; readonly path: string; readonly authorization: string | undefined }>;
  /** Requests that carried a valid token. */
  accepted(): number;
  /** GETs of its protected resource metadata. */
  metadataRequests(): number;
  close(): Promise<void>;
}

export async function startProtectedMcp(o: ProtectedMcpOptions): Promise<ProtectedMcp> {
  const jwks = createRemoteJWKSet(new URL(`${o.issuer}/jwks`));
  const modern = toNodeHandler(createMcpHandler(() => buildServer(), { legacy: 'reject' }));
  let accepted = 0;
  let metadataRequests = 0;
  let url = '';
  const received: ProtectedMcp['received'] = [];
  const prm = () => ({
    resource: url,
    authorization_servers: o.authorizationServers ?? [o.issuer],
    scopes_supported: [...(o.scopesSupported ?? [SCOPE])],
    bearer_methods_supported: ['header'],
  });
  const ownPath = '/meta/rates-resource.json';
  const http = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    received.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    if (req.method === 'GET' && (path.startsWith('/.well-known/oauth-protected-resource') || path === ownPath)) {
      metadataRequests++;
      const served = o.advertise === 'challenge-only' ? path === ownPath : path !== ownPath && o.advertise !== 'none';
      return served ? sendJson(res, 200, prm()) : sendJson(res, 404, { error: 'not_found' });
    }
    const challenge = (params: string) => {
      const origin = new URL(url).origin;
      const rm =
        o.advertise === 'header' || o.advertise === undefined
          ? `, resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
          : o.advertise === 'challenge-only'
            ? `, resource_metadata="${origin}${ownPath}"`
            : '';
      res.setHeader('www-authenticate', `Bearer ${params}${rm}`);
    };
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) {
      challenge(`realm="mcp"${o.challengeScope ? `, scope="${o.challengeScope}"` : ''}`);
      return sendJson(res, 401, { error: 'unauthorized' });
    }
    try {
      const { payload } = await jwtVerify(header.slice(7), jwks, {
        issuer: o.issuer,
        audience: url,
        currentDate: new Date(Date.now() + (o.clockAheadSeconds ?? 0) * 1000),
      });
      const scopes = String(payload.scope ?? '').split(' ');
      if (!scopes.includes(SCOPE)) {
        challenge(`error="insufficient_scope", scope="${SCOPE}"`);
        return sendJson(res, 403, { error: 'insufficient_scope' });
      }
    } catch (e) {
      const why =
        (e as { code?: string }).code === 'ERR_JWT_EXPIRED'
          ? 'The access token expired'
          : (e as { claim?: string }).claim === 'aud'
            ? 'The token audience is not this server'
            : 'The token is invalid';
      const echo = o.echoToken ? ` (got ${header.slice(7)})` : '';
      challenge(`error="invalid_token", error_description="${why}${echo}"`);
      return sendJson(res, 401, { error: 'invalid_token', error_description: `${why}${echo}` });
    }
    accepted++;
    const raw = await new Promise<string>((resolve) => {
      let s = '';
      req.on('data', (d: Buffer) => (s += d.toString()));
      req.on('end', () => resolve(s));
    });
    await modern(req, res, raw ? JSON.parse(raw) : undefined);
  });
  url = await listen(http, '/mcp');
  return { url, received, accepted: () => accepted, metadataRequests: () => metadataRequests, close: () => closeServer(http) };
}

function buildServer(): McpServer {
  const server = new McpServer({ name: 'rates-oauth', version: '2.0.0' });
  server.registerTool(
    'get_rate',
    {
      description: 'EURUSD rate (test tool)',
      inputSchema: z.object({}).catchall(z.unknown()),
      outputSchema: z.object({ pair: z.string(), rate: z.number() }),
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text' as const, text: 'EURUSD 1.08' }], structuredContent: { pair: 'EURUSD', rate: 1.08 } }),
  );
  return server;
}
