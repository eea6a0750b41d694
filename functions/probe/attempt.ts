/**
 * One pass of the pipeline against one target. `judge()` may run several (in-run retries); each
 * attempt opens and ends its own sessions, so nothing carries over between attempts or runs.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { Target } from '../config/target.ts';
import {
  FailureClass,
  Outcome,
  Revision,
  type AnswerCheck,
  type NegotiatedRevision,
  type ProbeName,
  type ProbeResult,
  type ServerInfo,
} from '../common/verdict.ts';
import { oneLine } from '../common/redact.ts';
import { classifyError, type Classified } from './classify.ts';
import { connect } from './connect.ts';
import { probeHealth } from './health.ts';
import { closeSession, openSession, recoveredDetail, sessionLost, type Session, type SessionOptions } from './session.ts';
import { hasLookAlike, shownName } from '../common/names.ts';
import { classifyRounds, roundsSoFar } from './rounds.ts';
import { callCanaryTool } from './tool.ts';
import { configuredChecks } from '../config/unchecked.ts';
import { Wire, type Exchange, type FetchLike } from '../net/wire.ts';

export interface Attempt {
  readonly outcome: Outcome;
  readonly failure: FailureClass | null;
  readonly detail: string;
  readonly retryable: boolean;
  readonly revision: NegotiatedRevision | null;
  readonly server: ServerInfo | null;
  readonly probes: readonly ProbeResult[];
  readonly durationMs: number;
  /** What tools/list answered (catalog drift compares it), or null when the run did not get that far. */
  readonly listed: Listed | null;
  /** What the canary tool's answer is checked against, when it was called. */
  readonly checked?: readonly AnswerCheck[];
}

export interface Listed {
  readonly tools: readonly Tool[];
  /** 2026-07-28 `cacheScope` of the list (`private` when the server leaves it out), null on 2025-11-25. */
  readonly cacheScope: 'public' | 'private' | null;
}

export interface AttemptContext {
  readonly fetch?: FetchLike | undefined;
  readonly now: () => number;
  readonly budget: AbortSignal;
  /** When the run's budget ends, on the `now()` clock. @default - no end beyond the requests' own timeouts */
  readonly deadline?: number;
  /** Wraps every request of the attempt (trace context, User-Agent). */
  readonly middleware?: (next: FetchLike) => FetchLike;
}

type StepResult<T> = { ok: true; value: T } | { ok: false; c: Classified };

