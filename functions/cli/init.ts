/**
 * `mcp-canary init <url>`: a starting config for a live endpoint. It lists what the server offers,
 * ranks the tools as canaries (engine/judge/candidates.ts), calls the best read-only one — a tool not
 * annotated read-only only after a yes on the terminal or `--yes`, a destructive one never — records
 * an expectation from its real answers (engine/judge/expectation.ts), judges the result once as `check`
 * would, and prints the fleet config (init-config.ts). stdout carries only the config (or, with
 * --json, one JSON object); what init did and why goes to stderr.
 */
import { createInterface } from 'node:readline/promises';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { configError } from '../base/common/errors.ts';
import { shownName } from '../base/common/names.ts';
import { Outcome } from '../base/common/verdict.ts';
import { resolveOAuthSecrets } from '../base/config/load/oauth-secrets.ts';
import type { Target } from '../base/config/schema/target.ts';
import { bestToAsk, rankCandidates, type Candidate } from '../engine/judge/candidates.ts';
import { expectationFrom, type Expectation } from '../engine/judge/expectation.ts';
import { judge, type JudgeDeps } from '../engine/judge/judge.ts';
import { faultLine, offerOf, sampleTool, type Offer } from '../engine/judge/survey.ts';
import { localDelegated } from './delegated.ts';
import { ExitCode, exitCodeFor } from './exit-codes.ts';
import { INIT_HELP } from './init-help.ts';
import { parseInit, type InitCommand } from './init-args.ts';
import { initConfig, type CanaryProposal } from './init-config.ts';
import { offerLines, referenceLines } from './init-render.ts';
import { printable } from './render.ts';
import { envProxySecrets, readStoredSecrets } from './stored-secrets.ts';

export interface InitIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly ask?: (question: string) => Promise<boolean>;
  readonly learnSecrets?: (values: readonly string[]) => void;
}

/** How many times the canary tool is called to tell stable values from volatile ones. */
const SAMPLES = 2;
/** Read-only tools tried, best first, before init gives up on a canary tool. */
const MAX_TRIES = 3;

