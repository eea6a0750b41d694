/** The readable result: one line per probe with timing, then the verdict line. No colours needed. */
import type { Verdict } from '../verdict.ts';

const MARK = { ok: '✓', fail: '✗' } as const;

export function renderVerdict(v: Verdict, url?: string): string {
  const lines: string[] = [];
  const era = [v.revision, v.server ? `${v.server.name} ${v.server.version}` : null].filter(Boolean).join(', ');
  lines.push(`${v.target}${url ? `  ${displayUrl(url)}` : ''}${era ? `  (${era})` : ''}`);
  const nameWidth = Math.max(10, ...v.probes.map((p) => p.name.length));
  const msWidth = Math.max(4, ...v.probes.map((p) => String(p.durationMs).length));
  for (const p of v.probes) {
    const ms = `${String(p.durationMs).padStart(msWidth)} ms`;
    const failure = p.failure ? `${p.failure}  ` : '';
    lines.push(`  ${p.ok ? MARK.ok : MARK.fail} ${p.name.padEnd(nameWidth)} ${ms}  ${failure}${p.detail}`);
  }
  const failure = v.failure ? `  ${v.failure}` : '';
  const retries = v.retries > 0 ? `, ${v.retries} retr${v.retries === 1 ? 'y' : 'ies'}` : '';
  lines.push(`${v.outcome.toUpperCase()}${failure}  ${v.detail}  (${v.durationMs} ms${retries})`);
  // Warnings tell what is about to break; they never change the outcome above.
  for (const w of v.warnings ?? []) lines.push(`  ! ${w.kind}  ${w.detail}`);
  return lines.join('\n');
}

/** Origin and path only: a query string may carry a key. */
function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
}
