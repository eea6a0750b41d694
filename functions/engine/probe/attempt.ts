/**
 * One pass of the pipeline against one target, as named steps — health, discover or initialize,
 * tools/list, the flow's steps (flow.ts; one tools/call for a single canary tool) — each ending in the
 * one result shape (common/step.ts) and reported as one probe line, then close. `judge()` may run
 * several attempts (in-run retries); each opens and ends its own sessions and sockets, so nothing
 * carries over between attempts or runs.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { shownName } from '../../base/common/names.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faultOutcome, faulted, passed, timedStep, type Fault, type StepResult } from '../../base/common/step.ts';
import {
  FailureClass,
  Outcome,
  Revision,
  type AnswerCheck,
  type NegotiatedRevision,
  type ProbeName,
  type ProbeResult,
  type ServerInfo,
} from '../../base/common/verdict.ts';
import type { FlowStep } from '../../base/config/schema/flow.ts';
import { flowOf, type Target } from '../../base/config/schema/target.ts';
import type { Exchange } from '../../base/net/exchange.ts';
import { Wire } from '../../base/net/wire.ts';
import { runBackends, type BackendAttempt } from './backends.ts';
import { connect } from './connect.ts';
import { healthStep } from './health.ts';
import { runFlow } from './flow.ts';
import { capabilitiesWithoutTools, listedDetail, namedOnWire, toolMissing } from './listing.ts';
import type { Session, SessionOptions } from './session.ts';
import { Sessions } from './sessions.ts';
import { badEntriesWords, canaryEntryBroken, listEntryByEntry, type BadEntry } from './tolerant-list.ts';

export interface Attempt {
  readonly outcome: Outcome;
  readonly failure: FailureClass | null;
  readonly detail: string;
  readonly retryable: boolean;
  readonly revision: NegotiatedRevision | null;
  readonly server: ServerInfo | null;
  readonly probes: readonly ProbeResult[];
  /** What tools/list answered (catalog drift compares it), or null when the run did not get that far. */
  readonly listed: Listed | null;
  /** What the canary tool's answer is checked against, when it was called. */
  readonly checked?: readonly AnswerCheck[];
  /** The fault that ended the attempt, or null when it did not fail. */
  readonly fault: Fault | null;
  /** An unchecked answer's words that read like a refused upstream credential (upstream-credential.ts). */
  readonly upstreamCredential?: string;
  /** What the handshake declared, when it succeeded (a Server Card is compared with it). */
  readonly handshake?: Handshake;
  /** A gateway's backends, each judged on this attempt's session; absent when the attempt ended before they could be. */
  readonly backends?: readonly BackendAttempt[];
}

export interface Handshake {
  /** The capability names the server declared, `experimental` left out. */
  readonly capabilities: readonly string[];
  /** The versions `server/discover` offered, on 2026-07-28; null on a 2025 session. */
  readonly offered: readonly string[] | null;
}

export interface Listed {
  readonly tools: readonly Tool[];
  /** 2026-07-28 `cacheScope` of the list (`private` when the server leaves it out), null on 2025-11-25. */
  readonly cacheScope: 'public' | 'private' | null;
}

export async function runAttempt(target: Target, ctx: RunContext): Promise<Attempt> {
  const attempt = new AttemptRun(target, ctx);
  try {
    return await attempt.steps();
  } finally {
    await attempt.close();
  }
}

/** One attempt's state while its steps run: the wire, the sessions, the probe lines so far. */
class AttemptRun {
  private readonly wire: Wire;
  private readonly o: SessionOptions;
  private readonly sessions: Sessions;
  private readonly probes: ProbeResult[] = [];
  private revision: NegotiatedRevision | null = null;
  private server: ServerInfo | null = null;
  private listed: Listed | null = null;
  private checked: readonly AnswerCheck[] | undefined;
  /** The steps after tools/list: the target's flow, or its canary tool as a one-step flow. */
  private readonly flow: readonly FlowStep[];
  /** The exchanges of the tools/list walk: how often the wire named each tool. */
  private walk: readonly Exchange[] = [];
  private upstreamCredential: string | null = null;
  private handshake: Handshake | undefined;
  private backends: readonly BackendAttempt[] | undefined;

