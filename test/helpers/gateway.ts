/**
 * A small aggregating MCP gateway on 127.0.0.1, hand-written over the real SDK client and server (no npm
 * aggregator installs here): at start it lists each backend's tools with the SDK client and serves them,
 * named `<backend>___<tool>` (the prefix toolhive vMCP and AgentCore Gateway use), with their
 * annotations; each call is forwarded to its backend on a fresh client session. A backend that no longer
 * answers makes its calls fail as such gateways do (the error reaches the caller as the tool's error),
 * while the other backends' calls still pass.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startMcpServer, type Era, type RunningServer, type ToolAnswer, type ToolSpec } from '../../functions/demo/servers.ts';

export interface GatewayBackend {
  readonly name: string;
  readonly url: string;
}

async function withClient<T>(url: string, use: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'test-gateway', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  client.onerror = () => {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 2_000 });
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => {});
  }
}

/** The gateway in front of `backends`, listed once at start (every backend must answer then). */
export async function startGateway(backends: readonly GatewayBackend[], era: Era = 'dual', port?: number): Promise<RunningServer> {
  const tools: ToolSpec[] = [];
  for (const b of backends) {
    const listed = await withClient(b.url, (c) => c.listTools());
    for (const t of listed.tools)
      tools.push({
        name: `${b.name}___${t.name}`,
        ...(t.annotations ? { annotations: t.annotations } : {}),
        handler: async (args) =>
          (await withClient(b.url, (c) => c.callTool({ name: t.name, arguments: args }, { timeout: 2_000 }))) as ToolAnswer,
      });
  }
  return startMcpServer({ era, name: 'test-gateway', version: '1.0.0', tools, ...(port !== undefined ? { port } : {}) });
}
