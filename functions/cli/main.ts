/**
 * `mcp-canary check`: the same engine as the scheduled run, on the command line.
 * Exit codes: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive.
 * stdout carries only the result (with --json: a JSON array of Verdicts, one per target, always).
 */
import { loadFleet } from '../config/load.ts';
import type { Target } from '../config/target.ts';
import { CanaryError, configError } from '../errors.ts';
import { judge } from '../probe/judge.ts';
import { Redactor, secretsOf } from '../redact.ts';
import { worstOutcome, type Outcome, type Verdict } from '../verdict.ts';
import { CANARY_VERSION } from '../probe/identity.ts';
import { parseCommand } from './args.ts';
import { optionsHelp } from './flags.ts';
import { printable, renderVerdict } from './render.ts';

export const ExitCode = { ok: 0, failed: 1, usage: 2, inconclusive: 3 } as const;

export const HELP = `Usage: mcp-canary check <url> [options]
       mcp-canary check --config FILE [--target NAME] [--json]

Judge a remote MCP endpoint the way an agent uses it: health → discover or initialize →
tools/list → tools/call, and print the verdict.

${optionsHelp()}

Output: one block per target; with --json, a JSON array of Verdicts (one per target, always an
array, even for one target) and nothing else on stdout.
Exit codes: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive.

Examples:
  mcp-canary check https://mcp.example.com/mcp --tool get_rate --args '{"pair":"EURUSD"}' --expect-json rate=1.08
  mcp-canary check https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN" --json
  mcp-canary check --config mcp-canary.config.ts --target rates-prod`;

export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let targets: readonly Target[];
  let json: boolean;
  try {
    const cmd = parseCommand(argv);
    if (cmd.kind === 'help') {
      io.stdout(`${HELP}\n`);
      return ExitCode.ok;
    }
    if (cmd.kind === 'version') {
      io.stdout(`${CANARY_VERSION}\n`);
      return ExitCode.ok;
    }
    json = cmd.json;
    targets = cmd.configFile ? await targetsFromConfig(cmd.configFile, cmd.targetName) : cmd.targets;
  } catch (e) {
    if (e instanceof CanaryError) {
      io.stderr(`mcp-canary: ${printable(e.message)}\n`);
      return ExitCode.usage;
    }
    throw e;
  }

  // Each verdict is redacted by judge(); this covers what the CLI adds around them, for every target's
  // secrets (a config file's targets included), on both streams.
  const redactor = new Redactor(targets.flatMap((t) => secretsOf(t)));
  const verdicts = await Promise.all(targets.map((t) => judge(t)));
  if (json) {
    // One shape whatever the target count: scripts read `.[0]` or iterate, never guess.
    io.stdout(redactor.text(`${JSON.stringify(verdicts, null, 2)}\n`));
  } else {
    io.stdout(redactor.text(`${verdicts.map((v, i) => renderVerdict(v, targets[i]!.url)).join('\n\n')}\n`));
  }
  return exitCodeFor(worstOutcome(verdicts.map((v: Verdict) => v.outcome)));
}

export function exitCodeFor(outcome: Outcome): number {
  switch (outcome) {
    case 'healthy':
    case 'degraded':
      return ExitCode.ok;
    case 'failed':
      return ExitCode.failed;
    case 'inconclusive':
      return ExitCode.inconclusive;
  }
}

async function targetsFromConfig(file: string, name: string | undefined): Promise<Target[]> {
  const fleet = await loadFleet(file);
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
