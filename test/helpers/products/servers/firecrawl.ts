/**
 * firecrawl-mcp: Firecrawl's own MCP server (on fastmcp, stateless Streamable HTTP, 2025-11-25 only).
 * A failed upstream call becomes a tools/call result with `isError: true` ("Tool '…' execution
 * failed: …").
 */
import type { Product } from '../product.ts';
import type { UpstreamAnswer, UpstreamRequest } from '../upstream.ts';

const KEY = 'fc-7d3e1a9b5c2f4e6a8b0c1d2e3f4a5b6c';

export const firecrawl: Product = {
  name: 'firecrawl',
  pkg: 'firecrawl-mcp',
  entry: 'firecrawl-mcp/dist/index.js',
  args: () => [],
  env: ({ port, upstream }) => ({
    HTTP_STREAMABLE_SERVER: 'true',
    HOST: '127.0.0.1',
    PORT: String(port),
    FIRECRAWL_API_URL: upstream,
    FIRECRAWL_API_KEY: KEY,
  }),
  path: '/mcp',
  key: KEY,
  speaks: ['2025-11-25'],
  tool: { name: 'firecrawl_credit_usage', arguments: {}, expectJson: { planCredits: 500000 } },
  upstream: firecrawlApi,
  reports: { revoked: 'isError', dead: 'isError' },
  // It reports its HTTP client's words, not Firecrawl's body ("Unauthorized: Invalid token").
  words: { revoked: /Request failed with status code 401/, dead: /ECONNREFUSED/ },
};

/** Firecrawl's API v2: `GET /v2/team/credit-usage` with the API key as a Bearer token. */
function firecrawlApi(req: UpstreamRequest, state: 'healthy' | 'revoked'): UpstreamAnswer {
  // Firecrawl answers a missing, unknown or revoked key alike.
  if (state === 'revoked' || req.headers.authorization !== `Bearer ${KEY}`) {
    return { status: 401, body: { success: false, error: 'Unauthorized: Invalid token' } };
  }
  if (req.method === 'GET' && req.path === '/v2/team/credit-usage') {
    return {
      status: 200,
      body: {
        success: true,
        data: {
          remainingCredits: 48210,
          planCredits: 500000,
          billingPeriodStart: '2026-12-01T00:00:00Z',
          billingPeriodEnd: '2026-12-31T23:59:59Z',
        },
      },
    };
  }
  return { status: 404, body: { success: false, error: 'Not Found' } };
}
