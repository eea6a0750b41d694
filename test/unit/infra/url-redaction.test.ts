/**
 * No query value of a target's URL in any alarm a fleet synthesizes (AlarmName, AlarmDescription: what
 * SNS, email, PagerDuty and the briefs carry), whatever the URL's shape; the URL is shown the one way
 * (shown-url.ts). A secret query parameter is given by reference (querySecrets) and is in no template;
 * a credential written into the url is refused at synth, naming the field and the fix.
 */
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { checkFleet } from '../../../infra/plan/checks.ts';
import { credentialInQuery, shownUrl } from '../../../functions/base/common/shown-url.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import { alarmsOf, render } from '../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { URL_SHAPES } from '../../helpers/url-shapes.ts';

/** The shapes a fleet may deploy: no userinfo (refused by the schema), no credential in the query (refused at synth). */
const deployable = URL_SHAPES.filter((s) => !new URL(s.url).username && !credentialInQuery(s.url));
const QUERY_SECRET_REF = 'mcp-canary/shape-0/token';

const config: FleetInput = smallFleet({
  targets: deployable.map((s, i) => ({
    name: `shape-${i}`,
    url: s.url,
    slo: { objective: 99.9, burnAlarms: true },
    ...(i === 0 ? { querySecrets: { token: { secretsManager: QUERY_SECRET_REF } } } : {}),
    ...(i === 1 ? { auth: { authorizationCode: { store: { secretsManager: 'mcp-canary/shape-1/grant' } } } } : {}),
  })),
});
const synth = synthFleet(config);
const templates = [...synth.templates].map(([name, t]) => [name, JSON.stringify(t.toJSON())] as const);
const alarms = [...synth.templates].flatMap(([, t]) => alarmsOf(t.toJSON() as never));

/** Every value in a URL's query, decoded and as written: none may be in an alarm. */
function queryValues(url: string): string[] {
  const u = new URL(url);
  const raw = u.search
    .slice(1)
    .split('&')
    .flatMap((p) => (p.includes('=') ? [p.slice(p.indexOf('=') + 1)] : []));
  return [...[...u.searchParams.values()], ...raw].filter((v) => v.length > 0);
}

describe('alarms show a target URL by its structure', () => {
  it('synthesizes target, burn and owner alarms for every shape', () => {
    expect(deployable.length).toBeGreaterThanOrEqual(6);
    for (const kind of ['critical', 'warning', 'dead-man', 'slo-burn-fast']) {
      expect(
        alarms.some((a) => render(a.AlarmName).includes(kind)),
        kind,
      ).toBe(true);
    }
  });

  deployable.forEach((s, i) => {
    it(`carries no query value and the shown URL: ${s.shape}`, () => {
      const mine = alarms.filter((a) => render(a.AlarmName).includes(`/shape-${i}/`) || render(a.AlarmName).includes(`/shape-${i}-`));
      const described = mine.filter((a) => render(a.AlarmDescription ?? '').includes('Endpoint: '));
      expect(described.length).toBeGreaterThanOrEqual(3);
      for (const a of mine) {
        const text = `${render(a.AlarmName)}\n${render(a.AlarmDescription ?? '')}`;
        // A key in the path, a fragment and every query value: in no alarm, even `true`.
        for (const secret of [...s.secrets, ...queryValues(s.url)])
          expect(text).not.toMatch(new RegExp(`[=/]${escape(secret)}(?:[&\\s/]|$)`, 'm'));
        expect(text).not.toContain('#');
      }
      for (const a of described) expect(render(a.AlarmDescription)).toContain(`Endpoint: ${shownUrl(s.url)}\n`);
    });
  });
});

describe('the templates', () => {
  it("hold a target's URL only where the run reads it (its schedule's input), nowhere a person reads", () => {
    // Every string of every template but a schedule target's Input: descriptions, names, dashboards, outputs.
    const leaves: string[] = [];
    const walk = (v: unknown, key: string): void => {
      if (key === 'Input') return;
      if (typeof v === 'string') leaves.push(v);
      else if (Array.isArray(v)) v.forEach((x) => walk(x, ''));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    for (const [, t] of synth.templates) walk(t.toJSON(), '');
    const text = leaves.join('\n');
    for (const s of deployable) {
      const u = new URL(s.url);
      // The query as written, unless it shows as it is (bare flags, empty values: nothing to mask).
      if (u.search.length > 1 && !shownUrl(s.url).endsWith(u.search)) expect(text).not.toContain(u.search);
      for (const secret of s.secrets) expect(text).not.toContain(secret);
    }
  });
});

describe('a secret query parameter by reference', () => {
  it('is in the template as its reference only, and the run may read it (and nothing else) where it runs', () => {
    const all = templates.map(([, json]) => json).join('\n');
    expect(all).toContain(QUERY_SECRET_REF);
    const probeStack = (targets: FleetInput['targets']) =>
      JSON.stringify(synthFleet(smallFleet({ targets })).json('McpCanary-probe-eu-west-1'));
    const url = 'https://docs.example.com/mcp?read_only=true';
    const bySsm = probeStack([{ name: 'docs', url, querySecrets: { token: { ssmParameter: '/mcp-canary/docs/token' } } }]);
    const none = probeStack([{ name: 'docs', url }]);
    expect(bySsm).toContain('ssm:GetParameter');
    expect(bySsm).toContain('parameter/mcp-canary');
    expect(none).not.toContain('ssm:GetParameter');
  });

  it('refuses a credential written into the url at synth, naming the field and querySecrets', () => {
    for (const url of [
      'https://docs.example.com/mcp?token=abc123',
      'https://docs.example.com/mcp?read_only=true&api_key=k',
      'https://docs.example.com/mcp?sig=x&X=1',
      'https://docs.example.com/mcp?u=sk-live-0a1b2c3d4e',
    ]) {
      const bad = smallFleet({ targets: [{ name: 'docs', url }] });
      expect(() => checkFleet(bad), url).toThrow(
        /^mcp-canary fleet config: targets\[0\] \("docs"\)\.url has \?\w+=…, a credential .* Move it to querySecrets/,
      );
      try {
        checkFleet(bad);
      } catch (e) {
        // The value itself is never echoed.
        expect((e as Error).message).not.toMatch(/abc123|=k\b|sk-live-0a1b2c3d4e/);
      }
    }
  });

  it('refuses a reference outside mcp-canary/, as for every credential the run functions read', () => {
    const bad = smallFleet({
      targets: [{ name: 'docs', url: 'https://docs.example.com/mcp', querySecrets: { token: { secretsManager: 'team/docs-token' } } }],
    });
    expect(() => planFleet(bad)).toThrow(
      /targets\[0\] \("docs"\)\.querySecrets\.token\.secretsManager \("team\/docs-token"\) is outside mcp-canary\//,
    );
  });

  it('refuses a key given both in querySecrets and in the url, without echoing the url value', () => {
    const bad = smallFleet({
      targets: [
        { name: 'docs', url: 'https://docs.example.com/mcp?lang=xq-77', querySecrets: { lang: { ssmParameter: '/mcp-canary/docs/lang' } } },
      ],
    });
    expect(() => checkFleet(bad)).toThrow(
      /querySecrets\.lang is also in url's query \(\?lang=…\): give it in one place, querySecrets, and remove it from url/,
    );
    expect(() => checkFleet(bad)).not.toThrow(/xq-77/);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
