/**
 * A gateway's backends, judged one by one on the gateway's own session after its one tools/list: each
 * backend's tool or flow (its tool names behind the backend's prefix, backends.ts in the schema) runs as
 * a flow of its own (flow.ts), with its own probe lines and its own end. A backend whose tool the
 * gateway no longer lists is `tool_missing` for that backend only: a gateway usually drops a dead
 * backend's tools from its list, or answers their calls with an error, while the others still work.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { shownName } from '../../base/common/names.ts';
import { faulted, faultOutcome, probeOf, type Fault } from '../../base/common/step.ts';
import { Outcome, type AnswerCheck, type FailureClass, type NegotiatedRevision, type ProbeResult } from '../../base/common/verdict.ts';
import { behindPrefix, prefixedFlow, prefixOf, type Backend } from '../../base/config/schema/backends.ts';
import { flowOf } from '../../base/config/schema/target.ts';
import { runFlow, type FlowContext } from './flow.ts';
import { toolMissing } from './listing.ts';

/** One backend's end on this attempt. */
export interface BackendAttempt {
  readonly name: string;
  readonly outcome: Outcome;
  readonly failure: FailureClass | null;
  readonly detail: string;
  readonly probes: readonly ProbeResult[];
  /** The gateway's tools with this backend's prefix, the prefix taken off (drift compares them). */
  readonly tools: readonly Tool[];
  readonly checked?: readonly AnswerCheck[];
  readonly upstreamCredential?: string;
  /** How long its steps took, from its first request to its last answer. */
  readonly durationMs: number;
}

export interface BackendsContext extends Omit<FlowContext, 'numbered' | 'record'> {
  readonly listed: readonly Tool[];
  readonly revision: NegotiatedRevision | null;
}

/**
 * Each backend's end, in order. The session is the gateway's: when it is lost for good (sessions.ts)
 * the backend it broke on and those after it are not judged, and `broken` (naming that backend) is the
 * gateway's own failure — one page for the gateway, none for a backend.
 */
export async function runBackends(
  backends: readonly Backend[],
  c: BackendsContext,
): Promise<{ ends: BackendAttempt[]; broken: Fault | null }> {
  const ends: BackendAttempt[] = [];
  // Already lost by the gateway's own steps: that is the gateway's verdict, and no backend is judged.
  if (c.sessions.lostForGood()) return { ends, broken: null };
  for (const b of backends) {
    const end = await runBackend(b, c);
    const broken = c.sessions.lostForGood();
    if (broken) return { ends, broken: { ...broken, detail: `backend "${b.name}": ${broken.detail}` } };
    ends.push(end);
  }
  return { ends, broken: null };
}

async function runBackend(b: Backend, c: BackendsContext): Promise<BackendAttempt> {
  const prefix = prefixOf(b);
  const tools = behindPrefix(c.listed, prefix);
  const steps = prefixedFlow(b, flowOf);
  const probes: ProbeResult[] = [];
  const started = c.ctx.now();
  const end = (fault: Fault | null, extra: Partial<BackendAttempt> = {}): BackendAttempt => ({
    name: b.name,
    outcome: fault ? faultOutcome(fault) : Outcome.healthy,
    failure: fault?.failure ?? null,
    detail: fault ? fault.detail : passedWords(b, prefix),
    probes,
    tools,
    durationMs: c.ctx.now() - started,
    ...extra,
  });
  // Every tool the backend's steps call must be in the gateway's list: callCanaryTool judges a listing.
  for (const s of steps) {
    if (s.kind !== 'tools/call' || c.tools(s.name).listings.length > 0) continue;
    const fault = toolMissing(s.name, c.listed, c.tools(s.name).onWire > 0, c.revision);
    probes.push(probeOf('tools/list', faulted(fault), 0));
    return end(fault);
  }
  const flow = await runFlow(steps, { ...c, numbered: b.flow !== undefined, record: (p) => probes.push(p) });
  return end(flow.fault, {
    ...(flow.checked ? { checked: flow.checked } : {}),
    ...(flow.upstreamCredential ? { upstreamCredential: flow.upstreamCredential } : {}),
  });
}

function passedWords(b: Backend, prefix: string): string {
  if (b.flow)
    return `flow of ${b.flow.length} step(s) passed through the gateway (${b.flow.map((s, i) => s.id ?? `step ${i + 1}`).join(', ')})`;
  return `${shownName(`${prefix}${b.tool!.name}`)} answered as expected through the gateway`;
}