  constructor(
    private readonly target: Target,
    private readonly ctx: RunContext,
  ) {
    this.wire = new Wire({
      timeoutMs: target.timeoutMs,
      budget: ctx.signal,
      fetch: ctx.fetch,
      middleware: ctx.middleware,
      reach: ctx.reach,
    });
    this.flow = flowOf(target);
    // A gateway's backend whose tool may run as a task needs the declaration as much as the gateway's own.
    const tasks = [...this.flow, ...(target.backends ?? []).flatMap(flowOf)].some((s) => s.kind === 'tools/call' && s.task);
    this.o = { url: target.url, headers: target.headers, timeoutMs: target.timeoutMs, wire: this.wire, run: ctx, tasks };
    this.sessions = new Sessions(this.o);
  }

  /** The steps in order; the first that fails ends the attempt. */
  async steps(): Promise<Attempt> {
    const { target } = this;
    if (target.healthUrl) {
      const headers = sameOrigin(target.healthUrl, target.url) ? target.headers : {};
      const health = await this.step('health', () => healthStep(target.healthUrl!, headers, this.wire));
      if (!health.ok) return this.failed(health.fault);
    }
    const connected = await this.step('discover', () => connect(target.revision, this.o));
    if (!connected.ok) return this.failed(connected.fault);
    this.sessions.adopt(connected.value.session, connected.value.recovered);
    ({ revision: this.revision, server: this.server } = connected.value.session);
    this.handshake = handshakeOf(connected.value.session, this.wire);

    const toolNames = this.toolSteps().map((s) => s.name);
    const noTools = capabilitiesWithoutTools(this.sessions.current, toolNames[0], this.identity());
    // A flow of resources and prompts only needs no tools: it goes on without listing them.
    if (noTools?.ok && this.flow.length === 0 && !target.backends) return this.end(Outcome.healthy, null, noTools.detail);
    if (noTools && !noTools.ok) {
      this.probes.push({ name: 'tools/list', ok: false, durationMs: 0, detail: noTools.fault.detail, failure: noTools.fault.failure });
      return this.failed(noTools.fault);
    }
    if (!noTools) {
      const listing = await this.step('tools/list', () => this.listTools(toolNames));
      if (!listing.ok) return this.failed(listing.fault);
    }
    const flow = await runFlow(this.flow, {
      sessions: this.sessions,
      ctx: this.ctx,
      timeoutMs: target.timeoutMs,
      wire: this.wire,
      tools: (name) => this.listingsOf(name),
      numbered: target.flow !== undefined,
      record: (p) => this.probes.push(p),
    });
    this.checked = flow.checked;
    this.upstreamCredential = flow.upstreamCredential ?? null;
    // A gateway's backends are judged on the same session and listing, whatever the gateway's own tool did.
    let broken: Fault | null = null;
    if (target.backends)
      ({ ends: this.backends, broken } = await runBackends(target.backends, {
        sessions: this.sessions,
        ctx: this.ctx,
        timeoutMs: target.timeoutMs,
        wire: this.wire,
        tools: (name) => this.listingsOf(name),
        listed: this.listed?.tools ?? [],
        revision: this.revision,
      }));
    if (flow.fault) return this.failed(flow.fault);
    // The session is the gateway's: lost for good while a backend was judged, it fails the gateway.
    if (broken) return this.failed(broken);
    if (this.sessions.recovered) return this.end(Outcome.degraded, null, this.sessions.recovered);
    return this.end(Outcome.healthy, null, `${this.identity()}: ${this.passedWords()}`);
  }

  /** The close step: every session ended (DELETE on 2025-11-25), then every socket of the attempt. */
  async close(): Promise<void> {
    await this.sessions.close();
    await this.wire.close();
  }

