/**
 * mcp-searxng: the SearXNG MCP server (SDK v2 server, speaks 2026-07-28 and 2025-11-25), on
 * Streamable HTTP with a static bearer. It reaches SearXNG through the HTTP Basic credentials a
 * reverse proxy in front of SearXNG checks (AUTH_USERNAME / AUTH_PASSWORD). Upstream failures become
 * tools/call results with `isError: true`.
 */
import type { Product } from '../product.ts';
import type { UpstreamAnswer, UpstreamRequest } from '../upstream.ts';

const KEY = 'sx-pw-9Hc3Lq7Vt2Nw5Rb8';

export const searxng: Product = {
  name: 'searxng',
  pkg: 'mcp-searxng',
  entry: 'mcp-searxng/dist/cli.js',
  args: () => [],
  env: ({ port, upstream }) => ({
    MCP_HTTP_PORT: String(port),
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_AUTH_TOKEN: 'mcp-searxng-6e2a9f1c4b8d0e7a3f5c',
    SEARXNG_URL: upstream,
    AUTH_USERNAME: 'canary',
    AUTH_PASSWORD: KEY,
    // It caches a search answer for 24 h by default: a revoked password would go unseen for a day.
    SEARCH_CACHE_TTL_MS: '1',
    // Every sessionless 2026-07-28 request counts against its initialize limit (20 a minute per
    // client address); this lane sends ~21 in a few seconds from one address.
    MCP_RATE_INIT_MAX: '1000',
  }),
  path: '/mcp',
  key: KEY,
  mcpToken: 'mcp-searxng-6e2a9f1c4b8d0e7a3f5c',
  speaks: ['2026-07-28', '2025-11-25'],
  tool: { name: 'searxng_web_search', arguments: { query: 'model context protocol' }, expectText: 'Model Context Protocol' },
  upstream: searxngApi,
  reports: { revoked: 'isError', dead: 'isError' },
  words: { revoked: /401/, dead: /fetch failed|Network Error/ },
};

const BASIC = `Basic ${Buffer.from(`canary:${KEY}`).toString('base64')}`;

/** SearXNG's `GET /search?format=json`, behind a reverse proxy that checks HTTP Basic credentials. */
function searxngApi(req: UpstreamRequest, state: 'healthy' | 'revoked'): UpstreamAnswer {
  if (state === 'revoked' || req.headers.authorization !== BASIC) {
    // nginx's auth_basic answer once the password is changed or removed from its htpasswd file.
    return {
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="SearXNG"' },
      body: '<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
    };
  }
  if (req.method === 'GET' && req.path === '/search' && req.query.get('format') === 'json') {
    return { status: 200, body: results(req.query.get('q') ?? '') };
  }
  return { status: 404, body: '<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>' };
}

function results(query: string) {
  const hit = (url: string, title: string, content: string, engine: string, score: number) => ({
    url,
    title,
    content,
    engine,
    parsed_url: ['https', new URL(url).host, new URL(url).pathname, '', '', ''],
    template: 'default.html',
    engines: [engine],
    positions: [1],
    score,
    category: 'general',
  });
  return {
    query,
    number_of_results: 2,
    results: [
      hit(
        'https://modelcontextprotocol.io/',
        'Model Context Protocol',
        'An open protocol that connects AI applications to tools and data.',
        'duckduckgo',
        4,
      ),
      hit('https://github.com/modelcontextprotocol', 'Model Context Protocol · GitHub', 'Specification and SDKs.', 'brave', 2.5),
    ],
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ['model context protocol specification'],
    unresponsive_engines: [],
  };
}
