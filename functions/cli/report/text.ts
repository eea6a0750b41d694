/**
 * The plain-text report: one table row per target, then the incidents, then how it was read and what it
 * cost. Target names and failure classes pass through `printable`'s rule (escapes, not control bytes).
 */
import { fleetNameWords, type Report } from './report.ts';
import { alarmWords, classWords, incidentCount, openWords, percent, span, usd, when } from './words.ts';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const visible = (s: string) => s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function renderText(r: Report): string {
  const out: string[] = [];
  out.push(
    `mcp-canary report: fleet ${visible(r.fleet)} (${fleetNameWords(r.fleetNameFrom)}), namespace ${r.namespace} in ${r.homeRegion}, ${r.window.days} day(s): ${when(r.window.start)} → ${when(r.window.end)}`,
  );
  for (const w of r.warnings) out.push(`Warning: ${visible(w)}`);
  out.push('');
  out.push(
    table([
      ['TARGET', 'AVAILABILITY', 'SLO', 'BUDGET LEFT', 'INCIDENTS', 'MEAN TTR', 'MAX TTR', 'DOWN', 'DEGRADED', 'MAINTENANCE', 'NO DATA'],
      ...r.targets.map((t) => [
        visible(t.target),
        percent(t.availabilityPercent),
        t.slo ? `${t.slo.objective} %` : '—',
        t.slo ? `${percent(t.slo.errorBudget.leftPercent, 1)} (${span(t.slo.errorBudget.leftSeconds)})` : '—',
        incidentCount(t),
        t.timeToResolve.meanSeconds === null ? '—' : span(t.timeToResolve.meanSeconds),
        t.timeToResolve.maxSeconds === null ? '—' : span(t.timeToResolve.maxSeconds),
        span(t.seconds.down),
        span(t.seconds.degraded),
        span(t.seconds.maintenance),
        span(t.seconds.noData),
      ]),
    ]),
  );
  const incidents = r.targets.flatMap((t) => t.incidents.map((i) => ({ t: t.target, i })));
  out.push('');
  if (incidents.length === 0) out.push('Incidents: none in the window.');
  else {
    out.push("Incidents (by the paging rule; whether each paged, from its page alarm's history):");
    for (const { t, i } of incidents) {
      const end = i.end === null ? openWords(r.window.endsNow) : when(i.end);
      const notes = [
        classWords(i),
        alarmWords(i),
        ...(i.maintenance === 'inside'
          ? ['inside maintenance: not counted']
          : i.maintenance === 'partly'
            ? [`${span(i.countedSeconds)} outside maintenance`]
            : []),
      ];
      const start = i.startedBeforeWindow ? `already open at ${when(i.start)}` : when(i.start);
      out.push(
        `  ${visible(t)}  ${start} → ${end}  ${span(i.durationSeconds)}${i.startedBeforeWindow ? ' in the window' : ''}  ${visible(notes.join('; '))}`,
      );
    }
  }
  const windows = r.targets.flatMap((t) => t.maintenance.map((w) => ({ t: t.target, w })));
  if (windows.length) {
    out.push('');
    out.push('Maintenance (shown, left out of availability):');
    for (const { t, w } of windows) out.push(`  ${visible(t)}  ${visible(w.name)}  ${when(w.start)} → ${when(w.end)}`);
  }
  out.push('');
  const notes = [...new Set(r.targets.map((t) => t.resolution.note))];
  out.push(`Read: ${notes.join('; ')}.`);
  out.push(
    `Alarm history: ${r.alarmHistoryFrom ? `from ${when(r.alarmHistoryFrom)} (CloudWatch keeps 30 days)` : 'not read'}. Availability = (up + degraded) / (up + degraded + down); maintenance and no-data left out.`,
  );
  out.push(
    `Cost: ${r.cost.getMetricDataRequests} GetMetricData request(s) for ${r.cost.metricsRequested} metric(s) (${r.cost.datapoints} datapoints), ${r.cost.describeAlarmHistoryCalls} DescribeAlarmHistory and ${r.cost.describeAlarmsCalls} DescribeAlarms call(s), ${r.cost.filterLogEventsCalls} FilterLogEvents call(s) for failure classes: about ${usd(r.cost.estimatedUsd)} at list price.`,
  );
  return `${out.join('\n')}\n`;
}
