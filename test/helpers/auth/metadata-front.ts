/**
 * A real authorization server (oidc-provider) behind a front on 127.0.0.1 that serves its discovery
 * document changed the way a broken or hostile server's would be (no PKCE advertised, an endpoint at a
 * cloud-metadata or private address), under the front's own issuer so the RFC 8414 issuer check passes;
 * every other request goes to the real server unchanged. It records every request it received, so a test
 * can show what reached the authorization server (a registration, a token request) and what did not.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, sendJson } from '../../../functions/demo/servers.ts';

export interface MetadataFront {
  /** The issuer a protected resource's metadata names. */
  readonly url: string;
  /** `METHOD /path` of every request it received. */
  readonly received: string[];
  close(): Promise<void>;
}

const DISCOVERY = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

export async function startMetadataFront(
  upstream: string,
  edit: (metadata: Record<string, unknown>) => Record<string, unknown>,
): Promise<MetadataFront> {
  const received: string[] = [];
  let base = '';
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    received.push(`${req.method} ${path}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'GET' && DISCOVERY.has(path)) {
      const real = (await (await fetch(`${upstream}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      return sendJson(res, 200, edit({ ...real, issuer: base }));
    }
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
        string,
        string
      >,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      redirect: 'manual',
    });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  base = await listen(http, '');
  return { url: base, received, close: () => closeServer(http) };
}
