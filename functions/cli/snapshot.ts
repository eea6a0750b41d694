/**
 * `mcp-canary snapshot <url> [check's connection flags]`: prints `{ "catalog": { … } }`, the tool
 * catalog's fingerprint, recorded by a run like `check` makes (functions/engine/judge/catalog.ts). The check's
 * parser reads the connection flags, so they stay one table.
 */
import { configError } from '../base/common/errors.ts';
import { Outcome } from '../base/common/verdict.ts';
import { resolveOAuthSecrets } from '../base/config/load/oauth-secrets.ts';
import { recordCatalog } from '../engine/judge/catalog.ts';
import { parseCommand } from './args.ts';
import { ExitCode } from './exit-codes.ts';
import { localDelegated } from './delegated.ts';
import { printJson } from './print-json.ts';

export const SNAPSHOT_HELP = `Usage: mcp-canary snapshot <url> [--prefix P] [--header "Name: value"] [--revision R] [--timeout-ms N] [--budget-ms N]

Print the tool catalog's fingerprint as JSON, ready for the target's \`catalog\` field or check --catalog:
{ "catalog": { "<tool>": "d:<hash>;i:<hash>;o:<hash>;a:<hash>;r:<0|1>" } }
A 2026-07-28 server whose tools/list is cacheScope: private is recorded per credential:
{ "catalog": { "byCredential": { "cred-<12 hex>": { … } } } }
--prefix P records one backend of a gateway: only the tools named P…, P taken off, ready for
that backend's \`catalog\` (P is the backend's prefix, "<backend>___" unless its config says otherwise).

Exit codes: 0 printed, 1 the endpoint failed before tools/list, 2 usage error, 3 inconclusive.`;

export interface SnapshotIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly json?: (value: unknown) => void;
}

export async function snapshot(argv: readonly string[], io: SnapshotIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    io.stdout(`${SNAPSHOT_HELP}\n`);
    return 0;
  }
  const { prefix, rest } = takePrefix(argv);
  const cmd = parseCommand(['check', ...rest]);
  if (cmd.kind !== 'check' || cmd.targets.length !== 1)
    throw configError('snapshot takes one <url> and its connection flags (no --config).');
  const target = cmd.targets[0]!;
  // OAuth secrets from env vars and files, as for check (Secrets Manager references are the scheduled run's).
  const resolved = await resolveOAuthSecrets(target.auth?.oauth, null);
  // --grant-file: the delegated grant refreshed here, under its lock, as check does.
  const delegated = await localDelegated(target, () => {});
  const oauthSecrets = delegated ? { ...resolved, delegated } : resolved;
  const { verdict: v, catalog, counts, redactor } = await recordCatalog(target, { oauthSecrets }, prefix);
  if (!catalog) {
    io.stderr(`mcp-canary: ${redactor.text(`${v.outcome.toUpperCase()}${v.failure ? `  ${v.failure}` : ''}  ${v.detail}`)}\n`);
    return v.outcome === Outcome.inconclusive ? ExitCode.inconclusive : ExitCode.failed;
  }
  if (prefix !== undefined && counts.recorded === 0) {
    // Recording an empty catalog would make every backend tool "added" drift: a wrong prefix is told, not saved.
    io.stderr(
      `mcp-canary: --prefix ${JSON.stringify(redactor.text(prefix))}: none of the ${counts.listed} tool(s) listed begins with it; give the prefix the gateway puts before this backend's tool names\n`,
    );
    return ExitCode.usage;
  }
  // Tool names come from the server: one that echoes the credential must not print it. They are the
  // catalog's keys, so the walk masks keys too (never the serialized text).
  printJson(io, redactor.value({ catalog }, { keys: true }));
  return 0;
}

/** `--prefix P` (or `--prefix=P`) taken out of the arguments: the rest are check's connection flags. */
function takePrefix(argv: readonly string[]): { prefix: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let prefix: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = a === '--prefix' ? argv[++i] : a.startsWith('--prefix=') ? a.slice('--prefix='.length) : null;
    if (value === null) {
      rest.push(a);
      continue;
    }
    if (value === undefined || value === '' || value.startsWith('--'))
      throw configError("--prefix needs a value: the prefix the gateway puts before the backend's tool names, e.g. --prefix github___");
    if (prefix !== undefined) throw configError('--prefix is given twice: snapshot records one backend at a time');
    prefix = value;
  }
  return { prefix, rest };
}
