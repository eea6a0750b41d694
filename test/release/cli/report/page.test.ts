/**
 * `mcp-canary report --html` in a real browser, as the status page is checked (test/integration/lambdas/status/
 * page.test.ts): Debian's headless Chromium through puppeteer-core, axe-core at WCAG 2.2 AA at 375 px and
 * 1280 px, and no horizontal scroll. The report is built from a history with every state in it (up, down,
 * degraded, maintenance, no data), an open incident and an SLO overspent, so each part of the page is drawn;
 * a target with the longest name the config allows and a long fleet name, neither with a space to break at.
 */
import axe from 'axe-core';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import type { FleetHistory, TargetHistory } from '../../../../functions/io/history/read.ts';
import { buildTimeline, type PeriodSample } from '../../../../functions/io/history/timeline.ts';
import { renderHtml } from '../../../../functions/cli/report/html.ts';
import { buildReport } from '../../../../functions/cli/report/report.ts';
import { describeNeeding, requireTool } from '../../../helpers/tools.ts';

const describe = describeNeeding(['chromium']);
const MIN = 60_000;
/** The longest target name the config allows, with no space to break at. */
const LONG = 'search-production-eu-west-1.primary.internal-cluster-0001-abcde';
const T0 = Date.UTC(2026, 10, 30, 10, 0);
const fleet = parseFleet({
  homeRegion: 'us-east-1',
  slo: { objective: 99.9 },
  targets: [
    { name: 'rates-prod', url: 'https://rates.example.com/mcp' },
    { name: 'search-prod', url: 'https://search.example.com/mcp' },
    { name: LONG, url: 'https://long.example.com/mcp' },
  ],
});

/** 3 regions, quorum 2, N 3, 180 minutes: `failing(i)` regions fail in minute i; undefined: no region reported. */
function target(
  name: string,
  failing: (i: number) => number | undefined,
  maintenance: Array<{ startMs: number; endMs: number }>,
): TargetHistory {
  const samples = Array.from({ length: 180 }, (_, i): PeriodSample | undefined => {
    const f = failing(i);
    return f === undefined ? undefined : { failing: f, reports: 3 };
  });
  const rule = { regions: 3, quorum: 2, runsInARow: 3, periodSeconds: 60 };
  const timeline = buildTimeline({ rule, startMs: T0, samples, maintenance });
  return {
    target: name,
    rule,
    resolution: {
      periodSeconds: 60,
      runsPerPeriod: 1,
      exact: true,
      note: 'read run by run (60 s points): the paging rule replayed exactly',
    },
    timeline,
    incidents: timeline.incidents.map((i, n) => ({
      ...i,
      alarm: n === 0 ? 'paged' : 'unknown',
      alarmNote: n === 0 ? null : 'older than the 30 days of alarm history CloudWatch keeps',
      failureClassNote: n === 0 ? null : 'no failed run logged in the periods that paged',
      failureClass: n === 0 ? 'timeout' : null,
    })),
    maintenance: maintenance.map((w) => ({ name: 'deploy', ...w })),
    transitions: [],
  };
}

function history(): FleetHistory {
  const window = [{ startMs: T0 + 100 * MIN, endMs: T0 + 110 * MIN }];
  return {
    fleetName: 'McpCanaryProductionFleetForTheWholeCompanyAcrossAllRegions2026',
    namespace: 'McpCanary',
    homeRegion: 'us-east-1',
    days: 1,
    startMs: T0,
    endMs: T0 + 180 * MIN,
    endsNow: true,
    alarmHistoryFromMs: T0,
    alarms: { looked: 2, found: 2, listError: null },
    // One region's log refused: the warning line is drawn too (its colour and wrapping checked with the rest).
    runLog: {
      logGroupName: '/mcp-canary/McpCanary/run',
      lookups: 3,
      unread: [{ region: 'ap-southeast-2', problem: 'unreadable', error: 'AccessDeniedException' }],
    },
    cost: { requests: 1, metrics: 4, datapoints: 720, alarmHistoryCalls: 1, describeAlarmsCalls: 1, logCalls: 6 },
    targets: [
      // Down 20–40, degraded (one region, a ticket) 60–80, a failure inside maintenance 100–110, silent 130–140, down again from 170 (open).
      target(
        'rates-prod',
        (i) => (i >= 130 && i < 140 ? undefined : (i >= 20 && i < 40) || (i >= 100 && i < 110) || i >= 170 ? 2 : i >= 60 && i < 80 ? 1 : 0),
        window,
      ),
      target('search-prod', () => 0, []),
      target(LONG, (i) => (i >= 20 && i < 40 ? 3 : 0), []),
    ],
  };
}

let browser: Browser;
let html: string;

beforeAll(async () => {
  html = renderHtml(buildReport(history(), fleet));
  browser = await puppeteer.launch({
    executablePath: requireTool('chromium'),
    headless: true,
    // Root in CI has no user namespace sandbox; the page is our own.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('the report page in Chromium', () => {
  it.each([375, 1280])('passes axe-core at WCAG 2.2 AA with no violations and fits %i px with no horizontal scroll', async (width) => {
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.setContent(html, { waitUntil: 'load' });
    const fit = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(fit.scroll, `at ${width} px`).toBeLessThanOrEqual(fit.inner);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    expect(await page.evaluate(() => document.querySelector('.warn')?.textContent)).toMatch(/^Warning: could not read run log/);
    await page.addScriptTag({ content: axe.source });
    const result = await page.evaluate(async () => {
      const r = await (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      });
      return {
        violations: r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
        passes: r.passes.map((p) => p.id),
      };
    });
    expect(result.violations, `at ${width} px`).toEqual([]);
    expect(result.passes).toEqual(expect.arrayContaining(['color-contrast', 'html-has-lang', 'document-title']));
    await page.close();
  });

  it.each([375, 1280])('draws every word at a readable size at %i px, the charts’ too', async (width) => {
    // An SVG scales its text with its width: 12 units of a 1000-wide viewBox were about 4 px at 375 px.
    const page = await browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.setContent(html, { waitUntil: 'load' });
    const small = await page.evaluate(() => {
      const out: string[] = [];
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (!n.textContent?.trim() || n.parentElement?.closest('title')) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const box = range.getBoundingClientRect();
        // A line box at least 12 px tall: text of about 11 px or more (WCAG's reflow leaves the size to us).
        if (box.height > 0 && box.height < 12) out.push(`${n.textContent.trim().slice(0, 40)}: ${box.height.toFixed(1)} px`);
      }
      return out;
    });
    expect(small, `at ${width} px`).toEqual([]);
    expect(await page.evaluate(() => document.querySelectorAll('svg text').length)).toBe(0);
    await page.close();
  });
});
