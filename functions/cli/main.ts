/**
 * `mcp-canary check`: the same engine as the scheduled run, on the command line.
 * Exit codes: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive.
 * stdout carries only the result (with --json: a JSON array of Verdicts, one per target, always).
 */
import { resolveOAuthSecrets, redactionValues, type OAuthSecrets } from '../base/config/load/oauth-secrets.ts';
import type { Fleet } from '../base/config/schema/fleet.ts';
import { loadFleet } from '../base/config/load/load.ts';
import type { Target } from '../base/config/schema/target.ts';
import { CanaryError, configError } from '../base/common/errors.ts';
import { judgeAll } from '../engine/judge/judge.ts';
import { prefixOf } from '../base/config/schema/backends.ts';
import { Redactor, secretsOf } from '../base/common/redact.ts';
import type { Reach } from '../base/common/run-context.ts';
import { VERSION } from '../base/common/version.ts';
import { worstOutcome, type Verdict } from '../base/common/verdict.ts';
import { ExitCode, exitCodeFor } from './exit-codes.ts';
import { init } from './init.ts';
import { parseCommand } from './args.ts';
import { printJson } from './print-json.ts';
import { applyCatalogPosture, judgeDepsFor, type CatalogPostureFlags } from './catalog-posture.ts';
import { report } from './report.ts';
import { snapshot } from './snapshot.ts';
import { loginCommand } from './login.ts';
import { localDelegated } from './delegated.ts';
import { HELP } from './help.ts';
import { printable, renderPostureAndTrace, renderVerdict } from './render.ts';
import { envProxySecrets, readStoredSecrets } from './stored-secrets.ts';

export { HELP };
export { ExitCode, exitCodeFor };

export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /**
   * Secrets main learns that the process could not know before it ran (a config file's headers, stored
   * credentials read from AWS): the process's own redaction of both streams and the console learns them.
   */
  readonly learnSecrets?: (values: readonly string[]) => void;
  /** A JSON document for stdout (print-json.ts): the process's redaction walks it. */
  readonly json?: (value: unknown) => void;
  /** A yes/no question on the terminal (mcp-canary init). @default - the terminal when stdin and stderr are one, else none */
  readonly ask?: (question: string) => Promise<boolean>;
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let targets: readonly Target[];
  let json: boolean;
  let watch: CatalogPostureFlags;
  let oauthSecrets: OAuthSecrets[];
  let storedValues: Array<readonly string[]>;
  let reaches: Array<Reach | undefined>;
  try {
    if (argv[0] === 'snapshot') return await snapshot(argv.slice(1), io);
    if (argv[0] === 'login') return await loginCommand(argv.slice(1), io);
    if (argv[0] === 'report') return await report(argv.slice(1), io);
    if (argv[0] === 'init') return await init(argv.slice(1), io);
    const cmd = parseCommand(argv);
    if (cmd.kind === 'help') {
      io.stdout(`${HELP}\n`);
      return ExitCode.ok;
    }
    if (cmd.kind === 'version') {
      io.stdout(`${VERSION}\n`);
      return ExitCode.ok;
    }
    json = cmd.json;
    watch = { ...(cmd.catalogFile !== undefined ? { catalogFile: cmd.catalogFile } : {}), posture: cmd.posture };
    const fleet = cmd.configFile ? await loadFleet(cmd.configFile) : undefined;
    targets = fleet ? pickTargets(fleet, cmd.configFile!, cmd.targetName) : cmd.targets;
    targets = await applyCatalogPosture(targets, watch);
    // Stored references (Secrets Manager, SSM) with the caller's AWS credentials; OAuth secrets from env vars and files.
    const stored = await readStoredSecrets(targets, fleet);
    targets = targets.map((t, i) => (stored[i] ? { ...t, headers: stored[i].headers, url: stored[i].url } : t));
    storedValues = stored.map((s) => [...(s?.secretValues ?? []), ...envProxySecrets(process.env)]);
    reaches = stored.map((s) => s?.reach);
    oauthSecrets = await Promise.all(targets.map((t, i) => stored[i]?.oauth ?? resolveOAuthSecrets(t.auth?.oauth, null)));
    // A grant in a file is refreshed here, under its lock; the refresh token is learned, never printed.
    const learned: string[] = [];
    const local = await Promise.all(targets.map((t, i) => localDelegated(t, (v) => learned.push(v), reaches[i])));
    oauthSecrets = oauthSecrets.map((s, i) => (local[i] ? { ...s, delegated: local[i] } : s));
    storedValues = storedValues.map((v) => [...v, ...learned]);
  } catch (e) {
    if (e instanceof CanaryError) {
      io.stderr(`mcp-canary: ${printable(e.message)}\n`);
      return ExitCode.usage;
    }
    throw e;
  }

  // Each verdict is redacted by judge(); this covers what the CLI adds around them, for every target's
  // secrets (a config file's targets included), on both streams.
  const secrets = targets.flatMap((t, i) => secretsOf({ ...t, extra: [...redactionValues(oauthSecrets[i]!), ...storedValues[i]!] }));
  io.learnSecrets?.(secrets);
  const redactor = new Redactor(secrets);
  // A gateway's run gives its own verdict and then one per backend (`<gateway>/<backend>`), each shown as its own.
  const runs = await Promise.all(
    targets.map((t, i) => judgeAll(t, { ...judgeDepsFor(watch), oauthSecrets: oauthSecrets[i]!, reach: reaches[i] })),
  );
  const verdicts = runs.flat();
  const shown = runs.flatMap((vs, i) => vs.map((v, j) => ({ v, url: targets[i]!.url, tool: toolShown(targets[i]!, j) })));
  if (json) {
    // One shape whatever the target count: scripts read `.[0]` or iterate, never guess.
    printJson(io, redactor.value(verdicts));
  } else {
    io.stdout(
      redactor.text(
        `${shown.map(({ v, url, tool }) => `${renderVerdict(v, url, tool)}\n${renderPostureAndTrace(v).split('\n').map(printable).join('\n')}`).join('\n\n')}\n`,
      ),
    );
  }
  return exitCodeFor(worstOutcome(verdicts.map((v: Verdict) => v.outcome)));
}

/** The canary tool a run's `j`th verdict checked: the target's own (j = 0), or its backend's, as the gateway names it. */
function toolShown(t: Target, j: number): string | undefined {
  if (j === 0) return t.tool?.name;
  const b = t.backends?.[j - 1];
  return b?.tool ? `${prefixOf(b)}${b.tool.name}` : undefined;
}

function pickTargets(fleet: Fleet, file: string, name: string | undefined): Target[] {
  if (name === undefined) return fleet.targets;
  const found = fleet.targets.filter((t) => t.name === name);
  if (found.length === 0) {
    throw configError(`--target ${name}: no such target in ${file}. Targets: ${fleet.targets.map((t) => t.name).join(', ')}.`);
  }
  return found;
}

/** Libraries print debug lines; none of them may reach stdout, and no secret may reach stderr. */
export function guardConsole(redactor: Redactor): void {
  /* eslint-disable no-console -- this is where console output is made safe */
  const toStderr = (...args: unknown[]) => process.stderr.write(`${redactor.text(args.map(String).join(' '))}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  console.error = toStderr;
  /* eslint-enable no-console */
}
