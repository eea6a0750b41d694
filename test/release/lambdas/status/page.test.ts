/**
 * The status page in a real browser: Debian's headless Chromium driven by puppeteer-core (which downloads
 * no browser), the page served from loopback with the headers S3 and CloudFront give it (content type,
 * cache control, the CSP of the security headers policy). The page is built from a fleet config with
 * secrets planted in it, through the plan's payload, so what must not show is checked end to end.
 * Screenshots at 375 px and 1280 px go to a temp dir (printed); axe-core checks WCAG 2.x A/AA.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import { renderPage } from '../../../../functions/lambdas/status/html.ts';
import { buildSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';
import { CACHE_CONTROL, CONTENT_TYPES } from '../../../../functions/lambdas/status/write.ts';
import { STATUS_CSP } from '../../../../infra/constructs/status-stack.ts';
import { Fleet } from '../../../../functions/base/config/schema/fleet.ts';
import { statusPayload } from '../../../../functions/base/config/schema/status-page.ts';
import { targetRule } from '../../../../functions/base/config/schema/target-rule.ts';
import { at, MARKUP_NAME, NOW, statusHistories } from '../../../helpers/status/fixtures.ts';
import { describeNeeding, requireTool } from '../../../helpers/tools.ts';

const describe = describeNeeding(['chromium']);

/** What the config holds that the page must never show. */
const PLANTED = {
  url: 'https://search.internal.example.com/mcp?key=url-secret-7f3a',
  host: 'search.internal.example.com',
  headerPrefix: 'Bearer planted-prefix-91c2 ',
  secretName: 'mcp-canary/search-token',
  hiddenName: 'payroll-admin-tools',
  configName: 'rates-prod',
  account: '111122223333',
  windowName: 'secret-window-name',
  region: 'ap-southeast-2',
};

