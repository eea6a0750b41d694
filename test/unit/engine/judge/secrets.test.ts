/** A hostile server echoes the Authorization header back: the secret appears nowhere in the Verdict. */
import { describe, expect, it } from 'vitest';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer } from '../../../helpers/faults.ts';
import { SECRET, target } from '../../../helpers/probe.ts';

const TOKEN = SECRET.split(' ')[1]!;

describe('secrets echoed by a server', () => {
  it('are redacted from an isError tool text', async () => {
    const server = await startFaultServer(
      modernEndpoint({
        tools: [readOnlyRateTool],
        call: () => ({
          isError: true,
          content: [{ type: 'text', text: `denied for ${SECRET} (token ${TOKEN}, url-encoded ${encodeURIComponent(SECRET)})` }],
        }),
      }),
    );
    try {
      const v = await judge(target(server.url));
      const json = JSON.stringify(v);
      expect(v).toMatchObject({ failure: 'tool_error' });
      expect(json).toContain('[redacted]');
      expect(json).not.toContain(TOKEN);
      expect(server.received[0]!.headers.authorization).toBe(SECRET);
    } finally {
      await server.close();
    }
  });

  it('are redacted from an HTTP error body and a JSON-RPC error message', async () => {
    const server = await startFaultServer((req, res, rx) => {
      const echo = String(req.headers.authorization);
      if (rx.rpcMethod === 'server/discover') {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: rx.rpcId, error: { code: -32600, message: `bad header ${echo}` } }));
      } else {
        res.writeHead(500, { 'content-type': 'text/plain', 'www-authenticate': `Bearer realm="${echo}"` }).end(`you sent ${echo}`);
      }
    });
    try {
      const v = await judge(target(server.url));
      expect(v.outcome).toBe('failed');
      expect(JSON.stringify(v)).not.toContain(TOKEN);
    } finally {
      await server.close();
    }
  });
});
