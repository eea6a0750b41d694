/**
 * @zereight/mcp-gitlab: GitLab's community MCP server (SDK v1, 2025-11-25 only), on Streamable HTTP
 * with a server-side personal access token. Any upstream failure becomes a JSON-RPC error to
 * tools/call: `-32603 "GitLab API error: 401 Unauthorized …"` for a revoked token, `-32603 "fetch
 * failed"` when GitLab is down.
 */
import type { Product } from '../product.ts';
import type { UpstreamAnswer, UpstreamRequest } from '../upstream.ts';

const KEY = 'glpat-Zq8vK2mN4pR6tW9xY1bC';

export const gitlab: Product = {
  name: 'gitlab',
  pkg: '@zereight/mcp-gitlab',
  entry: '@zereight/mcp-gitlab/build/index.js',
  args: () => [],
  env: ({ port, upstream }) => ({
    STREAMABLE_HTTP: 'true',
    HOST: '127.0.0.1',
    PORT: String(port),
    GITLAB_API_URL: `${upstream}/api/v4`,
    GITLAB_PERSONAL_ACCESS_TOKEN: KEY,
    // A server-side token on Streamable HTTP needs a bearer in front of it (the README's rule).
    STREAMABLE_HTTP_AUTH_TOKEN: 'mcp-gl-4f1c9e0b7a2d6e8f',
    // It asks registry.npmjs.org for a newer version at start.
    GITLAB_DISABLE_VERSION_CHECK: 'true',
  }),
  path: '/mcp',
  key: KEY,
  mcpToken: 'mcp-gl-4f1c9e0b7a2d6e8f',
  speaks: ['2025-11-25'],
  // The answer is JSON in a text block (no structuredContent), so the check is on the text.
  tool: { name: 'get_project', arguments: { project_id: 'acme/rates' }, expectText: '"path_with_namespace":"acme/rates"' },
  upstream: gitlabApi,
  reports: { revoked: 'json-rpc-error', dead: 'json-rpc-error' },
  words: { revoked: /GitLab API error: 401 Unauthorized/, dead: /fetch failed/ },
};

/** GitLab's REST API v4: `GET /projects/:id` with a personal access token as a Bearer token. */
function gitlabApi(req: UpstreamRequest, state: 'healthy' | 'revoked'): UpstreamAnswer {
  if (req.headers.authorization !== `Bearer ${KEY}`) return { status: 401, body: { message: '401 Unauthorized' } };
  if (state === 'revoked') {
    // What GitLab answers for a revoked personal access token.
    const description = 'Token was revoked. You have to re-authorize from the user.';
    return {
      status: 401,
      headers: { 'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"` },
      body: { error: 'invalid_token', error_description: description },
    };
  }
  if (req.method === 'GET' && decodeURIComponent(req.path) === '/api/v4/projects/acme/rates') return { status: 200, body: PROJECT };
  return { status: 404, body: { message: '404 Project Not Found' } };
}

const NAMESPACE = {
  id: 81,
  name: 'acme',
  path: 'acme',
  kind: 'group',
  full_path: 'acme',
  parent_id: null,
  web_url: 'https://gitlab.example.com/groups/acme',
};

const PROJECT = {
  id: 4242,
  description: 'Exchange rates service',
  name: 'rates',
  name_with_namespace: 'acme / rates',
  path: 'rates',
  path_with_namespace: 'acme/rates',
  created_at: '2025-03-14T09:26:53.589Z',
  default_branch: 'main',
  tag_list: [],
  topics: [],
  ssh_url_to_repo: 'git@gitlab.example.com:acme/rates.git',
  http_url_to_repo: 'https://gitlab.example.com/acme/rates.git',
  web_url: 'https://gitlab.example.com/acme/rates',
  readme_url: 'https://gitlab.example.com/acme/rates/-/blob/main/README.md',
  forks_count: 0,
  avatar_url: null,
  star_count: 3,
  last_activity_at: '2026-11-30T16:02:11.114Z',
  namespace: NAMESPACE,
  visibility: 'private',
  archived: false,
  open_issues_count: 7,
  // GitLab sends it to maintainers; the product strips it before answering.
  runners_token: 'GR1348941-not-a-real-runner-token',
};
