/**
 * `mcp-canary init`'s reads of a live endpoint, each a run of its own made the way `check` makes one:
 * the run context and budget (context.ts), the token step (token.ts), the era (probe/connect.ts), the
 * wire's timeouts, SSRF guard and proxy, the sessions and their recovery (probe/sessions.ts), one
 * Redactor. `offerOf` lists what the server offers (tools; resources and prompts where advertised);
 * `sampleTool` calls one tool through the call step's own read-only gate (probe/tool.ts) and returns
 * its answers. Neither makes a Verdict: init proposes a target, `check` judges it.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { parseExactJson } from '../../base/common/exact-json.ts';
import { shownName } from '../../base/common/names.ts';
import { oneLine, redactConsoleWhile, Redactor, secretsOf } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faulted, faultOutcome, passed, type Fault, type StepResult } from '../../base/common/step.ts';
import { FailureClass, type NegotiatedRevision, type Outcome, type ServerInfo } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { Wire } from '../../base/net/wire.ts';
import { connect } from '../probe/connect.ts';
import { textOf } from '../probe/expect.ts';
import { namedOnWire } from '../probe/listing.ts';
import type { SessionOptions } from '../probe/session.ts';
import { Sessions } from '../probe/sessions.ts';
import { callCanaryTool } from '../probe/tool.ts';
import { startRun } from './context.ts';
import type { Answer } from './expectation.ts';
import type { JudgeDeps } from './judge.ts';
import { tokenStep } from './token.ts';

/** What a survey found, or the fault that stopped it; `redact` knows the run's secrets either way. */
export type Surveyed<T> =
  | { readonly ok: true; readonly value: T; readonly redact: (s: string) => string }
  | { readonly ok: false; readonly outcome: Outcome; readonly fault: Fault; readonly redact: (s: string) => string };

export interface Offer {
  readonly revision: NegotiatedRevision | null;
  readonly server: ServerInfo | null;
  /** Null when the server does not advertise the tools capability. */
  readonly tools: readonly Tool[] | null;
  /** Null when not advertised; `error` when listing them failed (never the survey's failure). */
  readonly resources: ListedOr<{ readonly uri: string; readonly name: string }>;
  readonly prompts: ListedOr<{ readonly name: string; readonly required: readonly string[] }>;
}
export type ListedOr<T> = readonly T[] | { readonly error: string } | null;

/** What the server offers, as one run lists it. */
export function offerOf(target: Target, deps: JudgeDeps = {}): Promise<Surveyed<Offer>> {
  return inSession(target, deps, async (run) => {
    const caps = run.sessions.current.client.getServerCapabilities() ?? {};
    const { timeoutMs } = target;
    const signal = run.ctx.signal;
    let tools: Tool[] | null = null;
    if (caps.tools) {
      const r = await run.sessions.run('tools/list', 'tools/list', async (s) =>
        passed((await s.client.listTools(undefined, { cacheMode: 'refresh', timeout: timeoutMs, signal })).tools, ''),
      );
      if (!r.ok) return r;
      tools = r.value;
    }
    // Resources and prompts are what the server offers beside tools: a failure to list them is said, not fatal.
    const resources = caps.resources
      ? await besides(run, 'resources/list', async (s) =>
          (await s.client.listResources(undefined, { timeout: timeoutMs, signal })).resources.map((x) => ({ uri: x.uri, name: x.name })),
        )
      : null;
    const prompts = caps.prompts
      ? await besides(run, 'prompts/list', async (s) =>
          (await s.client.listPrompts(undefined, { timeout: timeoutMs, signal })).prompts.map((p) => ({
            name: p.name,
            required: (p.arguments ?? []).filter((a) => a.required === true).map((a) => a.name),
          })),
        )
      : null;
    const { revision, server } = run.sessions.current;
    return passed({ revision, server, tools, resources, prompts }, '');
  });
}

/**
 * Calls the target's tool `times` times in one session, each through the call step (the read-only gate
 * unless `allowUnsafe`, isError as a failure), and returns the answers as the wire read them.
 */
