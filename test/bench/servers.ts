/**
 * The bench's MCP servers, in a process of their own (so server work does not share the engine's event
 * loop or core): one 2026-07-28 and one 2025-11-25 server from `functions/demo/servers.ts`, whose
 * read-only `get_rate` tool calls a small upstream API. Prints `{"modern": url, "legacy": url}` on one
 * line; stops when its stdin closes.
 */
import { rateTool, startMcpServer, startRatesApi } from '../../functions/demo/servers.ts';

const api = await startRatesApi();
const modern = await startMcpServer({ era: 'modern', name: 'rates-modern', tools: [rateTool(api)] });
const legacy = await startMcpServer({ era: 'legacy', name: 'rates-legacy', tools: [rateTool(api)] });
process.stdout.write(`${JSON.stringify({ modern: modern.url, legacy: legacy.url })}\n`);

process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all([modern.close(), legacy.close(), api.close()]).then(() => process.exit(0));
});
