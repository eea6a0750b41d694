/**
 * The read-only gate over a paginated tools/list, against a real server on loopback that splits its
 * tools over two pages: a name listed on two pages is listed twice, whichever page the client kept it
 * from, so the canary refuses to call it unless every listing is read-only (the gate counted only the
 * last page's names).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { rpcResult, startFaultServer, type FaultServer } from '../../../helpers/faults.ts';
import { target } from '../../../helpers/probe.ts';

const readOnly = { name: 'get_rate', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
const destructive = { name: 'get_rate', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } };
/** A listing the client drops on 2026-07-28 (an invalid x-mcp-header, SEP-2243): its annotations never reach the gate. */
const dropped = {
  name: 'get_rate',
  inputSchema: { type: 'object', properties: { v: { type: 'string', 'x-mcp-header': 'Not Valid' } } },
  annotations: { destructiveHint: true },
};
const other = { name: 'list_pairs', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 2026-07-28 server whose tools/list answers `pages` one per cursor; returns the judged verdict and the calls it got. */
async function judgePaged(pages: unknown[][]) {
  const calls: string[] = [];
  server = await startFaultServer((_req, res, rx) => {
    const body = JSON.parse(rx.body || '{}') as { params?: { cursor?: string; name?: string } };
    switch (rx.rpcMethod) {
      case 'server/discover':
        return rpcResult(res, rx.rpcId, {
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'paged', version: '0.0.1' } },
        });
      case 'tools/list': {
        const i = body.params?.cursor === undefined ? 0 : Number(body.params.cursor);
        const next = i + 1 < pages.length ? { nextCursor: String(i + 1) } : {};
        return rpcResult(res, rx.rpcId, { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: pages[i], ...next });
      }
      case 'tools/call':
        calls.push(body.params?.name ?? '');
        return rpcResult(res, rx.rpcId, { resultType: 'complete', content: [{ type: 'text', text: '1.08' }] });
      default:
        res.writeHead(400).end();
    }
  });
  const verdict = await judge(target(server.url, { tool: { name: 'get_rate', arguments: {} } }));
  return { verdict, calls, pagesServed: server.received.filter((r) => r.rpcMethod === 'tools/list').length };
}

describe('the read-only gate over tools/list pages', () => {
  it.each([
    ['read-only on page 1, destructive on page 2', [[readOnly], [destructive]]],
    ['read-only on page 1, a dropped destructive listing on page 2', [[readOnly, other], [dropped]]],
    ['a dropped destructive listing on page 1, read-only on page 2', [[dropped, other], [readOnly]]],
  ])('refuses a name listed on two pages (%s), and calls nothing', async (_what, pages) => {
    const { verdict, calls, pagesServed } = await judgePaged(pages);
    expect(pagesServed).toBe(2);
    expect(calls).toEqual([]);
    expect(verdict.outcome).not.toBe('healthy');
    expect(verdict.detail).toMatch(/tools\/list names get_rate 2 times .*a call by name may reach any of them/);
  });

  it('calls a name listed once across the pages, and a name read-only on every page', async () => {
    const once = await judgePaged([[other], [readOnly]]);
    expect(once.calls).toEqual(['get_rate']);
    expect(once.verdict.outcome).toBe('healthy');
    const everyPage = await judgePaged([[readOnly], [readOnly]]);
    expect(everyPage.calls).toEqual(['get_rate']);
  });
});