export function sampleTool(target: Target, deps: JudgeDeps = {}, times = 2): Promise<Surveyed<Answer[]>> {
  const wanted = target.tool!;
  return inSession(target, deps, async (run) => {
    const { timeoutMs } = target;
    let walkStart = 0;
    const listed = await run.sessions.run('tools/list', 'tools/list', async (s) => {
      walkStart = run.wire.exchanges.length;
      return passed((await s.client.listTools(undefined, { cacheMode: 'refresh', timeout: timeoutMs, signal: run.ctx.signal })).tools, '');
    });
    if (!listed.ok) return listed;
    const listings = listed.value.filter((t) => t.name === wanted.name);
    if (listings.length === 0) return missing(wanted.name);
    const onWire = namedOnWire(run.wire.exchanges.slice(walkStart), wanted.name, listings.length);
    const answers: Answer[] = [];
    for (let i = 0; i < times; i++) {
      // Read unchecked, as check reads an answer nothing checks: an answer that reads like a refused upstream
      // credential is no answer to record an expectation from, and init moves on to its next candidate.
      const call = { timeoutMs, run: run.ctx, answerText: () => run.wire.last('tools/call')?.answerText, unchecked: true };
      const r = await run.sessions.run('tools/call', 'tools/call', (s) => callCanaryTool(s, listings, onWire, wanted, call));
      if (!r.ok) return r;
      if (r.value.upstreamCredential)
        return faulted({
          failure: FailureClass.toolError,
          retryable: false,
          detail: `tools/call: ${shownName(wanted.name)} answered like a refused upstream credential (${r.value.upstreamCredential}): not recorded as what a good answer looks like`,
        });
      answers.push(answerOf(run.wire.last('tools/call')?.answerText));
    }
    return passed(answers, '');
  });
}

interface Run {
  readonly ctx: RunContext;
  readonly wire: Wire;
  readonly sessions: Sessions;
}

/** One run: context, token step, connect; `use` runs on the session; everything opened is closed. */
async function inSession<T>(target: Target, deps: JudgeDeps, use: (run: Run) => Promise<StepResult<T>>): Promise<Surveyed<T>> {
  const { ctx, end } = startRun(target, deps);
  try {
    const token = await tokenStep(target, ctx, deps);
    const redactor = new Redactor(secretsOf({ ...token.target, extra: token.secretValues }));
    const redact = (s: string) => redactor.text(s);
    if (token.fault) return { ok: false, outcome: faultOutcome(token.fault), fault: token.fault, redact };
    const t = token.target;
    const wire = new Wire({ timeoutMs: t.timeoutMs, budget: ctx.signal, fetch: ctx.fetch, middleware: ctx.middleware, reach: ctx.reach });
    const o: SessionOptions = { url: t.url, headers: t.headers, timeoutMs: t.timeoutMs, wire, run: ctx };
    const sessions = new Sessions(o);
    try {
      return await redactConsoleWhile(redactor, async () => {
        const connected = await connect(t.revision, o);
        if (!connected.ok) return { ok: false, outcome: faultOutcome(connected.fault), fault: connected.fault, redact };
        sessions.adopt(connected.value.session, connected.value.recovered);
        const r = await use({ ctx, wire, sessions });
        return r.ok ? { ok: true, value: r.value, redact } : { ok: false, outcome: faultOutcome(r.fault), fault: r.fault, redact };
      });
    } finally {
      await sessions.close();
      await wire.close();
    }
  } finally {
    end();
  }
}

async function besides<T>(run: Run, method: string, list: (s: Sessions['current']) => Promise<T[]>): Promise<ListedOr<T>> {
  const r = await run.sessions.run(method, method, async (s) => passed(await list(s), ''));
  return r.ok ? r.value : { error: r.fault.detail };
}

function missing(name: string): StepResult<never> {
  return {
    ok: false,
    fault: { failure: null, retryable: false, detail: `tools/list: ${shownName(name)} is no longer listed; run init again` },
  };
}

/** The answer as the server wrote it (integers beyond 2^53 intact), from the JSON-RPC message the wire kept. */
function answerOf(answerText: string | null | undefined): Answer {
  let result: Partial<CallToolResult> = {};
  try {
    const msg = answerText ? parseExactJson(answerText) : undefined;
    const one = Array.isArray(msg) ? msg.find((m) => m && typeof m === 'object' && 'result' in m) : msg;
    result = ((one as { result?: unknown } | undefined)?.result ?? {}) as Partial<CallToolResult>;
  } catch {
    // Not JSON the wire could keep: nothing to record from, which init says.
  }
  return { structuredContent: result.structuredContent, text: textOf({ content: result.content ?? [] } as CallToolResult) };
}

/** One line for a fault init met: the step's words, redacted and bounded. */
export function faultLine(s: Surveyed<unknown>): string {
  return s.ok ? '' : s.redact(`${s.fault.failure ?? 'inconclusive'}  ${oneLine(s.fault.detail, 400)}`);
}
