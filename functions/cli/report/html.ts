/**
 * `--html FILE`: the report as one self-contained page, for people: inline CSS, inline SVG charts (a
 * state strip over the window, and the error budget burning down), no JavaScript, nothing fetched. It
 * renders the Report (report.ts) and only it, so it can hold nothing the JSON does not: no URL, no header.
 * Every text is escaped; colours are paired with words (legend, titles) for people who do not see them.
 */
import type { IntervalState } from '../../io/history/timeline.ts';
import { fleetNameWords, type Report, type ReportTarget } from './report.ts';
import { alarmWords, classWords, incidentCount, openWords, percent, span, usd, when } from './words.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const COLOURS: Record<IntervalState, string> = {
  up: '#2e7d32',
  degraded: '#f9a825',
  down: '#c62828',
  maintenance: '#5c6bc0',
  'no-data': '#bdbdbd',
};
const STATES = Object.keys(COLOURS) as IntervalState[];

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin:0 0 .4rem}
h1,h2,.meta,.small{overflow-wrap:anywhere}
.meta{color:#555;margin:0 0 1rem}
section{background:#fff;border:1px solid #ddd;border-radius:8px;padding:14px;margin:0 0 16px}
.figures{display:flex;flex-wrap:wrap;gap:12px 28px;margin:.4rem 0 .8rem}
.figures div{min-width:120px}.figures b{display:block;font-size:1.3rem}
svg{width:100%;display:block}svg.strip{height:28px}svg.burn{height:120px}
.axis span:last-child{margin-left:auto}.axis{display:flex;justify-content:space-between;gap:0 8px;flex-wrap:wrap;margin:.2rem 0 .6rem;font-size:.85rem;color:#555}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.85rem;margin:.3rem 0 .6rem;padding:0;list-style:none}
.legend span{display:inline-block;width:.8em;height:.8em;margin-right:.35em;vertical-align:-.05em;border-radius:2px}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee}
.scroll{overflow-x:auto}.scroll:focus-visible{outline:2px solid #1a56db;outline-offset:2px}.over{color:#c62828;font-weight:600}.warn{color:#8a4b00;overflow-wrap:anywhere}.small{font-size:.85rem;color:#555}
@media (max-width:600px){body{font-size:14px}.figures div{min-width:45%}td,th{padding:3px 4px}}
`;

export function renderHtml(r: Report): string {
  const targets = r.targets.map((t, n) => targetSection(t, n, r.window.endsNow)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-canary report: ${esc(r.fleet)}, ${r.window.days} days</title>
<style>${CSS}</style>
</head>
<body>
<main>
<h1>MCP availability: ${esc(r.fleet)}</h1>
<p class="meta">${esc(`Fleet ${r.fleet} (${fleetNameWords(r.fleetNameFrom)}), namespace ${r.namespace} in ${r.homeRegion}.`)} ${r.window.days} day(s), ${esc(when(r.window.start))} to ${esc(when(r.window.end))}. Measured by the rule that pages; maintenance windows are shown and left out.</p>
${r.warnings.length ? `<ul class="warn">${r.warnings.map((w) => `<li>${esc(`Warning: ${w}`)}</li>`).join('')}</ul>` : ''}
<ul class="legend" aria-label="Colours">${STATES.map((s) => `<li><span style="background:${COLOURS[s]}"></span>${s}</li>`).join('')}<li><span style="background:repeating-linear-gradient(45deg,${COLOURS.down} 0 2px,#eee 2px 4px)"></span>striped: flapping (several states within one column; its title says which)</li></ul>
${targets}
<p class="small">${esc(`Read: ${[...new Set(r.targets.map((t) => t.resolution.note))].join('; ')}.`)}<br>
${esc(`Cost: ${r.cost.getMetricDataRequests} GetMetricData request(s), ${r.cost.metricsRequested} metric(s), ${r.cost.describeAlarmHistoryCalls} DescribeAlarmHistory and ${r.cost.describeAlarmsCalls} DescribeAlarms call(s), ${r.cost.filterLogEventsCalls} FilterLogEvents call(s): about ${usd(r.cost.estimatedUsd)}.`)}</p>
</main>
</body>
</html>
`;
}

function targetSection(t: ReportTarget, n: number, endsNow: boolean): string {
  const budget = t.slo?.errorBudget;
  const figures = [
    ['Availability', percent(t.availabilityPercent)],
    ['Objective', t.slo ? `${t.slo.objective} %` : 'none set'],
    ['Error budget left', budget ? `${percent(budget.leftPercent, 1)} (${span(budget.leftSeconds)})` : '—'],
    ['Incidents', incidentCount(t)],
    [
      'Time to resolve',
      t.timeToResolve.meanSeconds === null ? '—' : `${span(t.timeToResolve.meanSeconds)} mean, ${span(t.timeToResolve.maxSeconds!)} max`,
    ],
    ['Down / degraded', `${span(t.seconds.down)} / ${span(t.seconds.degraded)}`],
    ['Maintenance', span(t.seconds.maintenance)],
  ];
  return `<section aria-labelledby="t-${esc(t.target)}">
<h2 id="t-${esc(t.target)}">${esc(t.target)}</h2>
<div class="figures">${figures.map(([k, v]) => `<div>${esc(k!)}<b class="${k === 'Error budget left' && budget && budget.leftSeconds < 0 ? 'over' : ''}">${esc(v!)}</b></div>`).join('')}</div>
${strip(t, n)}
${budget ? burnDown(t) : ''}
${incidentTable(t, endsNow)}
</section>`;
}

/**
 * The strip's width in columns (about a pixel each on a wide screen): an interval narrower than one is
 * merged with its narrow neighbours, so a flapping target's 15 days of minute-long intervals draw at most
 * a few shapes per column, not one each (the page stays small), and the merged span says it flapped.
 */
export const STRIP_COLUMNS = 500;
/** Worst first: the colour a flapping span is drawn in (under stripes that say it is mixed). */
const WORST: readonly IntervalState[] = ['down', 'degraded', 'no-data', 'maintenance', 'up'];

interface Shape {
  readonly start: string;
  readonly end: string;
  /** One state, or several within less than a column (flapping). */
  readonly states: ReadonlyMap<IntervalState, { ms: number; times: number }>;
}

/** Intervals as shapes: wide ones as they are, runs of narrow ones merged until a run is a column wide. */
export function stripShapes(intervals: ReportTarget['intervals']): Shape[] {
  const first = Date.parse(intervals[0]?.start ?? '');
  const last = Date.parse(intervals[intervals.length - 1]?.end ?? '');
  const column = (last - first) / STRIP_COLUMNS;
  const out: Shape[] = [];
  let run: { start: string; end: string; states: Map<IntervalState, { ms: number; times: number }> } | null = null;
  const flush = () => {
    if (run) out.push(run);
    run = null;
  };
  for (const i of intervals) {
    const ms = Date.parse(i.end) - Date.parse(i.start);
    if (ms >= column) {
      flush();
      out.push({ start: i.start, end: i.end, states: new Map([[i.state, { ms, times: 1 }]]) });
      continue;
    }
    run ??= { start: i.start, end: i.end, states: new Map() };
    run.end = i.end;
    const seen = run.states.get(i.state) ?? { ms: 0, times: 0 };
    run.states.set(i.state, { ms: seen.ms + ms, times: seen.times + 1 });
    if (Date.parse(run.end) - Date.parse(run.start) >= column) flush();
  }
  flush();
  return out;
}

/** The window as one bar, each interval (or a flapping span narrower than a column) a rect with its state in a title. */
function strip(t: ReportTarget, n: number): string {
  const start = Date.parse(t.intervals[0]?.start ?? '');
  const end = Date.parse(t.intervals[t.intervals.length - 1]?.end ?? '');
  if (!(end > start)) return '';
  const W = 1000;
  const x = (iso: string) => ((Date.parse(iso) - start) / (end - start)) * W;
  const shapes = stripShapes(t.intervals);
  const rects = shapes
    .map((sh) => {
      const w = Math.max(0.5, x(sh.end) - x(sh.start));
      const at = `x="${x(sh.start).toFixed(2)}" y="0" width="${w.toFixed(2)}" height="28"`;
      const states = WORST.filter((st) => sh.states.has(st));
      if (states.length === 1)
        return `<rect ${at} fill="${COLOURS[states[0]!]}"><title>${esc(`${states[0]}: ${when(sh.start)} to ${when(sh.end)}`)}</title></rect>`;
      const parts = states.map((st) => {
        const v = sh.states.get(st)!;
        return `${st} ${span(v.ms / 1000)} (${v.times} time${v.times === 1 ? '' : 's'})`;
      });
      const title = `flapping: ${when(sh.start)} to ${when(sh.end)}: ${parts.join(', ')}`;
      return `<rect ${at} fill="${COLOURS[states[0]!]}"/><rect ${at} fill="url(#flap-${n})"><title>${esc(title)}</title></rect>`;
    })
    .join('');
  const flapping = shapes.some((sh) => sh.states.size > 1);
  const defs = flapping
    ? `<defs><pattern id="flap-${n}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#fff" fill-opacity=".6"/></pattern></defs>`
    : '';
  const summary = `${t.target}: ${STATES.map((s) => `${s} ${span(seconds(t, s))}`).join(', ')}${flapping ? '; striped spans flapped (several states within one column)' : ''}`;
  // The shapes stretch to the width at a fixed height; the words are HTML below, at the page's own size
  // (SVG text in a 1000-wide viewBox shrank to about 4 px on a 375 px phone).
  return `<svg class="strip" viewBox="0 0 ${W} 28" preserveAspectRatio="none" role="img" aria-label="${esc(summary)}"><title>${esc(summary)}</title>${defs}${rects}</svg>
<p class="axis"><span>${esc(when(t.intervals[0]!.start))}</span><span>${esc(when(t.intervals[t.intervals.length - 1]!.end))}</span></p>`;
}

function seconds(t: ReportTarget, s: IntervalState): number {
  return s === 'no-data' ? t.seconds.noData : t.seconds[s];
}

/** Downtime spent so far against the budget earned so far ((1 − objective) × time judged). */
function burnDown(t: ReportTarget): string {
  const objective = t.slo!.objective;
  let judged = 0;
  let down = 0;
  const pts: Array<[number, number, number]> = [[Date.parse(t.intervals[0]!.start), 0, 0]];
  for (const i of t.intervals) {
    const d = (Date.parse(i.end) - Date.parse(i.start)) / 1000;
    if (i.state === 'down') down += d;
    if (i.state === 'up' || i.state === 'degraded' || i.state === 'down') judged += d;
    pts.push([Date.parse(i.end), down, judged * (1 - objective / 100)]);
  }
  const [t0] = pts[0]!;
  const t1 = pts[pts.length - 1]![0];
  const top = Math.max(1, ...pts.map((p) => Math.max(p[1], p[2])));
  const W = 1000;
  const H = 120;
  const px = (ms: number) => (t1 > t0 ? ((ms - t0) / (t1 - t0)) * W : 0);
  const py = (v: number) => H - (v / top) * (H - 10);
  // One point per unit of width at most (both lines only grow, so the points kept lie on the full line).
  const kept = pts.filter((p, n) => n === 0 || n === pts.length - 1 || Math.floor(px(p[0])) !== Math.floor(px(pts[n - 1]![0])));
  const line = (k: 1 | 2) => kept.map((p) => `${px(p[0]).toFixed(1)},${py(p[k]).toFixed(1)}`).join(' ');
  const label = `Error budget: ${span(down)} down of ${span(judged * (1 - objective / 100))} allowed at ${objective} %`;
  // Stretched to the width at a fixed height, the strokes kept at their width; the key is HTML (readable at 375 px).
  return `<svg class="burn" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${esc(label)}"><title>${esc(label)}</title>
<polyline points="${line(2)}" fill="none" stroke="#5c6bc0" stroke-width="2" stroke-dasharray="6 4" vector-effect="non-scaling-stroke"/>
<polyline points="${line(1)}" fill="none" stroke="#c62828" stroke-width="2.5" vector-effect="non-scaling-stroke"/></svg>
<p class="axis">red: downtime spent; dashed: budget allowed so far (${esc(span(top))} at the top)</p>`;
}

/** Rows of a target's incident table: a flapping target's thousands are in --json; the page lists the longest. */
export const INCIDENT_ROWS_SHOWN = 100;

function incidentTable(t: ReportTarget, endsNow: boolean): string {
  if (t.incidents.length === 0) return '<p class="small">No incidents in the window.</p>';
  const many = t.incidents.length > INCIDENT_ROWS_SHOWN;
  // The longest by counted time (the earlier of equals), then back in time order.
  const shown = many
    ? t.incidents
        .map((i, n) => ({ i, n }))
        .sort((a, b) => b.i.countedSeconds - a.i.countedSeconds || a.n - b.n)
        .slice(0, INCIDENT_ROWS_SHOWN)
        .sort((a, b) => a.n - b.n)
        .map((x) => x.i)
    : t.incidents;
  const caption = many
    ? `Incidents, by the rule that pages: the ${INCIDENT_ROWS_SHOWN} longest of ${t.incidents.length} (all of them are in --json)`
    : 'Incidents, by the rule that pages';
  const rows = shown
    .map(
      (i) =>
        `<tr><td>${esc(i.startedBeforeWindow ? `already open at ${when(i.start)}` : when(i.start))}</td><td>${esc(i.end === null ? openWords(endsNow) : when(i.end))}</td><td>${esc(span(i.durationSeconds))}</td><td>${esc(classWords(i))}</td><td>${esc(alarmWords(i))}</td><td>${esc(i.maintenance === 'none' ? '' : i.maintenance === 'inside' ? 'inside maintenance (not counted)' : `partly in maintenance (${span(i.countedSeconds)} counted)`)}</td></tr>`,
    )
    .join('');
  // A region that scrolls on a narrow screen takes the keyboard focus (WCAG 2.1.1: keyboard users can scroll it too).
  return `<div class="scroll" tabindex="0" role="region" aria-label="${esc(`${t.target}: incidents (scrolls sideways)`)}"><table><caption class="small">${esc(caption)}</caption><thead><tr><th scope="col">Start</th><th scope="col">End</th><th scope="col">Duration</th><th scope="col">Failure class</th><th scope="col">Alarm</th><th scope="col">Note</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