export async function runAttempt(target: Target, ctx: AttemptContext): Promise<Attempt> {
  const { now } = ctx;
  const started = now();
  const wire = new Wire({ timeoutMs: target.timeoutMs, budget: ctx.budget, fetch: ctx.fetch, middleware: ctx.middleware });
  const o: SessionOptions = {
    url: target.url,
    headers: target.headers,
    timeoutMs: target.timeoutMs,
    wire,
    signal: ctx.budget,
    remainingMs: () => (ctx.deadline ?? Infinity) - now(),
  };
  const probes: ProbeResult[] = [];
  const open: Session[] = [];
  const forgotten = new Set<Session>();
  let revision: NegotiatedRevision | null = null;
  let server: ServerInfo | null = null;
  let recoveredNote: string | null = null;
  let listedTools: Listed | null = null;
  let checked: AnswerCheck[] | undefined;

  const end = (outcome: Outcome, failure: FailureClass | null, detail: string, retryable = false): Attempt => ({
    outcome,
    failure,
    detail,
    retryable,
    revision,
    server,
    probes,
    durationMs: now() - started,
    listed: listedTools,
    ...(checked ? { checked } : {}),
  });
  const identity = () => `${revision}${server ? ` ${server.name} ${server.version}` : ''}`;
  const failedWith = (c: Classified): Attempt =>
    end(c.failure === FailureClass.unsafeTool ? Outcome.inconclusive : Outcome.failed, c.failure, c.detail, c.retryable);
  const timed = async <T>(name: ProbeName, fn: () => Promise<StepResult<T>>, okDetail: (v: T) => string): Promise<StepResult<T>> => {
    const t0 = now();
    const r = await fn();
    probes.push(
      r.ok
        ? { name, ok: true, durationMs: now() - t0, detail: okDetail(r.value), failure: null }
        : { name, ok: false, durationMs: now() - t0, detail: r.c.detail, failure: r.c.failure },
    );
    return r;
  };

  try {
    if (target.healthUrl) {
      const h = await probeHealth(target.healthUrl, sameOrigin(target.healthUrl, target.url) ? target.headers : {}, wire, now);
      probes.push(h);
      if (!h.ok) return end(Outcome.failed, h.failure, h.detail, h.failure !== FailureClass.auth && h.failure !== FailureClass.tls);
    }

    const t0 = now();
    const c = await connect(target.revision, o);
    probes.push({ name: c.probeName, ok: !c.failure, durationMs: now() - t0, detail: c.detail, failure: c.failure?.failure ?? null });
    if (c.failure) return failedWith(c.failure);
    open.push(c.session);
    ({ revision, server } = c.session);
    if (c.recovered) recoveredNote = c.recovered;
    let current: Session = c.session;

    // Runs a step on the current session; a 2025 session the server forgot (404) is replaced once by a
    // fresh one — "start a fresh session", not "outage" — and a second loss is `session_lost`.
    const onSession = async <T>(what: string, rpcMethod: string, fn: (s: Session) => Promise<T>): Promise<StepResult<T>> => {
      try {
        return { ok: true, value: await fn(current) };
      } catch (e) {
        if (!sessionGone(current, wire.last(rpcMethod)?.status))
          return { ok: false, c: classifyStep(what, e, wire, rpcMethod, current, ctx.budget.aborted) };
        forgotten.add(current);
        if (recoveredNote) return { ok: false, c: sessionLost(what) };
        try {
          current = await openSession('legacy', o);
          open.push(current);
        } catch (e2) {
          return { ok: false, c: classifyError(`${what}: re-initialize after the session was forgotten`, e2, wire.last('initialize')) };
        }
        recoveredNote = recoveredDetail(what);
        try {
          return { ok: true, value: await fn(current) };
        } catch (e3) {
          if (sessionGone(current, wire.last(rpcMethod)?.status)) {
            forgotten.add(current);
            return { ok: false, c: sessionLost(what) };
          }
          return { ok: false, c: classifyStep(what, e3, wire, rpcMethod, current, ctx.budget.aborted) };
        }
      }
    };

    const caps = current.client.getServerCapabilities();
    if (!caps?.tools) {
      // Never list what the server does not advertise. A server of resources or prompts only is a valid
      // MCP server: it fails only when the target names a canary tool it cannot have.
      const offered =
        Object.keys(caps ?? {})
          .filter((k) => k !== 'experimental')
          .map((k) => oneLine(k, 30))
          .join(', ') || 'none';
      if (!target.tool)
        return end(
          Outcome.healthy,
          null,
          `${identity()}: connected; the server advertises no tools capability (capabilities: ${offered}), so nothing to list`,
        );
      const detail = `tools/list: the server does not advertise the tools capability (capabilities: ${offered}), so it has no ${target.tool.name}`;
      probes.push({ name: 'tools/list', ok: false, durationMs: 0, detail, failure: FailureClass.toolMissing });
      return end(Outcome.failed, FailureClass.toolMissing, detail);
    }
    const listed = await timed(
      'tools/list',
      () =>
        onSession('tools/list', 'tools/list', (s) =>
          s.client.listTools(undefined, { cacheMode: 'refresh', timeout: target.timeoutMs, signal: ctx.budget }),
        ),
      (v) => `${v.tools.length} tool(s)${target.tool ? `, including ${shownName(target.tool.name)}` : ''}`,
    );
    if (!listed.ok) return failedWith(listed.c);
    const tools: Tool[] = listed.value.tools;
    listedTools = {
      tools,
      cacheScope:
        revision === Revision.modern ? ((listed.value as { cacheScope?: unknown }).cacheScope === 'public' ? 'public' : 'private') : null,
    };

    if (target.tool) {
      const wanted = target.tool;
      const listings = tools.filter((t) => t.name === wanted.name);
      const onWire = wire.last('tools/list')?.toolNames?.filter((n) => n === wanted.name).length ?? listings.length;
      if (listings.length === 0) {
        const c: Classified = {
          failure: FailureClass.toolMissing,
          retryable: false,
          detail: missingDetail(wanted.name, tools, onWire > 0, revision),
        };
        probes[probes.length - 1] = { ...probes.at(-1)!, ok: false, detail: c.detail, failure: c.failure };
        return failedWith(c);
      }
      checked = configuredChecks(
        wanted,
        listings.some((t) => t.outputSchema !== undefined),
      );
      const call = {
        timeoutMs: target.timeoutMs,
        signal: ctx.budget,
        remainingMs: o.remainingMs,
        answerText: () => wire.last('tools/call')?.answerText,
      };
      const called = await timed(
        'tools/call',
        () =>
          onSession('tools/call', 'tools/call', (s) => callCanaryTool(s, listings, onWire, wanted, call)).then((r) =>
            r.ok && r.value.failure ? { ok: false as const, c: r.value.failure } : r,
          ),
        (v) => v.detail,
      );
      if (!called.ok && called.c.failure === FailureClass.unsafeTool) checked = undefined;
      if (!called.ok) return failedWith(called.c);
    }

    if (recoveredNote) return end(Outcome.degraded, null, recoveredNote);
    return end(
      Outcome.healthy,
      null,
      `${identity()}: ${target.tool ? `${target.tool.name} answered as expected` : 'tools listed (no canary tool configured)'}`,
    );
  } finally {
    for (const s of open) await closeSession(s, { sendDelete: !forgotten.has(s) });
    await wire.close();
  }
}

