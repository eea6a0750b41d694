/** The Server Card's pure rules (engine/card): what a card says, against the handshake and against itself. */
import { describe, expect, it } from 'vitest';
import { readCard, serverCardUrl, type ServerCard } from '../../../../functions/engine/card/card.ts';
import { cardDrift, contradictions, type Handshake } from '../../../../functions/engine/card/compare.ts';
import { fetchCard } from '../../../../functions/engine/card/read.ts';
import type { GuardOptions } from '../../../../functions/base/net/ssrf-guard.ts';
import type { FetchLike } from '../../../../functions/base/net/wire.ts';

const URL_ = 'https://mcp.acme.example/mcp?tenant=7';
const json = {
  name: 'io.acme/rates',
  version: '1.4.2',
  title: 'Acme Rates',
  remotes: [
    { type: 'sse', url: 'https://mcp.acme.example/sse', supportedProtocolVersions: ['2024-11-05'] },
    { type: 'streamable-http', url: 'https://mcp.acme.example/mcp/', supportedProtocolVersions: ['2026-07-28', '2025-11-25'] },
  ],
  capabilities: { tools: {}, experimental: { x: {} } },
  tools: [{ name: 'get_rate' }, { name: 'list_pairs' }],
};
const card = readCard(json, URL_) as ServerCard;
const modern: Handshake = {
  server: { name: 'rates', version: '1.4.2' },
  revision: '2026-07-28',
  offered: ['2026-07-28', '2025-11-25'],
  capabilities: ['tools'],
  tools: ['get_rate', 'list_pairs'],
};
const legacy: Handshake = { ...modern, revision: '2025-11-25', offered: null };

describe('reading a card', () => {
  it('lives at the origin, whatever the target path and query', () => {
    expect(serverCardUrl(URL_)).toBe('https://mcp.acme.example/.well-known/mcp/server-card');
  });

  it('reads the fields it compares; the remote is the one whose URL is the target (query and trailing slash aside)', () => {
    expect(card).toEqual({
      name: 'io.acme/rates',
      version: '1.4.2',
      title: 'Acme Rates',
      protocolVersions: ['2026-07-28', '2025-11-25'],
      capabilities: ['tools'],
      tools: ['get_rate', 'list_pairs'],
    });
  });

  it('dynamic tools (listChanged) are not compared', () => {
    expect((readCard({ ...json, capabilities: { tools: { listChanged: true } } }, URL_) as ServerCard).tools).toBeNull();
  });

  it.each([
    [[], 'not a JSON object'],
    ['card', 'not a JSON object'],
    [{ version: '1' }, 'no "name"'],
    [{ name: 'io.a/b' }, 'no "version"'],
    [{ name: '', version: '1' }, 'no "name"'],
  ])('%j is not a card: %s', (j, problem) => expect(readCard(j, URL_)).toEqual({ problem }));
});

