/**
 * The 2026-07-28 client obligations that the named conformance scenarios check (request-metadata,
 * http-standard-headers, http-custom-headers, http-invalid-tool-headers, json-schema-ref-no-deref),
 * at socket level against the canary's real requests: fast, in the unit lane, with a few edges the
 * suite does not probe. The suite itself runs them too (conformance.test.ts). Each block names its SEP.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { judge } from '../../../../../functions/engine/judge/judge.ts';
import { modernEndpoint, startFaultServer, type FaultHandler, type FaultServer } from '../../../../helpers/faults.ts';
import { target } from '../../../../helpers/probe.ts';

const RO = { readOnlyHint: true };
let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: FaultHandler): Promise<FaultServer> {
  server = await startFaultServer(handler);
  return server;
}
const posts = (s: FaultServer) => s.received.filter((r) => r.method === 'POST');
const meta = (body: string) => (JSON.parse(body) as { params?: { _meta?: Record<string, unknown> } }).params?._meta ?? {};

describe('request-metadata (SEP-2575): per-request _meta and MCP-Protocol-Version', () => {
  it('every POST carries the header, _meta carries protocolVersion, clientCapabilities and clientInfo, and they agree', async () => {
    const s = await serve(modernEndpoint({ tools: [{ name: 't', inputSchema: { type: 'object' }, annotations: RO }] }));
    const v = await judge(target(s.url, { tool: { name: 't' } }));
    expect(v.outcome).toBe('healthy');
    expect(posts(s).length).toBeGreaterThanOrEqual(3);
    for (const r of posts(s)) {
      const m = meta(r.body);
      expect(r.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(m['io.modelcontextprotocol/protocolVersion']).toBe(r.headers['mcp-protocol-version']);
      expect(m['io.modelcontextprotocol/clientCapabilities']).toEqual({});
      expect(m['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'mcp-canary' });
    }
  });

  it('a -32022 naming a supported version on the first request is answered by one retry with it', async () => {
    const endpoint = modernEndpoint({ tools: [] });
    let rejected = false;
    const s = await serve((req, res, rx) => {
      if (!rejected) {
        rejected = true;
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: rx.rpcId,
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported: ['2026-07-28'], requested: '2026-07-28' },
            },
          }),
        );
      }
      return endpoint(req, res, rx);
    });
    const v = await judge(target(s.url, { tool: undefined }));
    expect(v).toMatchObject({ outcome: 'healthy', revision: '2026-07-28' });
    expect(posts(s).filter((r) => r.rpcMethod === 'server/discover')).toHaveLength(2);
  });
});

describe('http-standard-headers (SEP-2243): Mcp-Method and Mcp-Name', () => {
  it('mirrors the method on every POST and the tool name (hyphens kept) on tools/call', async () => {
    const s = await serve(modernEndpoint({ tools: [{ name: 'my-hyphenated-tool', inputSchema: { type: 'object' }, annotations: RO }] }));
    const v = await judge(target(s.url, { tool: { name: 'my-hyphenated-tool' } }));
    expect(v.outcome).toBe('healthy');
    for (const r of posts(s)) expect(r.headers['mcp-method']).toBe(r.rpcMethod);
    expect(posts(s).find((r) => r.rpcMethod === 'tools/call')!.headers['mcp-name']).toBe('my-hyphenated-tool');
  });
});

describe('http-custom-headers (SEP-2243): x-mcp-header parameters mirrored into Mcp-Param-*', () => {
  it('plain ASCII as is, non-ASCII and edge whitespace Base64-encoded, null omitted, unannotated not mirrored', async () => {
    const properties = {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      debug: { type: 'boolean', 'x-mcp-header': 'Debug' },
      non_ascii: { type: 'string', 'x-mcp-header': 'NonAscii' },
      padded: { type: 'string', 'x-mcp-header': 'Padded' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      method_val: { type: 'string', 'x-mcp-header': 'Method' },
      query: { type: 'string' },
    };
    const s = await serve(
      modernEndpoint({ tools: [{ name: 'test_custom_headers', inputSchema: { type: 'object', properties }, annotations: RO }] }),
    );
    const args = {
      region: 'us-west1',
      priority: 42,
      debug: true,
      non_ascii: 'Hello, 世界',
      padded: ' padded ',
      verbose: null,
      method_val: 'test-method',
      query: 'SELECT 1',
    };
    const v = await judge(target(s.url, { tool: { name: 'test_custom_headers', arguments: args } }));
    expect(v.outcome, v.detail).toBe('healthy');
    const h = posts(s).find((r) => r.rpcMethod === 'tools/call')!.headers;
    const decoded = (raw: string | string[] | undefined) => {
      const m = /^=\?base64\?(.*)\?=$/.exec(String(raw));
      return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : raw;
    };
    expect(h['mcp-param-region']).toBe('us-west1');
    expect(Number(h['mcp-param-priority'])).toBe(42);
    expect(h['mcp-param-debug']).toBe('true');
    expect(h['mcp-param-nonascii']).toMatch(/^=\?base64\?/);
    expect(decoded(h['mcp-param-nonascii'])).toBe('Hello, 世界');
    expect(h['mcp-param-padded']).toMatch(/^=\?base64\?/);
    expect(decoded(h['mcp-param-padded'])).toBe(' padded ');
    expect(h['mcp-param-verbose']).toBeUndefined();
    expect(h['mcp-param-method']).toBe('test-method');
    expect(h['mcp-method']).toBe('tools/call');
    expect(Object.keys(h).filter((k) => /query/i.test(k))).toEqual([]);
  });
});

describe('http-invalid-tool-headers (SEP-2243): tools with invalid x-mcp-header are excluded', () => {
  const tools = [
    {
      name: 'valid_tool',
      annotations: RO,
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    },
    ...Object.entries({
      invalid_empty_header: { value: { type: 'string', 'x-mcp-header': '' } },
      invalid_object_header: { data: { type: 'object', 'x-mcp-header': 'Data' } },
      invalid_duplicate_diff_case: { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } },
      invalid_space_in_name: { value: { type: 'string', 'x-mcp-header': 'My Region' } },
      invalid_colon_in_name: { value: { type: 'string', 'x-mcp-header': 'Region:Primary' } },
      invalid_non_ascii_name: { value: { type: 'string', 'x-mcp-header': 'Région' } },
    }).map(([name, properties]) => ({ name, annotations: RO, inputSchema: { type: 'object', properties } })),
  ];

  it('keeps the valid tool and calls it', async () => {
    const s = await serve(modernEndpoint({ tools }));
    const v = await judge(target(s.url, { tool: { name: 'valid_tool', arguments: { region: 'eu' } } }));
    expect(v.outcome, v.detail).toBe('healthy');
    expect(posts(s).find((r) => r.rpcMethod === 'tools/call')!.headers['mcp-param-region']).toBe('eu');
  });

  it.each(tools.slice(1).map((t) => t.name))('never calls %s, and says why it cannot', async (name) => {
    const s = await serve(modernEndpoint({ tools }));
    const v = await judge(target(s.url, { tool: { name, arguments: { value: 'x' } } }));
    expect(v).toMatchObject({ outcome: 'failed', failure: 'tool_missing' });
    expect(v.detail).toMatch(/client excludes it \(an invalid x-mcp-header declaration/);
    expect(posts(s).map((r) => r.rpcMethod)).not.toContain('tools/call');
  });
});

describe('json-schema-ref-no-deref (SEP-2106): a network $ref is never fetched', () => {
  it('in a tool inputSchema or outputSchema, the canary never requests the $ref URL', async () => {
    const fetched: IncomingMessage[] = [];
    let canary = '';
    const endpoint = (tools: unknown[]) =>
      modernEndpoint({ tools, call: () => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { displayName: 'x' } }) });
    const s = await serve((req, res, rx) => {
      if (req.url?.startsWith('/canary')) {
        fetched.push(req);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"object"}');
      }
      return endpoint([
        {
          name: 'lookup_user',
          annotations: RO,
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            $defs: { id: { type: 'string' } },
            properties: { id: { $ref: '#/$defs/id' }, profile: { $ref: canary } },
          },
        },
        {
          name: 'profile',
          annotations: RO,
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', properties: { displayName: { $ref: canary } } },
        },
      ])(req, res, rx);
    });
    canary = `${new URL(s.url).origin}/canary/profile-schema.json`;
    const listed = await judge(target(s.url, { tool: { name: 'lookup_user', arguments: { id: 'a' } } }));
    expect(listed.outcome, listed.detail).toBe('healthy');
    const checked = await judge(target(s.url, { tool: { name: 'profile' } }));
    // An outputSchema it cannot resolve without the network cannot check the answer: said so, nothing fetched.
    expect(checked).toMatchObject({ outcome: 'failed', failure: 'assertion' });
    expect(checked.detail).toMatch(/outputSchema cannot be used to check its answer .*never fetched \(SEP-2106\)/);
    expect(fetched).toEqual([]);
  });
});
