/**
 * The page's HTML as text: every interpolation escaped (a display name of `<script>` is text), the
 * landmarks, headings and language a reader needs, no script at all, and nothing of the config but
 * display names. Rendering and accessibility in a browser: test/release/lambdas/status/page.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderPage } from '../../../../functions/lambdas/status/html.ts';
import { buildSnapshot } from '../../../../functions/lambdas/status/snapshot.ts';
import { NOW, statusHistories, statusPayload } from '../../../helpers/status/fixtures.ts';

const overallLine = (page: string) => /<p class="overall[^"]*">.*?<\/span> ([^<]+)<\/p>/.exec(page)?.[1];

const html = () =>
  renderPage(buildSnapshot(statusPayload(), statusHistories(), { now: NOW, upcomingDays: 14 }), {
    every: '5 minutes',
    jsonHref: 'status.json',
  });

describe('the status page HTML', () => {
  it('escapes every value: a display name of markup is text', () => {
    const page = html();
    expect(page).not.toContain('<script');
    expect(page).not.toContain('alert("pwned")');
    expect(page).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62; &#38; Co');
    expect(escapeHtml(`<a href='x'>&"`)).toBe('&#60;a href=&#39;x&#39;&#62;&#38;&#34;');
  });

  it('has a language, a title, landmarks and one h1', () => {
    const page = html();
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).toContain('<title>Acme MCP status</title>');
    for (const tag of ['<header>', '<main>', '<footer>']) expect(page).toContain(tag);
    expect(page.match(/<h1>/g)).toHaveLength(1);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('gives every bar its words and every state a word beside its colour', () => {
    const page = html();
    const bars = page.match(/<li class="bar s-[a-z_]+" title="[^"]+"><span class="vh">[^<]+<\/span><\/li>/g) ?? [];
    expect(bars).toHaveLength(5 * 90);
    for (const word of ['Working', 'Failing', 'Degraded', 'Under maintenance', 'No data']) expect(page).toContain(`</span> ${word}</p>`);
  });

  it('links the JSON relatively and names no host', () => {
    const page = html();
    expect(page).toContain('<a href="status.json">status.json</a>');
    expect(page).not.toMatch(/https?:\/\//);
  });
});

describe('the overall line', () => {
  it('counts the services it names: each state beside the number shown', () => {
    expect(overallLine(html())).toBe('1 of 5 services is failing, 1 is degraded, 1 is under maintenance and 1 has no recent data');
  });

  it('says all are working only when every one is: a silent one is not working as far as the page knows', () => {
    // Prepare: two services, one up, one whose canary has been silent for half an hour.
    const payload = {
      ...statusPayload(),
      targets: statusPayload().targets.slice(0, 1).concat(statusPayload().targets[4]!),
      maintenance: [],
    };
    const histories = statusHistories().map((h) => (h.metric === 'search-prod' ? { ...h, incidents: [] } : h));
    // Act
    const s = buildSnapshot(payload, histories, { now: NOW, upcomingDays: 14 });
    const page = renderPage(s, { every: '5 minutes', jsonHref: 'status.json' });
    // Assess
    expect(s.targets.map((t) => t.state)).toEqual(['up', 'no_data']);
    expect(s.overall).toBe('no_data');
    expect(overallLine(page)).toBe('1 of 2 services has no recent data');
    const up = buildSnapshot({ ...payload, targets: payload.targets.slice(0, 1) }, histories, { now: NOW, upcomingDays: 14 });
    expect(overallLine(renderPage(up, { every: '5 minutes', jsonHref: 'status.json' }))).toBe('The service is working');
  });
});