export async function init(argv: readonly string[], io: InitIo): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${INIT_HELP}\n`);
    return ExitCode.ok;
  }
  const cmd = parseInit(argv);
  if (cmd.out !== undefined && existsSync(cmd.out) && !cmd.yes)
    throw configError(`--out ${cmd.out}: the file exists. Choose another path, or add --yes to overwrite it.`);
  const deps = await depsFor(cmd.target, io.learnSecrets);
  const say = (line: string) => io.stderr(`${printable(line)}\n`);

  const offer = await offerOf(cmd.target, deps);
  if (!offer.ok) {
    say(`mcp-canary: init could not list what the endpoint offers: ${faultLine(offer)}`);
    return offer.outcome === Outcome.inconclusive ? ExitCode.inconclusive : ExitCode.failed;
  }
  const redact = offer.redact;
  const candidates = rankCandidates(offer.value.tools ?? []);
  for (const line of offerLines(offer.value, candidates)) say(redact(line));

  const ask = io.ask ?? terminalQuestion();
  // The question quotes server-supplied names: redacted like every line init prints.
  const tries = await choose(candidates, cmd, ask && ((q) => ask(redact(q))), (l) => say(redact(l)));
  const { proposal, expectation } = await propose(cmd.target, tries, deps, (l) => say(redact(l)));

  const config = initConfig(cmd.target, proposal);
  for (const line of referenceLines(config)) say(line);
  // The proposal, judged once as check judges it (with the headers given, not their references).
  const proposed = config.fleet.targets[0]!;
  const verdict = await judge({ ...cmd.target, ...(proposed.tool ? { tool: proposed.tool } : {}) }, deps);
  say(`check with this config: ${verdict.outcome.toUpperCase()}${verdict.failure ? `  ${verdict.failure}` : ''}  ${verdict.detail}`);

  const text = `${JSON.stringify(config.json, null, 2)}\n`;
  if (cmd.json) {
    io.stdout(redact(`${JSON.stringify(jsonResult(config.json, offer.value, candidates, proposal, expectation, verdict), null, 2)}\n`));
  } else if (cmd.out !== undefined) {
    await writeFile(cmd.out, redact(text));
    say(`wrote ${cmd.out}`);
  } else {
    io.stdout(redact(text));
  }
  return exitCodeFor(verdict.outcome);
}

/**
 * Samples each tool in turn until one answers (an `isError` or a failed call moves on to the next), and
 * records the expectation from the one that did. None: the config only lists the tools.
 */
async function propose(
  target: Target,
  tries: readonly Candidate[],
  deps: JudgeDeps,
  say: (line: string) => void,
): Promise<{ proposal: CanaryProposal | null; expectation: Expectation | null }> {
  for (const chosen of tries) {
    const tool = {
      name: chosen.name,
      arguments: chosen.arguments ?? {},
      expectJson: {},
      allowUnsafe: chosen.gate !== 'read-only',
      task: false,
    };
    const sampled = await sampleTool({ ...target, tool }, deps, SAMPLES);
    if (!sampled.ok) {
      say(`canary: ${shownName(chosen.name)} did not answer as a canary must: ${faultLine(sampled)}`);
      continue;
    }
    const expectation = expectationFrom(sampled.value, (s) => sampled.redact(s) !== s);
    say(`canary: ${shownName(chosen.name)}, called ${SAMPLES} times; ${expectation.said}`);
    const expectText = expectation.expectText !== undefined ? { expectText: expectation.expectText } : {};
    return { proposal: { ...tool, expectJson: expectation.expectJson, ...expectText }, expectation };
  }
  if (tries.length > 0) say('canary: none answered; the config only lists the tools (tools/list): add tool.name by hand');
  return { proposal: null, expectation: null };
}

/**
 * The tools to try, in order: the read-only ones init can fill (at most `MAX_TRIES`); else the best one
 * init may only call after a yes — asked on the terminal, or answered by --yes; with neither, none, and
 * init says why.
 */
async function choose(
  candidates: readonly Candidate[],
  cmd: InitCommand,
  ask: InitIo['ask'],
  say: (line: string) => void,
): Promise<Candidate[]> {
  const readOnly = candidates.filter((c) => c.gate === 'read-only' && c.arguments !== null).slice(0, MAX_TRIES);
  if (readOnly.length > 0) return readOnly;
  const other = bestToAsk(candidates);
  const what = 'the config only lists the tools (tools/list); add tool.name by hand for a canary tool';
  if (!other) {
    say(
      candidates.length === 0
        ? `canary: none — the server lists no tools (or does not advertise them); ${what}`
        : `canary: none — no tool is both read-only and callable without arguments init cannot fill; ${what}`,
    );
    return [];
  }
  const name = shownName(other.name);
  if (cmd.yes) {
    say(`canary: ${name} is not annotated read-only (${other.why}); calling it because of --yes`);
    return [other];
  }
  if (!ask) {
    say(
      `canary: not called — no tool is annotated read-only, and ${name} (${other.why}) may change something when called. There is no terminal to ask on: run init on a terminal, or add --yes if calling ${name} is harmless; ${what}`,
    );
    return [];
  }
  const yes = await ask(
    `No tool is annotated read-only. Call ${name} (${other.why}) ${SAMPLES + 1} times now, and on every scheduled run? It may change something.`,
  );
  if (!yes) say(`canary: ${name} not called (you said no); ${what}`);
  return yes ? [other] : [];
}

/** A question on the terminal, when stdin and stderr are one; else none (init then never calls an unannotated tool). */
function terminalQuestion(): InitIo['ask'] {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await rl.question(`${printable(question)} [y/N] `)).trim());
    } finally {
      rl.close();
    }
  };
}

/**
 * What check gives a flag target's run: its reach (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as curl reads
 * them), OAuth secrets from env vars and files, and a delegated grant refreshed under its lock.
 */
async function depsFor(target: Target, learnSecrets: InitIo['learnSecrets']): Promise<JudgeDeps> {
  const [stored] = await readStoredSecrets([target], undefined);
  learnSecrets?.(envProxySecrets(process.env));
  const resolved = await resolveOAuthSecrets(target.auth?.oauth, null);
  const delegated = await localDelegated(target, () => {}, stored?.reach);
  return { oauthSecrets: delegated ? { ...resolved, delegated } : resolved, reach: stored?.reach };
}

function jsonResult(
  config: unknown,
  offer: Offer,
  candidates: readonly Candidate[],
  proposal: CanaryProposal | null,
  expectation: Expectation | null,
  verdict: { outcome: string; failure: string | null; detail: string },
): unknown {
  return {
    config,
    offer: {
      revision: offer.revision,
      server: offer.server,
      tools: candidates,
      resources: offer.resources,
      prompts: offer.prompts,
    },
    canary: proposal ? { tool: proposal.name, calls: SAMPLES, recorded: expectation?.said ?? null } : null,
    check: { outcome: verdict.outcome, failure: verdict.failure, detail: verdict.detail },
  };
}