function plantedFleet(): FleetInput {
  const t = (name: string, status?: { name?: string; hidden?: boolean }) => ({
    name,
    url: `https://${name}.example.com/mcp`,
    ...(status ? { status } : {}),
  });
  return {
    homeRegion: 'us-east-1',
    probeRegions: ['us-east-1', 'eu-west-1', PLANTED.region],
    failureThreshold: 3,
    statusPage: { title: 'Acme MCP status', public: true },
    notify: { pages: [{ sqsQueueArn: `arn:aws:sqs:us-east-1:${PLANTED.account}:pages` }] },
    targets: [
      {
        name: 'search-prod',
        url: PLANTED.url,
        headerSecrets: { Authorization: { secretsManager: PLANTED.secretName, prefix: PLANTED.headerPrefix } },
        status: { name: 'Search tools' },
      },
      t(PLANTED.configName, { name: 'Rates API' }),
      t('docs-prod', { name: 'Docs search' }),
      t('tickets-prod', { name: 'Ticketing' }),
      t('new-prod', { name: MARKUP_NAME }),
      t(PLANTED.hiddenName, { hidden: true }),
    ],
    maintenance: [
      { name: PLANTED.windowName, schedule: 'at(2026-12-01T14:30)', duration: '2 hours', targets: ['tickets-prod'] },
      { name: 'sundays', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', targets: ['search-prod', PLANTED.hiddenName] },
      { name: 'hidden-only', schedule: 'cron(0 4 * * MON)', duration: '1 hour', targets: [PLANTED.hiddenName] },
    ],
  };
}

let server: Server;
let base: string;
let browser: Browser;
let html: string;
let json: string;
const shots = mkdtempSync(join(tmpdir(), 'mcp-canary-status-shots-'));

beforeAll(async () => {
  // The plan's payload builder, without the plan's synth-day check (a past at(…) window is refused there).
  const fleet = Fleet.parse(plantedFleet());
  const payload = statusPayload(
    fleet,
    'McpCanary',
    fleet.targets.map((t) => ({ ...targetRule(fleet, t), name: t.name, status: t.status })),
  );
  const snapshot = buildSnapshot(payload, statusHistories(), { now: NOW, upcomingDays: 14 });
  html = renderPage(snapshot, { every: '5 minutes', jsonHref: 'status.json' });
  json = JSON.stringify(snapshot);
  server = createServer((req, res) => {
    const isJson = req.url === '/status.json';
    res.writeHead(200, {
      'content-type': isJson ? CONTENT_TYPES.json : CONTENT_TYPES.html,
      'cache-control': CACHE_CONTROL,
      'content-security-policy': STATUS_CSP,
    });
    res.end(isJson ? json : html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  browser = await puppeteer.launch({
    executablePath: requireTool('chromium'),
    headless: true,
    // Root in CI has no user namespace sandbox; the page is our own, on loopback.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  console.log(`status page screenshots: ${shots}`);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function open(width: number, javaScript = true): Promise<Page> {
  const page = await browser.newPage();
  await page.setJavaScriptEnabled(javaScript);
  await page.setViewport({ width, height: 900 });
  const res = await page.goto(base, { waitUntil: 'load' });
  expect(res?.headers()['content-type']).toBe(CONTENT_TYPES.html);
  return page;
}

const STATES = ['Working', 'Failing', 'Degraded', 'Under maintenance', 'No data'];

describe('the status page in Chromium', () => {
  it.each([375, 1280])('fits a %i px window with no horizontal scroll, every state shown', async (width) => {
    const page = await open(width);
    const fit = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.inner);
    const text = await page.evaluate(() => document.body.innerText);
    for (const s of STATES) expect(text).toContain(s);
    expect(text).toContain('Search tools failed for agents from 2 of 3 regions, 14:02–14:31 UTC (29 min).');
    expect(text).toContain(MARKUP_NAME);
    // The bars keep their width on both: 90 per row, each at least a pixel wide, none past the edge.
    const bars = await page.$$eval('.targets > li:first-child .bar', (els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { width: r.width, right: r.right };
      }),
    );
    expect(bars).toHaveLength(90);
    expect(Math.min(...bars.map((b) => b.width))).toBeGreaterThan(1);
    expect(Math.max(...bars.map((b) => b.right))).toBeLessThanOrEqual(width);
    const file = join(shots, `status-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    expect(statSync(file).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it('wraps the longest title (120 characters) and display name (80) the config allows, with no space to break at', async () => {
    // Prepare
    const title = 'AcmeCorporationModelContextProtocolServicesStatus'.repeat(3).slice(0, 120);
    const name = 'SearchToolsForTheEnterpriseKnowledgeBaseAcrossAllRegions'.repeat(2).slice(0, 80);
    const fleet = Fleet.parse({
      ...plantedFleet(),
      statusPage: { title, public: true },
      targets: plantedFleet().targets.map((t, i) => (i === 0 ? { ...t, status: { name } } : t)),
    });
    const payload = statusPayload(
      fleet,
      'McpCanary',
      fleet.targets.map((t) => ({ ...targetRule(fleet, t), name: t.name, status: t.status })),
    );
    const long = renderPage(buildSnapshot(payload, statusHistories(), { now: NOW, upcomingDays: 14 }), {
      every: '5 minutes',
      jsonHref: 'status.json',
    });
    for (const width of [320, 1280]) {
      const page = await browser.newPage();
      await page.setViewport({ width, height: 900 });
      // Act
      await page.setContent(long, { waitUntil: 'load' });
      // Assess
      const fit = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      expect(fit.scroll, `at ${width} px`).toBeLessThanOrEqual(fit.inner);
      expect(await page.evaluate(() => document.body.innerText)).toContain(title);
      await page.close();
    }
  });

  it('says of an outage inside a maintenance window that it was inside it and not counted, as the report does', async () => {
    // Prepare: Ticketing failed 14:35–14:45, inside its window of 14:30–16:30 today.
    const histories = statusHistories().map((h) =>
      h.metric === 'tickets-prod'
        ? {
            ...h,
            segments: [
              { start: h.segments[0]!.start, end: at(14, 35), state: 'up' as const },
              { start: at(14, 35), end: at(14, 45), state: 'down' as const },
              { start: at(14, 45), end: NOW, state: 'up' as const },
            ],
            incidents: [{ kind: 'outage' as const, start: at(14, 35), end: at(14, 45), failedRegions: 3, unhealthyRegions: 3, regions: 3 }],
          }
        : h,
    );
    const fleet = Fleet.parse(plantedFleet());
    const payload = statusPayload(
      fleet,
      'McpCanary',
      fleet.targets.map((t) => ({ ...targetRule(fleet, t), name: t.name, status: t.status })),
    );
    const snapshot = buildSnapshot(payload, histories, { now: NOW, upcomingDays: 14 });
    const page = await browser.newPage();
    await page.setViewport({ width: 375, height: 900 });
    // Act
    await page.setContent(renderPage(snapshot, { every: '5 minutes', jsonHref: 'status.json' }), { waitUntil: 'load' });
    // Assess: in the words a person reads, and in status.json; uptime untouched (100 %, as the report leaves it out).
    const sentence =
      'Ticketing failed for agents from all 3 regions, 14:35–14:45 UTC (10 min). It was inside a maintenance window, so it does not count against uptime.';
    expect(await page.evaluate(() => document.body.innerText)).toContain(sentence);
    expect(snapshot.incidents.past.find((i) => i.target === 'Ticketing')).toMatchObject({ maintenance: 'inside', countedMinutes: 0 });
    expect(snapshot.targets.find((t) => t.name === 'Ticketing')).toMatchObject({ uptime: 100, state: 'maintenance' });
    await page.close();
  });

  it('runs no script: the markup name is text, and nothing executed', async () => {
    const page = await open(1280);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned)).toBeUndefined();
    await page.close();
  });

  it('has everything with JavaScript disabled', async () => {
    const page = await open(375, false);
    // The accessibility tree comes from the browser, not from page script: what a screen reader gets.
    const tree = JSON.stringify(await page.accessibility.snapshot({ interestingOnly: false }));
    for (const s of [...STATES, 'Search tools', 'Rates API', 'Docs search', 'Ticketing', 'Acme MCP status'])
      expect(tree, s).toContain(JSON.stringify(s).slice(1, -1));
    expect(tree).toContain('Rates API is failing for agents from 2 of 3 regions since 14:32 UTC (28 min so far): it refused the canary');
    expect(tree).toContain('2026-12-01: down 29 min');
    expect(tree).toContain('Maintenance of Ticketing, until 16:30 UTC');
    await page.screenshot({ path: join(shots, 'status-375-no-js.png'), fullPage: true });
    await page.close();
  });

  it('passes axe-core at WCAG 2.2 AA with no violations, at both widths', async () => {
    for (const width of [375, 1280]) {
      const page = await browser.newPage();
      // The served CSP forbids scripts (as CloudFront's does); the checker is ours, not the page's.
      await page.setBypassCSP(true);
      await page.setViewport({ width, height: 900 });
      await page.goto(base, { waitUntil: 'load' });
      await page.addScriptTag({ content: axe.source });
      const result = await page.evaluate(async () => {
        const r = await (window as unknown as { axe: typeof axe }).axe.run(document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        });
        return { violations: r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`), passes: r.passes.map((p) => p.id) };
      });
      expect(result.violations, `at ${width} px`).toEqual([]);
      expect(result.passes).toEqual(expect.arrayContaining(['color-contrast', 'html-has-lang', 'document-title', 'landmark-one-main']));
      await page.close();
    }
  });

  it('shows nothing private: not in the HTML, the JSON or the rendered text', async () => {
    const page = await open(1280);
    const rendered = await page.evaluate(() => document.body.innerText);
    const served = await (await fetch(`${base}status.json`)).text();
    for (const [what, text] of [
      ['html', html],
      ['json', served],
      ['rendered', rendered],
    ] as const) {
      for (const [name, secret] of Object.entries(PLANTED)) expect(text, `${what} shows ${name}`).not.toContain(secret);
      expect(text, `${what} shows a URL`).not.toMatch(/https?:\/\//);
      expect(text, `${what} shows a region`).not.toMatch(/\b[a-z]{2}-[a-z]+-\d\b/);
    }
    await page.close();
  });
});
