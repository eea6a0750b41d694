/**
 * @notionhq/notion-mcp-server: Notion's own MCP server (SDK v1, 2025-11-25 only), `--transport http`.
 * An HTTP error from Notion becomes an ordinary tools/call result (no `isError`) whose text is
 * Notion's error body; a Notion it cannot reach becomes a JSON-RPC `-32603` error. With NOTION_TOKEN
 * set it also calls api.notion.com at start (to print the integration's settings URL): inside the
 * namespace that call fails at once.
 */
import type { Product } from '../product.ts';
import type { UpstreamAnswer, UpstreamRequest } from '../upstream.ts';

const KEY = 'ntn_528734917263kQ3vX9mZ2pL8wR5tY1uB6nC4dF7gH0j';

export const notion: Product = {
  name: 'notion',
  pkg: '@notionhq/notion-mcp-server',
  entry: '@notionhq/notion-mcp-server/bin/cli.mjs',
  args: ({ port }) => ['--transport', 'http', '--port', String(port), '--host', '127.0.0.1'],
  env: ({ upstream }) => ({ BASE_URL: upstream, NOTION_TOKEN: KEY, AUTH_TOKEN: 'mcp-notion-2b7f0c4e9a1d' }),
  path: '/mcp',
  key: KEY,
  mcpToken: 'mcp-notion-2b7f0c4e9a1d',
  speaks: ['2025-11-25'],
  // Only an expectation on the answer can see Notion's error: the product reports it as a result. The
  // answer is JSON in a text block (no structuredContent), so the check is on the text.
  tool: { name: 'API-get-self', arguments: {}, expectText: '"object":"user"' },
  upstream: notionApi,
  reports: { revoked: 'ordinary-result', dead: 'json-rpc-error' },
  words: { revoked: /API token is invalid/, dead: /ECONNREFUSED|fetch failed/ },
};

/** Notion's API: `GET /v1/users/me` with the integration token as a Bearer token and a Notion-Version. */
function notionApi(req: UpstreamRequest, state: 'healthy' | 'revoked'): UpstreamAnswer {
  const requestId = '3c1b7d52-9e0a-4f6b-8d21-5a7e9c0b4f13';
  if (req.headers['notion-version'] === undefined) {
    const message = 'Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.';
    return { status: 400, body: { object: 'error', status: 400, code: 'missing_version', message, request_id: requestId } };
  }
  // Notion answers a revoked integration token like any invalid one.
  if (state === 'revoked' || req.headers.authorization !== `Bearer ${KEY}`) {
    return {
      status: 401,
      body: { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.', request_id: requestId },
    };
  }
  if (req.method === 'GET' && req.path === '/v1/users/me') return { status: 200, body: { ...BOT, request_id: requestId } };
  const message = `Invalid request URL.`;
  return { status: 400, body: { object: 'error', status: 400, code: 'invalid_request_url', message, request_id: requestId } };
}

const BOT = {
  object: 'user',
  id: '16d84021-f4d3-4c2a-9f0e-7b5a3c1d8e29',
  name: 'Canary',
  avatar_url: null,
  type: 'bot',
  bot: {
    owner: { type: 'workspace', workspace: true },
    workspace_name: 'Acme',
    workspace_limits: { max_file_upload_size_in_bytes: 5242880 },
  },
};
