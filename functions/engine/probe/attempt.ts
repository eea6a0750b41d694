/**
 * One pass of the pipeline against one target, as named steps — health, discover or initialize,
 * tools/list, tools/call — each ending in the one result shape (common/step.ts) and reported as one
 * probe line, then close. `judge()` may run several attempts (in-run retries); each opens and ends its
 * own sessions and sockets, so nothing carries over between attempts or runs.
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
import type { Target } from '../../base/config/schema/target.ts';
import { configuredChecks } from '../../base/config/schema/unchecked.ts';
import { Wire } from '../../base/net/wire.ts';
import { connect } from './connect.ts';
import { healthStep } from './health.ts';
import { capabilitiesWithoutTools, listedDetail, namedOnWire, toolMissing, type Listing } from './listing.ts';
import type { Session, SessionOptions } from './session.ts';
import { Sessions } from './sessions.ts';
import { invalidParams } from './invalid-params.ts';
import { callCanaryTool } from './tool.ts';
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
  private checked: AnswerCheck[] | undefined;
  private upstreamCredential: string | null = null;
  private handshake: Handshake | undefined;

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
    this.o = { url: target.url, headers: target.headers, timeoutMs: target.timeoutMs, wire: this.wire, run: ctx };
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

    const noTools = capabilitiesWithoutTools(this.sessions.current, target.tool?.name, this.identity());
    if (noTools?.ok) return this.end(Outcome.healthy, null, noTools.detail);
    if (noTools) {
      this.probes.push({ name: 'tools/list', ok: false, durationMs: 0, detail: noTools.fault.detail, failure: noTools.fault.failure });
      return this.failed(noTools.fault);
    }
    const listing = await this.step('tools/list', () => this.listTools());
    if (!listing.ok) return this.failed(listing.fault);
    if (target.tool) {
      const called = await this.step('tools/call', () => this.callTool(listing.value));
      if (!called.ok) return this.failed(called.fault);
    }
    if (this.sessions.recovered) return this.end(Outcome.degraded, null, this.sessions.recovered);
    const what = target.tool ? `${shownName(target.tool.name)} answered as expected` : 'tools listed (no canary tool configured)';
    return this.end(Outcome.healthy, null, `${this.identity()}: ${what}`);
  }

  /** The close step: every session ended (DELETE on 2025-11-25), then every socket of the attempt. */
  async close(): Promise<void> {
    await this.sessions.close();
    await this.wire.close();
  }

  /**
   * tools/list, read again (never the SDK's cache); the step fails when the canary tool is not in it.
   * A page the SDK refuses for one broken entry is read again entry by entry (tolerant-list.ts).
   */
  private async listTools(): Promise<StepResult<Listing>> {
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
    const wanted = target.tool?.name;
    const broken = wanted === undefined ? null : canaryEntryBroken(wanted, bad);
    if (broken) return faulted(broken);
    const listings = wanted === undefined ? [] : tools.filter((t) => t.name === wanted);
    const onWire = namedOnWire(this.wire.exchanges.slice(walkStart), wanted, listings.length);
    if (wanted !== undefined && listings.length === 0) {
      const missing = toolMissing(wanted, tools, onWire > 0, this.revision);
      return faulted({ ...missing, detail: `${missing.detail}${badEntriesWords(bad)}` });
    }
    return passed({ tools, listings, onWire }, `${listedDetail(tools, wanted)}${badEntriesWords(bad)}`);
  }

  /** tools/call of the canary tool, checked; what its answer is checked against is known before it is called. */
  private async callTool(listing: Listing): Promise<StepResult<unknown>> {
    const wanted = this.target.tool!;
    this.checked = configuredChecks(
      wanted,
      listing.listings.some((t) => t.outputSchema !== undefined),
    );
    const call = {
      timeoutMs: this.target.timeoutMs,
      run: this.ctx,
      answerText: () => this.wire.last('tools/call')?.answerText,
      unchecked: this.checked.every((c) => c === 'isError'),
    };
    const r = await this.sessions.run('tools/call', 'tools/call', (s) => callCanaryTool(s, listing.listings, listing.onWire, wanted, call));
    if (!r.ok && r.fault.failure === FailureClass.unsafeTool) this.checked = undefined;
    // -32602: the canary's arguments or the server's validation — the listed inputSchema says which.
    if (!r.ok) return faulted(invalidParams(r.fault, this.wire.last('tools/call'), listing.listings[0], wanted.arguments));
    this.upstreamCredential = r.value.upstreamCredential;
    return r;
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