  /**
   * tools/list, read again (never the SDK's cache); the step fails when a tool the steps call is not in it.
   * A page the SDK refuses for one broken entry is read again entry by entry (tolerant-list.ts).
   */
  private async listTools(wanted: readonly string[]): Promise<StepResult<null>> {
    const { target, ctx } = this;
    const options = { timeout: target.timeoutMs, signal: ctx.signal };
    // The SDK walks every page; the pages of the walk that answered are the exchanges after its start.
    let walkStart = 0;
    let bad: readonly BadEntry[] = [];
    const r = await this.sessions.run('tools/list', 'tools/list', async (s) => {
      walkStart = this.wire.exchanges.length;
      const walk = (cursor: string | undefined) =>
        s.client.listTools(cursor === undefined ? undefined : { cursor }, { ...options, cacheMode: 'refresh' });
      const list = await listEntryByEntry(walk, () => this.wire.exchanges, s.era);
      bad = list.bad;
      return passed({ tools: list.tools, cacheScope: list.cacheScope }, '');
    });
    if (!r.ok) return r;
    const tools: Tool[] = r.value.tools;
    const scope = (r.value as { cacheScope?: unknown }).cacheScope === 'public' ? 'public' : 'private';
    this.listed = { tools, cacheScope: this.revision === Revision.modern ? scope : null };
    this.walk = this.wire.exchanges.slice(walkStart);
    for (const name of wanted) {
      const broken = canaryEntryBroken(name, bad);
      if (broken) return faulted(broken);
      const { listings, onWire } = this.listingsOf(name);
      if (listings.length === 0) {
        const missing = toolMissing(name, tools, onWire > 0, this.revision);
        return faulted({ ...missing, detail: `${missing.detail}${badEntriesWords(bad)}` });
      }
    }
    return passed(null, `${listedDetail(tools, wanted[0])}${badEntriesWords(bad)}`);
  }

  /** Every listing of `name` in the tools/list walk, and how many times the wire named it. */
  private listingsOf(name: string): { listings: readonly Tool[]; onWire: number } {
    const listings = (this.listed?.tools ?? []).filter((t) => t.name === name);
    return { listings, onWire: namedOnWire(this.walk, name, listings.length) };
  }

  private toolSteps(): Extract<FlowStep, { kind: 'tools/call' }>[] {
    return this.flow.filter((s): s is Extract<FlowStep, { kind: 'tools/call' }> => s.kind === 'tools/call');
  }

  /** What a passed attempt saw, in the verdict's words. */
  private passedWords(): string {
    const { target } = this;
    if (target.flow)
      return `flow of ${target.flow.length} step(s) passed (${target.flow.map((s, i) => s.id ?? `step ${i + 1}`).join(', ')})`;
    if (target.tool) return `${shownName(target.tool.name)} answered as expected`;
    // A gateway's backends have verdicts of their own: the gateway's says only that it answered and listed.
    if (target.backends)
      return `${this.listed?.tools.length ?? 0} tool(s) listed; ${target.backends.length} backend(s) judged on their own`;
    return 'tools listed (no canary tool configured)';
  }

  /** Runs one step and adds its probe line. */
  private async step<T>(name: ProbeName, run: () => Promise<StepResult<T>>): Promise<StepResult<T>> {
    const { result, probe } = await timedStep(name, this.ctx.now, run);
    this.probes.push(probe);
    return result;
  }

  private identity(): string {
    return `${this.revision}${this.server ? ` ${this.server.name} ${this.server.version}` : ''}`;
  }

  private failed(fault: Fault): Attempt {
    return this.end(faultOutcome(fault), fault.failure, fault.detail, fault.retryable, fault);
  }

  private end(outcome: Outcome, failure: FailureClass | null, detail: string, retryable = false, fault: Fault | null = null): Attempt {
    return {
      outcome,
      failure,
      detail,
      retryable,
      revision: this.revision,
      server: this.server,
      probes: this.probes,
      listed: this.listed,
      ...(this.checked ? { checked: this.checked } : {}),
      ...(this.upstreamCredential ? { upstreamCredential: this.upstreamCredential } : {}),
      ...(this.handshake ? { handshake: this.handshake } : {}),
      ...(this.backends ? { backends: this.backends } : {}),
      fault,
    };
  }
}

/** The capabilities the session's server declared, and what its discover offered (read at connect: close forgets them). */
function handshakeOf(s: Session, wire: Wire): Handshake {
  const capabilities = Object.keys(s.client.getServerCapabilities() ?? {})
    .filter((k) => k !== 'experimental')
    .sort();
  const offered = s.era === Revision.modern ? (wire.last('server/discover')?.supportedVersions ?? null) : null;
  return { capabilities, offered: offered ? [...offered] : null };
}

function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}
