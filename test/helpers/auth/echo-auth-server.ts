/**
 * A hostile authorization server and MCP resource on 127.0.0.1 that echo back every credential sent to
 * them: the token endpoint's errors quote the whole request (authorization code, PKCE verifier, refresh
 * token, client secret, the Authorization header) in `error_description` and in a text body, and the MCP
 * endpoint's 401 quotes the bearer token. Dynamic registration hands out a planted client secret. What it
 * received is kept, so a test knows every value the canary must never show.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoAuthServer {
  readonly url: string;
  /** The MCP endpoint it protects. */
  readonly mcpUrl: string;
  /** Every body and Authorization header the token endpoint received (code, verifier, refresh token, …). */
  readonly received: string[];
  /** Token requests answer with these tokens instead of an echoed error, while set. */
  issue(tokens: { access: string; refresh: string } | null): void;
  close(): Promise<void>;
}

export const PLANTED = {
  code: 'authz-CODE-planted-5f2e9a',
  clientSecret: 'dyn-CLIENT-secret-planted-8d31c0',
  clientId: 'dyn-client-7',
} as const;

export async function startEchoAuthServer(): Promise<EchoAuthServer> {
  const received: string[] = [];
  let tokens: { access: string; refresh: string } | null = null;
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += String(c);
    const url = new URL(req.url ?? '/', base);
    const echo = `got ${body} with ${req.headers.authorization ?? 'no authorization'}`;
    switch (url.pathname) {
      case '/.well-known/oauth-protected-resource':
      case '/.well-known/oauth-protected-resource/mcp':
        return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
      case '/.well-known/oauth-authorization-server':
      case '/.well-known/openid-configuration':
        return json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
        });
      case '/register':
        return json(res, 201, {
          ...(JSON.parse(body || '{}') as object),
          client_id: PLANTED.clientId,
          client_secret: PLANTED.clientSecret,
          token_endpoint_auth_method: 'client_secret_post',
        });
      case '/authorize': {
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', PLANTED.code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      case '/token':
        received.push(body, req.headers.authorization ?? '');
        if (tokens)
          return json(res, 200, { access_token: tokens.access, refresh_token: tokens.refresh, token_type: 'Bearer', expires_in: 3600 });
        return json(res, 400, { error: 'invalid_grant', error_description: echo });
      case '/mcp':
        return json(
          res,
          401,
          { error: 'invalid_token', error_description: echo },
          {
            'www-authenticate': `Bearer error="invalid_token", error_description="${echo.replace(/"/g, "'")}", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end(echo);
    }
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    mcpUrl: `${base}/mcp`,
    received,
    issue: (t) => (tokens = t),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
