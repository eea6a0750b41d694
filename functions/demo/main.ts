/**
 * `npm start`: the canary against embedded MCP servers of both eras, in three states — as the
 * health-check how-to the product comes from shows them:
 * 1. healthy;
 * 2. the upstream API key is revoked: health and protocol probes stay green, only the tool fails;
 * 3. the server is stopped: unreachable.
 */
import { Target } from '../base/config/schema/target.ts';
import { renderVerdict } from '../cli/render.ts';
import { judge } from '../engine/judge/judge.ts';
import { rateTool, startMcpServer, startRatesApi, type Era } from './servers.ts';

const out = (s = '') => process.stdout.write(`${s}\n`);

async function demo(era: Exclude<Era, 'dual'>): Promise<void> {
  const api = await startRatesApi();
  const server = await startMcpServer({ era, tools: [rateTool(api)], name: `rates-${era}` });
  const target = Target.parse({
    name: `rates-${era}`,
    url: server.url,
    healthUrl: server.url.replace(/\/mcp$/, '/health'),
    headers: { Authorization: 'Bearer demo-token-never-printed' },
    tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
  });
  const title = era === 'modern' ? '2026-07-28 server (stateless, server/discover)' : '2025-11-25 server (initialize + session)';
  out(`━━ ${title} ━━`);

  out('\n1) healthy');
  out(renderVerdict(await judge(target), target.url));

  out('\n2) upstream API key revoked — the process listens and speaks MCP, but agents get errors');
  api.revokeKey();
  out(renderVerdict(await judge(target), target.url));

  out('\n3) server stopped');
  await server.close();
  out(renderVerdict(await judge(target), target.url));
  await api.close();
  if (era === 'legacy') {
    out(`\nRequests the 2025-11-25 server saw in state 1 and 2: ${server.methods().join(', ')}`);
  }
  out();
}

await demo('modern');
await demo('legacy');
