/**
 * The hostile-endpoint matrix (the canary tool and the secrets around it): what a broken or hostile
 * endpoint does → the verdict the canary must reach → the bound it must hold. Real sockets on 127.0.0.1.
 * The same rows are the table in test/integration/engine/judge/hostile/README.md; a row added here belongs there
 * too. The matrix is split by concern over matrix-*.test.ts.
 *
 * The bounds are hang protection, not speed: a row's limit is its request timeout or run budget plus 10 %,
 * generous enough that a slow machine never trips it, tight enough that a hang always does.
 */
import { describe, expect, it } from 'vitest';
import { modernEndpoint, readOnlyRateTool, rpcResult, startFaultServer, type FaultHandler } from '../../../../helpers/faults.ts';
import { expectVerdict, judgeFault } from '../../../../helpers/hostile/harness.ts';

describe('tools', () => {
  const call = (answer: unknown): FaultHandler => modernEndpoint({ tools: [readOnlyRateTool], call: () => answer });

  it('a tool that answers isError → failed/tool_error with its text', async () => {
    const { v } = await judgeFault(call({ isError: true, content: [{ type: 'text', text: 'upstream key expired' }] }));
    expectVerdict(v, 'failed', 'tool_error', /upstream key expired/);
  });

  it('an unknown tool → failed/tool_missing, never called', async () => {
    const { v, received } = await judgeFault(call({ content: [] }), { tool: { name: 'nope' } });
    expectVerdict(v, 'failed', 'tool_missing');
    expect(received).not.toContain('tools/call');
  });

  it('structuredContent that breaks the outputSchema → failed/assertion', async () => {
    const { v } = await judgeFault(call({ content: [], structuredContent: { rate: 'high' } }));
    expectVerdict(v, 'failed', 'assertion', /outputSchema/);
  });

  it('a result with resultType "input_required" asking for elicitation → failed/tool_error naming the request: a canary tool must answer unattended', async () => {
    const { v } = await judgeFault((req, res, rx) => {
      if (rx.rpcMethod === 'tools/call') {
        return rpcResult(res, rx.rpcId, {
          resultType: 'input_required',
          inputRequests: {
            confirm: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } },
          },
        });
      }
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    });
    expectVerdict(
      v,
      'failed',
      'tool_error',
      /asked for user input \(elicitation\) — input_required: elicitation\/create \("confirm"\) — which the canary cannot grant/,
    );
  });

  it('a tool without annotations → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(modernEndpoint({ tools: [{ name: 'get_rate', inputSchema: { type: 'object' } }] }));
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /has no annotations/);
    expect(received).not.toContain('tools/call');
  });

  it('a destructive tool → inconclusive/unsafe_tool, never called', async () => {
    const { v, received } = await judgeFault(
      modernEndpoint({
        tools: [{ name: 'get_rate', inputSchema: { type: 'object' }, annotations: { destructiveHint: true, readOnlyHint: false } }],
      }),
    );
    expectVerdict(v, 'inconclusive', 'unsafe_tool', /destructiveHint: true/);
    expect(received).not.toContain('tools/call');
  });
});

describe('secrets', () => {
  it('a redirect to another origin: neither Authorization nor any --header is forwarded there', async () => {
    const elsewhere = await startFaultServer((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    try {
      const { v } = await judgeFault(
        (_q, res) => {
          res.writeHead(307, { location: elsewhere.url.replace('127.0.0.1', 'localhost') }).end();
        },
        { headers: { Authorization: 'Bearer sk-redirect-31337', 'X-Api-Key': 'key-redirect-31337' } },
      );
      expectVerdict(v, 'failed', 'http_status', /HTTP 307 redirect to http:\/\/localhost:\d+\/\S* not followed/);
      expect(elsewhere.received).toEqual([]);
      for (const r of elsewhere.received) {
        expect(r.headers.authorization).toBeUndefined();
        expect(r.headers['x-api-key']).toBeUndefined();
      }
      expect(JSON.stringify(v)).not.toContain('31337');
    } finally {
      await elsewhere.close();
    }
  });

  it('a server that echoes the Authorization header in its error body and its tool text → the secret is nowhere in the verdict', async () => {
    const echo: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'tools/call')
        return rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          isError: true,
          content: [{ type: 'text', text: `token ${req.headers.authorization}` }],
        });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo);
    expectVerdict(v, 'failed', 'tool_error', /\[redacted\]/);
    expect(JSON.stringify(v)).not.toContain('sk-live-7f3a9c2e5b1d');
  });

  it('a secret echoed across the point where a detail is cut → not even its head is left', async () => {
    // The answer check shows 299 characters of the text and an ellipsis; the cut falls inside the token.
    const echo: FaultHandler = (req, res, rx) => {
      if (rx.rpcMethod === 'tools/call')
        return rpcResult(res, rx.rpcId, {
          resultType: 'complete',
          content: [{ type: 'text', text: `${'x'.repeat(286)}${req.headers.authorization}` }],
          structuredContent: { rate: 1.08 },
        });
      return modernEndpoint({ tools: [readOnlyRateTool] })(req, res, rx);
    };
    const { v } = await judgeFault(echo, { tool: { name: 'get_rate', expectText: 'EURUSD' } });
    expectVerdict(v, 'failed', 'assertion', /\[redacted\]…/);
    expect(JSON.stringify(v)).not.toMatch(/sk-l/);
  });
});