function classifyStep(what: string, e: unknown, wire: Wire, rpcMethod: string, s: Session, budgetSpent: boolean): Classified {
  const exchange = wire.last(rpcMethod);
  const flipped = eraFlip(what, exchange, s, wire.last('server/discover'));
  if (flipped) return flipped;
  const calls = wire.exchanges.filter((x) => x.rpcMethod === rpcMethod);
  const rounds = classifyRounds(what, e, calls, budgetSpent);
  if (rounds) return rounds;
  const c = classifyError(what, e, exchange);
  if (c.failure === FailureClass.timeout && exchange?.resumeFrom) return unresumed(what, c, exchange, wire);
  if (c.failure === FailureClass.timeout) return { ...c, detail: `${c.detail}${roundsSoFar(calls)}${pendingRequests(exchange)}` };
  // The SDK checks structuredContent against the listed outputSchema and throws; that is an answer check.
  if (what === 'tools/call' && c.failure === FailureClass.protocol && /invalid outputSchema/i.test(c.detail)) {
    const why = oneLine(e instanceof Error ? e.message : String(e), 200);
    return {
      failure: FailureClass.assertion,
      detail: `tools/call: the tool's outputSchema cannot be used to check its answer (${why}); a network $ref is never fetched (SEP-2106)`,
      retryable: false,
    };
  }
  if (what === 'tools/call' && c.failure === FailureClass.protocol && /output ?schema|structured ?content/i.test(c.detail)) {
    return {
      failure: FailureClass.assertion,
      detail: `tools/call: structuredContent does not match the tool's outputSchema (${oneLine(e instanceof Error ? e.message : String(e), 160)})`,
      retryable: false,
    };
  }
  return { ...c, detail: `${c.detail}${pendingRequests(exchange)}` };
}

/**
 * What the server was waiting for: on 2025-11-25 a tool asks the client for input with a request on the
 * call's own stream (`elicitation/create`); the canary declares no capabilities, so its client refuses,
 * and a server that waits on regardless answers nothing until the timeout.
 */
function pendingRequests(x: Exchange | undefined): string {
  const asked = [...new Set((x?.serverRequests ?? []).filter((m) => m !== 'ping'))];
  if (asked.length === 0) return '';
  return ` — the server had asked the client for ${asked.join(', ')} on this call's stream, which the canary refused (it declares no client capabilities; a canary tool must answer unattended)`;
}

/** tools/list does not name the canary tool: what it does name, look-alike characters shown as code points. */
function missingDetail(wanted: string, tools: readonly Tool[], onWire: boolean, revision: NegotiatedRevision | null): string {
  // The server listed it, and the client dropped it: on 2026-07-28 the SDK excludes a tool whose
  // inputSchema declares an invalid x-mcp-header (SEP-2243); no agent on this era can call it.
  if (onWire)
    return `tools/list: the server lists "${shownName(wanted, 60)}", but its definition is unusable on ${revision}: the client excludes it (an invalid x-mcp-header declaration in its inputSchema, SEP-2243)`;
  const names = tools.slice(0, 8).map((t) => shownName(t.name, 60));
  const lookAlike = tools.some((t) => hasLookAlike(t.name)) ? '; names with characters outside ASCII are shown as code points' : '';
  return `tools/list: no tool named "${shownName(wanted)}" among ${tools.length} (${names.join(', ')}${tools.length > 8 ? ', …' : ''})${lookAlike}`;
}

/**
 * SEP-1699: the server closed the answer's stream after an event id and the resumptions (GET with
 * Last-Event-ID) never brought the answer: say so, with what the last GET got, rather than only "timeout".
 */
function unresumed(what: string, c: Classified, x: Exchange, wire: Wire): Classified {
  const gets = wire.exchanges.slice(wire.exchanges.indexOf(x) + 1).filter((g) => g.httpMethod === 'GET');
  const last = gets.at(-1);
  const got = last ? (last.error ? last.error.code : `HTTP ${last.status}`) : 'none was started within the budget';
  return {
    ...c,
    detail: `${what}: the server closed the answer's stream after event ${JSON.stringify(oneLine(x.resumeFrom!, 40))}; ${gets.length} resumption(s) with Last-Event-ID brought no answer (last: ${oneLine(got, 80)})`,
  };
}

/**
 * Discover said 2026-07-28, and a later call was answered the way a 2025 server answers a client that
 * never initialized (HTTP 400 with "Server not initialized", "no valid session", -32000/-32600): two
 * eras behind one endpoint — a fleet mid-rollout behind one load balancer. `revision`, with both answers.
 */
function eraFlip(what: string, x: Exchange | undefined, s: Session, discover: Exchange | undefined): Classified | null {
  if (s.era !== Revision.modern || !x || x.status !== 400) return null;
  const words = x.rpcError?.message ?? x.serverWords ?? '';
  const legacyAnswer = /not initialized|session/i.test(words) || x.rpcError?.code === -32000;
  if (!legacyAnswer) return null;
  const offered = discover?.supportedVersions?.length ? discover.supportedVersions.join(', ') : s.revision;
  return {
    failure: FailureClass.revision,
    retryable: false,
    detail: `${what}: the server answered like an uninitialized 2025 server (HTTP ${x.status}: ${JSON.stringify(oneLine(words, 160))}) though its discover offered ${offered} — two protocol eras behind one endpoint (a rollout in progress?)`,
  };
}

function sessionGone(s: Session, status: number | null | undefined): boolean {
  return s.era === Revision.legacy && status === 404;
}

function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}
