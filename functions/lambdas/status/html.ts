/**
 * The page: one static HTML document from a snapshot, readable without JavaScript (it has none), with
 * landmarks, a heading outline, a word and a mark for every state and a text equivalent for every bar.
 * Every value from the config or the history goes through `escapeHtml`: a display name of `<script>` is
 * text. Hand-written rather than a template library: the page is one small fixed shape, and the one rule
 * that matters (escape every interpolation) is easiest to see here.
 */
import { formatPercent, type IncidentView, type MaintenanceView, type State, type StatusSnapshot, type TargetStatus } from './snapshot.ts';
import { STATUS_CSS } from './style.ts';
import { dateWords } from './words.ts';

/** The five characters that change meaning in HTML text and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const LABEL: Record<State, string> = {
  up: 'Working',
  degraded: 'Degraded',
  down: 'Failing',
  maintenance: 'Under maintenance',
  no_data: 'No data',
};
const MARK: Record<State, string> = { up: '✓', degraded: '!', down: '✕', maintenance: '⚙', no_data: '?' };
/** Each state as the overall line says it of some services: "1 is failing", "2 have no recent data". */
const OVERALL: Record<Exclude<State, 'up'>, readonly [one: string, many: string]> = {
  down: ['is failing', 'are failing'],
  degraded: ['is degraded', 'are degraded'],
  maintenance: ['is under maintenance', 'are under maintenance'],
  no_data: ['has no recent data', 'have no recent data'],
};

/**
 * The overall line counts what it names: "All 5 services are working" only when every one is, otherwise
 * how many of them are in each other state, worst first ("1 of 5 services is failing, 1 is degraded").
 */
export function overallWords(targets: readonly TargetStatus[]): string {
  const n = targets.length;
  if (n === 0) return 'No services are listed';
  const counts = (['down', 'degraded', 'maintenance', 'no_data'] as const)
    .map((st) => [st, targets.filter((t) => t.state === st).length] as const)
    .filter(([, k]) => k > 0);
  if (counts.length === 0) return n === 1 ? 'The service is working' : `All ${n} services are working`;
  const parts = counts.map(([st, k], i) => `${k}${i === 0 ? ` of ${n} service${n === 1 ? '' : 's'}` : ''} ${OVERALL[st][k === 1 ? 0 : 1]}`);
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** A weekly window fills 13 lines in 90 days: the page lists the latest, the JSON all of them. */
export const PAST_MAINTENANCE_SHOWN = 5;

export interface PageOptions {
  /** The refresh cadence, said in the footer ("every 5 minutes"). */
  readonly every: string;
  /** Where status.json is, relative to the page. */
  readonly jsonHref: string;
}

export function renderPage(s: StatusSnapshot, opts: PageOptions): string {
  const title = escapeHtml(s.title);
  const updated = time(s.generatedAt);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${STATUS_CSS}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p class="overall s-${s.overall}">${mark(s.overall)}${escapeHtml(overallWords(s.targets))}</p>
<p class="updated">Updated ${updated}, every ${escapeHtml(opts.every)}.</p>
</header>
<main>
<section aria-labelledby="h-services">
<h2 id="h-services">Services</h2>
${s.targets.length === 0 ? '<p>No services are listed.</p>' : `<ul class="targets">\n${s.targets.map((t) => target(t, s.days)).join('\n')}\n</ul>`}
<ul class="legend" aria-label="What the bars mean">${(['up', 'degraded', 'down', 'maintenance', 'no_data'] as const)
    .map((st) => `<li class="s-${st}">${mark(st)}${LABEL[st]}</li>`)
    .join('')}</ul>
</section>
<section aria-labelledby="h-incidents">
<h2 id="h-incidents">Incidents</h2>
<h3>Open</h3>
${events(s.incidents.open, 'No open incidents.', incident)}
<h3>Past ${s.days} days</h3>
${events(s.incidents.past, `No incidents in the past ${s.days} days.`, incident)}
</section>
<section aria-labelledby="h-maintenance">
<h2 id="h-maintenance">Maintenance</h2>
<h3>Now</h3>
${events(s.maintenance.now, 'No maintenance in progress.', maintenance)}
<h3>Upcoming</h3>
${events(s.maintenance.upcoming, 'No maintenance scheduled.', maintenance)}
<h3>Past ${s.days} days</h3>
${events(s.maintenance.past.slice(0, PAST_MAINTENANCE_SHOWN), `No maintenance in the past ${s.days} days.`, maintenance)}
${s.maintenance.past.length > PAST_MAINTENANCE_SHOWN ? `<p>And ${s.maintenance.past.length - PAST_MAINTENANCE_SHOWN} earlier, listed in status.json.</p>` : ''}
</section>
</main>
<footer>
<p>Checked by mcp-canary the way an agent uses each service. Times are UTC. The same data as JSON: <a href="${escapeHtml(opts.jsonHref)}">status.json</a>.</p>
</footer>
</body>
</html>
`;
}

function mark(state: State): string {
  return `<span class="mark" aria-hidden="true">${MARK[state]}</span> `;
}

function time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${dateWords(Date.parse(iso))} ${iso.slice(11, 16)} UTC</time>`;
}

function target(t: TargetStatus, days: number): string {
  const name = escapeHtml(t.name);
  const counts = (['down', 'degraded', 'maintenance', 'no_data'] as const)
    .map((st) => [st, t.days.filter((d) => d.state === st).length] as const)
    .filter(([, n]) => n > 0)
    .map(([st, n]) => `${n} ${LABEL[st].toLowerCase()}`);
  const uptime = t.uptime === null ? `No data in the last ${days} days` : `${formatPercent(t.uptime)} uptime over the last ${days} days`;
  const summary = `${uptime}${counts.length > 0 ? ` (days: ${counts.join(', ')})` : ''}.`;
  const bars = t.days
    .map((d) => {
      const text = escapeHtml(d.text);
      return `<li class="bar s-${d.state}" title="${text}"><span class="vh">${text}</span></li>`;
    })
    .join('');
  return `<li class="target">
<div class="target-head"><h3>${name}</h3><p class="state s-${t.state}">${mark(t.state)}${LABEL[t.state]}</p></div>
<p class="uptime">${escapeHtml(summary)}</p>
<ol class="bars" aria-label="${name}: each day of the last ${days}, oldest first">${bars}</ol>
<p class="axis" aria-hidden="true"><span>${days} days ago</span><span>Today</span></p>
</li>`;
}

function events<T>(items: readonly T[], none: string, one: (item: T) => string): string {
  if (items.length === 0) return `<p>${escapeHtml(none)}</p>`;
  return `<ul class="events">\n${items.map((i) => `<li>${one(i)}</li>`).join('\n')}\n</ul>`;
}

// The sentence carries its times in words; the mark says its kind, as the state words do above.
function incident(i: IncidentView): string {
  const state = i.kind === 'outage' ? 'down' : 'degraded';
  return `<span class="s-${state}">${mark(state)}</span>${escapeHtml(i.summary)}`;
}

function maintenance(m: MaintenanceView): string {
  return `<span class="s-maintenance">${mark('maintenance')}</span>${escapeHtml(m.summary)}`;
}
