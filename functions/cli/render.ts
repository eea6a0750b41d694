/**
 * The readable result: one line per probe with timing, then the verdict line. No colours needed.
 * Everything a server sent (details, tool text, error messages, its name and version) is printed
 * through `printable`: an escape sequence, BEL, CR or BS would drive the terminal, and a newline in a
 * server's name would print a forged "HEALTHY" line above the real verdict.
 */
import { shownName } from '../base/common/names.ts';
import { shownUrl } from '../base/common/shown-url.ts';
import { uncheckedAnswer } from '../base/config/schema/unchecked.ts';
import type { ProbeResult, Verdict } from '../base/common/verdict.ts';

/**
 * Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides, shown
 * as visible escapes (`\n`, `\x1b`, `\u202e`) so the text reads as what it is and stays on its line.
 */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    const code = c.charCodeAt(0);
    return named[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

const MARK = { ok: '✓', fail: '✗' } as const;

/** `toolName`: the target's canary tool, for the notice when nothing but isError checks its answer. */
export function renderVerdict(v: Verdict, url?: string, toolName?: string): string {
  const lines: string[] = [];
  const era = [v.revision, v.server ? `${v.server.name} ${v.server.version}` : null].filter(Boolean).join(', ');
  lines.push(printable(`${v.target}${url ? `  ${shownUrl(url)}` : ''}${era ? `  (${era})` : ''}`));
  const nameWidth = Math.max(10, ...v.probes.map((p) => probeName(p).length));
  const msWidth = Math.max(4, ...v.probes.map((p) => String(p.durationMs).length));
  for (const p of v.probes) {
    const ms = `${String(p.durationMs).padStart(msWidth)} ms`;
    const failure = p.failure ? `${p.failure}  ` : '';
    lines.push(`  ${p.ok ? MARK.ok : MARK.fail} ${probeName(p).padEnd(nameWidth)} ${ms}  ${failure}${printable(p.detail)}${taskWords(p)}`);
  }
  const failure = v.failure ? `  ${v.failure}` : '';
  const retries = v.retries > 0 ? `, ${v.retries} retr${v.retries === 1 ? 'y' : 'ies'}` : '';
  lines.push(`${v.outcome.toUpperCase()}${failure}  ${printable(v.detail)}  (${v.durationMs} ms${retries})`);
  // Warnings tell what is about to break; they never change the outcome above.
  for (const w of v.warnings ?? []) lines.push(`  ! ${w.kind}  ${printable(w.detail)}`);
  // A notice, not a Verdict warning: the configuration's blind spot, the same on every run (a warning
  // would make each deployed run a ticket). `cdk synth` annotates the same line.
  const unchecked = toolName && v.checked ? uncheckedAnswer(v.target, shownName(toolName), v.checked) : null;
  if (unchecked) lines.push(`  ! unchecked_answer  ${printable(unchecked)}`);
  return lines.join('\n');
}

/** A flow step's line names its place: `2 rate tools/call`. */
function probeName(p: ProbeResult): string {
  return p.step ? `${p.step.index} ${p.step.id ? `${p.step.id} ` : ''}${p.name}` : p.name;
}

/** How a task ended, when the call ran as one. */
function taskWords(p: ProbeResult): string {
  if (!p.task) return '';
  const t = p.task;
  const when = t.terminalMs !== null ? ` in ${t.terminalMs} ms` : '';
  return printable(`  (task ${t.taskId}: ${t.status}${when}, ${t.polls} poll(s))`);
}

const POSTURE_MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

/** The posture checks, when the run had them, and the trace id: printed under the verdict and its warnings. */
export function renderPostureAndTrace(v: Verdict): string {
  const lines: string[] = [];
  if (v.posture?.length) {
    const width = Math.max(...v.posture.map((r) => r.check.length));
    lines.push('posture');
    for (const r of v.posture)
      lines.push(`  ${POSTURE_MARK[r.status]} ${r.check.padEnd(width)}  ${r.status === 'skipped' ? 'skipped: ' : ''}${r.detail}`);
  }
  lines.push(`trace ${v.traceId}`);
  return lines.join('\n');
}
