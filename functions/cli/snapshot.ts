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
import { localDelegated } from './delegated.ts';
import { printJson } from './print-json.ts';

export const SNAPSHOT_HELP = `Usage: mcp-canary snapshot <url> [--header "Name: value"] [--revision R] [--timeout-ms N] [--budget-ms N]

Print the tool catalog's fingerprint as JSON, ready for the target's \`catalog\` field or check --catalog:
{ "catalog": { "<tool>": "d:<hash>;i:<hash>;o:<hash>;a:<hash>;r:<0|1>" } }
A 2026-07-28 server whose tools/list is cacheScope: private is recorded per credential:
{ "catalog": { "byCredential": { "cred-<12 hex>": { … } } } }

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
  const cmd = parseCommand(['check', ...argv]);
  if (cmd.kind !== 'check' || cmd.targets.length !== 1)
    throw configError('snapshot takes one <url> and its connection flags (no --config).');
  const target = cmd.targets[0]!;
  // OAuth secrets from env vars and files, as for check (Secrets Manager references are the scheduled run's).
  const resolved = await resolveOAuthSecrets(target.auth?.oauth, null);
  // --grant-file: the delegated grant refreshed here, under its lock, as check does.
  const delegated = await localDelegated(target, () => {});
  const oauthSecrets = delegated ? { ...resolved, delegated } : resolved;
  const { verdict: v, catalog, redactor } = await recordCatalog(target, { oauthSecrets });
  if (!catalog) {
    io.stderr(`mcp-canary: ${redactor.text(`${v.outcome.toUpperCase()}${v.failure ? `  ${v.failure}` : ''}  ${v.detail}`)}\n`);
    return v.outcome === Outcome.inconclusive ? 3 : 1;
  }
  // Tool names come from the server: one that echoes the credential must not print it. They are the
  // catalog's keys, so the walk masks keys too (never the serialized text).
  printJson(io, redactor.value({ catalog }, { keys: true }));
  return 0;
}
