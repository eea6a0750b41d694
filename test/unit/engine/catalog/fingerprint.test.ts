/** The fingerprint is stable under key order and whitespace, and moves with any real change. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintCatalog, fingerprintTool, parseFingerprint } from '../../../../functions/engine/catalog/fingerprint.ts';
import { diffCatalog, compareCatalog, MAX_DRIFT_WARNINGS } from '../../../../functions/engine/catalog/compare.ts';
import { CatalogSetting } from '../../../../functions/base/config/schema/catalog.ts';
import { credentialHeaders, credentialId } from '../../../../functions/engine/catalog/credential.ts';

/** The same JSON value with every object's keys in a shuffled order. */
function shuffleKeys(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) return v.map((x, i) => shuffleKeys(x, seed + i));
  if (v === null || typeof v !== 'object') return v;
  const entries = Object.entries(v as Record<string, unknown>);
  const rotated = entries.length
    ? [...entries.slice(seed % entries.length), ...entries.slice(0, seed % entries.length)].reverse()
    : entries;
  return Object.fromEntries(rotated.map(([k, x], i) => [k, shuffleKeys(x, seed + i + 1)]));
}

const json = fc.jsonValue({ maxDepth: 3 });
const tool = fc.record({
  name: fc.stringMatching(/^[a-z_]{1,12}$/),
  description: fc.option(fc.string(), { nil: undefined }),
  inputSchema: json,
  outputSchema: fc.option(json, { nil: undefined }),
  annotations: fc.option(fc.record({ readOnlyHint: fc.boolean(), title: fc.string() }), { nil: undefined }),
});

describe('fingerprint', () => {
  it('ignores key order and JSON whitespace (property)', () => {
    fc.assert(
      fc.property(tool, fc.nat(50), fc.integer({ min: 0, max: 8 }), (t, seed, indent) => {
        // Re-serialize with other key order and indentation, and parse back: what a config file round trip does.
        const reshaped = JSON.parse(JSON.stringify(shuffleKeys(t, seed), null, indent)) as typeof t;
        expect(fingerprintTool(reshaped)).toBe(fingerprintTool(t));
      }),
    );
  });

  it('ignores how a description is wrapped, not what it says (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(' ', '  ', '\n', '\n\t '),
        (words, gap) => {
          const a = fingerprintTool({ name: 't', description: words.join(' '), inputSchema: {} });
          const b = fingerprintTool({ name: 't', description: `\n ${words.join(gap)} \n`, inputSchema: {} });
          const c = fingerprintTool({ name: 't', description: `${words.join(' ')} !`, inputSchema: {} });
          expect(b).toBe(a);
          expect(c).not.toBe(a);
        },
      ),
    );
  });

  it('changes exactly the part that changed (property)', () => {
    fc.assert(
      fc.property(tool, json, (t, other) => {
        fc.pre(canonicalJson(other) !== canonicalJson(t.inputSchema));
        const before = parseFingerprint(fingerprintTool(t))!;
        const after = parseFingerprint(fingerprintTool({ ...t, inputSchema: other }))!;
        expect(after.parts.inputSchema).not.toBe(before.parts.inputSchema);
        expect({ ...after.parts, inputSchema: '' }).toEqual({ ...before.parts, inputSchema: '' });
      }),
    );
  });

  it('has the documented compact form, which the config schema accepts', () => {
    const fp = fingerprintTool({
      name: 'get_rate',
      description: 'x',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
    expect(fp).toMatch(/^d:[0-9a-f]{8};i:[0-9a-f]{8};o:-;a:[0-9a-f]{8};r:1$/);
    expect(CatalogSetting.safeParse({ get_rate: fp }).success).toBe(true);
    expect(CatalogSetting.safeParse({ get_rate: 'whatever' }).success).toBe(false);
    expect(CatalogSetting.safeParse({ byCredential: { 'cred-0123456789ab': { get_rate: fp } } }).success).toBe(true);
  });
});

describe('compare', () => {
  const base = [{ name: 'a', description: 'A', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }];

  it('names every changed part of one tool in one warning', () => {
    const recorded = fingerprintCatalog(base);
    const changed = [
      {
        name: 'a',
        description: 'A2',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: false },
      },
    ];
    expect(diffCatalog(changed, recorded)).toEqual([
      { tool: 'a', change: 'changed', parts: ['description', 'inputSchema', 'outputSchema', 'annotations'], readOnlyDropped: true },
    ]);
    expect(compareCatalog(changed, recorded, {})[0]!.detail).toBe(
      'catalog drift: tool "a" changed: description, input schema, output schema, annotations — readOnlyHint is no longer true',
    );
  });

  it("holds a flow's tools as the canary tool: removed is tool_missing's, a dropped readOnlyHint called out", () => {
    const recorded = fingerprintCatalog([
      { name: 'find', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'status', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    ]);
    const live = [{ name: 'find', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } }];
    const words = compareCatalog(live, recorded, {}, { flowTools: ['find', 'status'] }).map((w) => w.detail);
    expect(words).toEqual([
      'catalog drift: tool "find" changed: annotations — readOnlyHint is no longer true on the canary tool: the canary will refuse to call it (unsafe_tool)',
    ]);
  });

  it(`sums up past ${MAX_DRIFT_WARNINGS} changed tools in one last warning`, () => {
    const many = Array.from({ length: MAX_DRIFT_WARNINGS + 5 }, (_, i) => ({ name: `t${String(i).padStart(2, '0')}`, inputSchema: {} }));
    const w = compareCatalog(many, {}, {});
    expect(w).toHaveLength(MAX_DRIFT_WARNINGS + 1);
    expect(w.at(-1)!.detail).toContain('5 more tool(s) changed');
  });
});

describe('the credential id', () => {
  it('names an OAuth target by its client, not by the token the canary refreshes every hour', () => {
    const auth = { oauth: { clientId: 'canary-1' } };
    const a = credentialId(credentialHeaders({ headers: { Authorization: 'Bearer token-of-this-hour', 'X-Tenant': 't1' }, auth }));
    const b = credentialId(credentialHeaders({ headers: { Authorization: 'Bearer token-of-next-hour', 'X-Tenant': 't1' }, auth }));
    expect(a).toBe(b);
    expect(credentialId(credentialHeaders({ headers: { 'X-Tenant': 't1' }, auth: { oauth: { clientId: 'canary-2' } } }))).not.toBe(a);
    // A static bearer is the credential itself.
    expect(credentialId(credentialHeaders({ headers: { Authorization: 'Bearer k1' } }))).not.toBe(
      credentialId(credentialHeaders({ headers: { Authorization: 'Bearer k2' } })),
    );
  });
});

describe('drift against a recorded catalog', () => {
  it('reports a tool named like an Object.prototype member as added', () => {
    const recorded = fingerprintCatalog([{ name: 'get_rate', inputSchema: { type: 'object' } }]);
    const live = [
      { name: 'get_rate', inputSchema: { type: 'object' } },
      { name: 'constructor', inputSchema: { type: 'object' } },
    ];
    expect(diffCatalog(live as never, recorded).map((c) => [c.tool, c.change])).toEqual([['constructor', 'added']]);
  });
});
