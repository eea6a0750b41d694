/**
 * The behaviour every product server must show the canary, checked on one namespace run per product:
 * a healthy upstream is `healthy`; a revoked key and a dead upstream are `failed` with the class that
 * sends on-call to the upstream (`tool_error`, or `assertion` where the product answers the upstream's
 * error as an ordinary result) and the upstream's words; every revision setting agrees; no key leaks.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FailureClass, Verdict } from '../../../functions/base/common/verdict.ts';
import type { InsideResult, StateRun } from './inside.ts';
import { describeInNamespace } from './namespace.ts';
import { canaryTargets, type Product, type Report } from './product.ts';
import { processesIn, RUN_BOUND_MS, verdictsOf } from './run.ts';
import type { UpstreamState } from './upstream.ts';

/** A product that sets `isError` or answers a JSON-RPC error: `tool_error`; one that answers a plain result: only the expectation sees it. */
const CLASS_OF: Record<Report, FailureClass> = { isError: 'tool_error', 'json-rpc-error': 'tool_error', 'ordinary-result': 'assertion' };

export function productSuite(p: Product, runOf: (product: string) => Promise<InsideResult>): void {
  describeInNamespace(`${p.name} (${p.pkg}) against its upstream on loopback`, () => {
    let result: InsideResult;
    const run = (state: UpstreamState): StateRun => result.runs.find((r) => r.state === state)!;
    const verdict = (state: UpstreamState, revision: string): Verdict => {
      const v = verdictsOf(run(state)).get(`${p.name}-${revision}`);
      if (!v) throw new Error(`no verdict for ${p.name}-${revision} with the ${state} upstream:\n${run(state).stdout}`);
      return v;
    };
    const settings = ['auto', ...p.speaks];

    beforeAll(async () => {
      result = await runOf(p.name);
    }, RUN_BOUND_MS + 5_000);
    afterAll(() => {
      if (result) rmSync(result.home, { recursive: true, force: true });
    });

    it('runs offline: an address off loopback is unreachable at once', () => {
      expect(result.offLoopback).toBe('ENETUNREACH');
    });

    it(`healthy upstream: healthy on ${settings.join(', ')}, each pin speaking its revision`, () => {
      for (const s of settings) {
        const v = verdict('healthy', s);
        expect(brief(v), s).toMatchObject({ outcome: 'healthy', failure: null, revision: s === 'auto' ? p.speaks[0] : s });
      }
      const called = run('healthy').upstreamSaw.filter((r) => r.carriedKey);
      expect(called.length, 'the product called its upstream with its key').toBeGreaterThanOrEqual(settings.length);
    });

    const unspoken = canaryTargets(p, 'healthy').filter((t) => t.revision !== 'auto' && !p.speaks.includes(t.revision));
    if (unspoken.length > 0) {
      it(`a pin it does not speak (${unspoken.map((t) => t.revision).join(', ')}) is revision`, () => {
        for (const t of unspoken)
          expect(brief(verdict('healthy', t.revision)), t.revision).toMatchObject({ outcome: 'failed', failure: 'revision' });
      });
    }

    it(`revoked key (the product reports it as ${p.reports.revoked}): failed/${CLASS_OF[p.reports.revoked]} with the upstream's words`, () => {
      expect(
        run('revoked').upstreamSaw.some((r) => r.carriedKey),
        'the upstream was asked with the revoked key',
      ).toBe(true);
      for (const s of settings) {
        const v = verdict('revoked', s);
        expect(brief(v), s).toMatchObject({ outcome: 'failed', failure: CLASS_OF[p.reports.revoked] });
        expect(v.detail, s).toMatch(p.words.revoked);
      }
      expect(run('revoked').code).toBe(1);
    });

    it(`dead upstream (the product reports it as ${p.reports.dead}): failed/${CLASS_OF[p.reports.dead]}`, () => {
      expect(run('dead').upstreamSaw).toEqual([]);
      for (const s of settings) {
        const v = verdict('dead', s);
        expect(brief(v), s).toMatchObject({ outcome: 'failed', failure: CLASS_OF[p.reports.dead] });
        expect(v.detail, s).toMatch(p.words.dead);
      }
      expect(run('dead').code).toBe(1);
    });

    it('pinned and auto agree in every state', () => {
      for (const state of ['healthy', 'revoked', 'dead'] as const) {
        const auto = verdict(state, 'auto');
        for (const pin of p.speaks) {
          const pinned = verdict(state, pin);
          expect({ state, pin, outcome: pinned.outcome, failure: pinned.failure }).toEqual({
            state,
            pin,
            outcome: auto.outcome,
            failure: auto.failure,
          });
        }
      }
    });

    it('prints neither the upstream key nor the MCP bearer, in any state', () => {
      const secrets = [p.key, ...(p.mcpToken ? [p.mcpToken] : [])];
      for (const r of result.runs) for (const secret of secrets) expect(r.stdout + r.stderr, r.state).not.toContain(secret);
    });

    it('leaves no process behind', () => {
      expect(processesIn(result.home)).toEqual([]);
    });
  });
}

/** What a failure assertion prints: the class and the words, not the whole verdict. */
function brief(v: Verdict): { outcome: string; failure: string | null; detail: string; revision: string | null } {
  return { outcome: v.outcome, failure: v.failure, detail: v.detail, revision: v.revision };
}
