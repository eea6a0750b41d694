/**
 * The CLI beyond up/down, kept apart from the check flag table so it survives a rework of it:
 * - `mcp-canary snapshot <url> [check's connection flags]` prints `{ "catalog": { … } }`;
 * - `check … --catalog FILE` compares against such a file; `check … --posture` runs the posture
 *   checks (every time, not hourly) and prints them as a small table.
 * Both flags are taken out of argv before the check parser sees it, and applied to its targets.
 */
import { readFile } from 'node:fs/promises';
import { fingerprintCatalog } from '../catalog/fingerprint.ts';
import { credentialHeaders, credentialId } from '../catalog/credential.ts';
import { CatalogSetting } from '../config/catalog.ts';
import { parseOrThrow } from '../config/issues.ts';
import type { Target } from '../config/target.ts';
import { configError } from '../common/errors.ts';
import { PostureCadence } from '../posture/cadence.ts';
import { runAttempt } from '../probe/attempt.ts';
import { withTraceContext } from '../net/trace-context.ts';
import { Redactor, secretsOf } from '../common/redact.ts';
import { newTraceId } from '../common/trace.ts';
import { Outcome, type Verdict } from '../common/verdict.ts';
import { parseCommand } from './args.ts';

export interface BeyondFlags {
  readonly catalogFile?: string;
  readonly posture: boolean;
}

/** The targets with `--catalog` and `--posture` applied. */
export async function applyBeyondFlags(targets: readonly Target[], flags: BeyondFlags): Promise<Target[]> {
  const catalog = flags.catalogFile === undefined ? undefined : await readCatalogFile(flags.catalogFile);
  return targets.map((t) => ({
    ...t,
    ...(catalog ? { catalog } : {}),
    ...(flags.posture ? { posture: t.posture && t.posture !== true ? t.posture : true } : {}),
  }));
}

/** On the command line posture runs every time it is asked for: a fresh cadence per invocation. */
export function cliJudgeDeps(flags: BeyondFlags): { postureCadence?: PostureCadence } {
  return flags.posture ? { postureCadence: new PostureCadence() } : {};
}

async function readCatalogFile(file: string): Promise<CatalogSetting> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw configError(
      `--catalog ${file}: ${code ? `cannot read the file (${code}). Check the path` : `is not valid JSON (${(e as Error).message}). Save the output of \`mcp-canary snapshot\` unchanged`}.`,
      e,
    );
  }
  // The snapshot's own shape, `{ "catalog": … }`, or the catalog alone.
  const inner = raw !== null && typeof raw === 'object' && 'catalog' in raw ? (raw as { catalog: unknown }).catalog : raw;
  return parseOrThrow(CatalogSetting, inner, `--catalog ${file}`, 'catalog');
}

export const SNAPSHOT_HELP = `Usage: mcp-canary snapshot <url> [--header "Name: value"] [--revision R] [--timeout-ms N] [--budget-ms N]

Print the tool catalog's fingerprint as JSON, ready for the target's \`catalog\` field or check --catalog:
{ "catalog": { "<tool>": "d:<hash>;i:<hash>;o:<hash>;a:<hash>;r:<0|1>" } }
A 2026-07-28 server whose tools/list is cacheScope: private is recorded per credential:
{ "catalog": { "byCredential": { "cred-<12 hex>": { … } } } }

Exit codes: 0 printed, 1 the endpoint failed before tools/list, 2 usage error, 3 inconclusive.`;

export interface SnapshotIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

/** `mcp-canary snapshot …`: the check's parser reads the connection flags, so they stay one table. */
export async function snapshot(argv: readonly string[], io: SnapshotIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    io.stdout(`${SNAPSHOT_HELP}\n`);
    return 0;
  }
  const cmd = parseCommand(['check', ...argv]);
  if (cmd.kind !== 'check' || cmd.targets.length !== 1)
    throw configError('snapshot takes one <url> and its connection flags (no --config).');
  const target = { ...cmd.targets[0]!, tool: undefined };
  // Every secret of the target (headers, the URL's query values, path keys and userinfo).
  const redactor = new Redactor(secretsOf(target));
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new Error('run budget spent')), target.budgetMs);
  try {
    const a = await runAttempt(target, {
      now: () => performance.now(),
      budget: budget.signal,
      deadline: performance.now() + target.budgetMs,
      middleware: withTraceContext({ traceId: newTraceId() }),
    });
    if (!a.listed) {
      io.stderr(`mcp-canary: ${redactor.text(`${a.outcome.toUpperCase()}${a.failure ? `  ${a.failure}` : ''}  ${a.detail}`)}\n`);
      return a.outcome === Outcome.inconclusive ? 3 : 1;
    }
    const map = fingerprintCatalog(a.listed.tools);
    const catalog = a.listed.cacheScope === 'private' ? { byCredential: { [credentialId(credentialHeaders(target))]: map } } : map;
    // Tool names come from the server: one that echoes the credential must not print it.
    io.stdout(`${redactor.text(JSON.stringify({ catalog }, null, 2))}\n`);
    return 0;
  } finally {
    clearTimeout(timer);
  }
}

const MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

/** Warnings and, when the run had them, the posture checks: printed under the verdict. */
export function renderBeyond(v: Verdict): string {
  // The warnings themselves are printed under the verdict line (render.ts).
  const lines: string[] = [];
  if (v.posture?.length) {
    const width = Math.max(...v.posture.map((r) => r.check.length));
    lines.push('posture');
    for (const r of v.posture)
      lines.push(`  ${MARK[r.status]} ${r.check.padEnd(width)}  ${r.status === 'skipped' ? 'skipped: ' : ''}${r.detail}`);
  }
  lines.push(`trace ${v.traceId}`);
  return lines.join('\n');
}