describe('a card against the handshake', () => {
  it('agrees with the server it describes, on both eras', () => {
    expect(contradictions(card, modern)).toEqual([]);
    expect(contradictions(card, legacy)).toEqual([]);
    expect(contradictions(card, { ...modern, server: { name: 'Acme Rates MCP', version: 'v1.4.2' } })).toEqual([]);
  });

  it.each<[string, Partial<Handshake>, RegExp]>([
    ['name', { server: { name: 'billing', version: '1.4.2' } }, /the card names the server "io.acme\/rates", server\/discover "billing"/],
    ['version', { server: { name: 'rates', version: '1.5.0' } }, /the card says version 1.4.2, server\/discover 1.5.0/],
    [
      'discover offers more',
      { offered: ['2026-07-28', '2025-11-25', '2025-06-18'] },
      /server\/discover offers 2026-07-28, 2025-11-25, 2025-06-18/,
    ],
    [
      'discover offers less',
      { offered: ['2026-07-28'] },
      /the card lists protocol versions 2026-07-28, 2025-11-25, server\/discover offers 2026-07-28$/,
    ],
    ['capability only the card has', { capabilities: [] }, /the card declares tools, which server\/discover does not/],
    [
      'capability only the server has',
      { capabilities: ['resources', 'tools'] },
      /server\/discover declares resources, which the card does not/,
    ],
    [
      'a tool the card lists and tools/list does not',
      { tools: ['get_rate'] },
      /the card lists tool\(s\) list_pairs that tools\/list does not/,
    ],
    ['a tool tools/list has and the card does not', { tools: ['get_rate', 'list_pairs', 'delete_all'] }, /tools\/list names delete_all/],
  ])('%s → a contradiction', (_what, over, detail) => {
    const found = contradictions(card, { ...modern, ...over });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(detail);
  });

  it('on 2025-11-25, a negotiated revision the card does not list', () => {
    expect(contradictions(card, { ...legacy, revision: '2025-06-18' })).toEqual([
      'the card lists protocol versions 2026-07-28, 2025-11-25, and the server negotiated 2025-06-18',
    ]);
    expect(contradictions(card, { ...legacy, server: { name: 'billing', version: '1.4.2' } })[0]).toMatch(/initialize "billing"/);
  });

  it('server text in a finding is escaped: a look-alike or a bidi override shows as code points', () => {
    const found = contradictions(card, { ...modern, server: { name: 'r\u0430tes\u202e', version: '1.4.2' } });
    expect(found[0]).toContain('"r\\u0430tes\\u202e"');
  });
});

describe('a card against the one read before', () => {
  it('names each change', () => {
    const now = readCard(
      { ...json, version: '1.5.0', capabilities: { tools: {}, resources: {} }, tools: [{ name: 'get_rate' }, { name: 'convert' }] },
      URL_,
    );
    expect(cardDrift(card, now as ServerCard)).toEqual([
      'version 1.4.2 → 1.5.0',
      'capabilities added: resources',
      'tools added: convert',
      'tools removed: list_pairs',
    ]);
    expect(cardDrift(card, card)).toEqual([]);
  });
});

describe('the fetch (card/read.ts) behind the SSRF guard', () => {
  const never: FetchLike = async () => {
    throw new Error('the guard let a request through');
  };
  const o = (guard: Partial<GuardOptions>, fetch: FetchLike = never) => ({
    fetch,
    guard: { allowPrivateNetwork: false, loopbackAllowed: false, ...guard },
    timeoutMs: 500,
    budget: new AbortController().signal,
  });

  it.each<[string, string, Partial<GuardOptions>, RegExp]>([
    [
      'a cloud metadata address',
      'https://card.example/.well-known/mcp/server-card',
      { lookup: async () => ['169.254.169.254'] },
      /cloud metadata/,
    ],
    ['a private address', 'https://card.example/.well-known/mcp/server-card', { lookup: async () => ['10.0.0.7'] }, /a private address/],
    ['plain http off loopback', 'http://card.example/.well-known/mcp/server-card', { lookup: async () => ['93.184.216.34'] }, /https only/],
  ])('%s is refused before any request, and is not a served card', async (_row, url, guard, why) => {
    const read = await fetchCard(url, null, o(guard));
    expect(read).toMatchObject({ kind: 'failed', served: false });
    expect((read as { why: string }).why).toMatch(why);
  });

  it('sends If-None-Match with the ETag remembered, no credentials, and never follows a redirect itself', async () => {
    const seen: RequestInit[] = [];
    const fetch: FetchLike = async (_u, init) => {
      seen.push(init ?? {});
      return new Response(null, { status: 304 });
    };
    const read = await fetchCard(
      'https://card.example/.well-known/mcp/server-card',
      '"abc"',
      o({ lookup: async () => ['93.184.216.34'] }, fetch),
    );
    expect(read).toEqual({ kind: 'unchanged' });
    expect(seen[0]).toMatchObject({ method: 'GET', redirect: 'manual', headers: { accept: 'application/json', 'if-none-match': '"abc"' } });
    expect(JSON.stringify(seen[0]!.headers)).not.toMatch(/authorization/i);
  });
});
