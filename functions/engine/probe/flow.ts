/**
 * The flow runner: a target's steps in order on the attempt's session, each one probe line (its latency,
 * its place, how its task ended), the first that fails ending the attempt with a detail that names it
 * (`step 2 "rate": tools/call: …`). A step whose capability the server does not advertise is never sent.
 * Every tool step passes the read-only gate (tool.ts); values extracted from one step's answer fill a
 * later step's arguments (flow-values.ts). A single canary tool runs here as a one-step flow whose line
 * reads as it always has.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faulted, passed, probeOf, type Fault, type StepResult } from '../../base/common/step.ts';
import { FailureClass, type AnswerCheck, type ProbeResult, type StepPlace, type TaskReport } from '../../base/common/verdict.ts';
import { stepLabel, type FlowStep } from '../../base/config/schema/flow.ts';
import { configuredChecks } from '../../base/config/schema/unchecked.ts';
import type { Wire } from '../../base/net/wire.ts';
import { checkView, exactStructuredContent } from './expect.ts';
import {
  asText,
  extractValues,
  fill,
  promptsListView,
  promptView,
  resourceReadView,
  resourcesListView,
  toolView,
  type AnswerView,
} from './flow-values.ts';
import type { Session } from './session.ts';
import type { Sessions } from './sessions.ts';
import { invalidParams } from './invalid-params.ts';
import { callCanaryTool } from './tool.ts';

export interface FlowContext {
  readonly sessions: Sessions;
  readonly ctx: RunContext;
  readonly timeoutMs: number;
  readonly wire: Wire;
  /** Every listing of a tool name in tools/list, and how many times the wire named it. */
  readonly tools: (name: string) => { readonly listings: readonly Tool[]; readonly onWire: number };
  /** A flow's steps are numbered in details and lines; a single canary tool keeps today's words. */
  readonly numbered: boolean;
  /** Adds a step's probe line. */
  readonly record: (p: ProbeResult) => void;
}

export interface FlowEnd {
  readonly fault: Fault | null;
  /** What the single canary tool's answer was checked against, once it was called. */
  readonly checked?: readonly AnswerCheck[];
  /** The first unchecked tool answer's words that read like a refused upstream credential (upstream-credential.ts). */
  readonly upstreamCredential?: string;
}

/** The capability each step kind needs: a client never sends what the server does not advertise. */
const NEEDS: Readonly<Record<FlowStep['kind'], 'tools' | 'resources' | 'prompts'>> = {
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/read': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
};

export async function runFlow(steps: readonly FlowStep[], f: FlowContext): Promise<FlowEnd> {
  const gate = missingCapability(steps, f);
  if (gate) return { fault: gate };
  const values = new Map<string, Record<string, unknown>>();
  let checked: AnswerCheck[] | undefined;
  let upstreamCredential: string | undefined;
  for (const [i, step] of steps.entries()) {
    let task: TaskReport | undefined;
    let sent: { tool: Tool | undefined; args: Readonly<Record<string, unknown>> } | undefined;
    const started = f.ctx.now();
    const r = await f.sessions.run(step.kind, step.kind, async (s) => {
      const filled = fillStep(step, values);
      if ('problem' in filled) return faulted<AnswerView>(assertion(`${step.kind}: ${filled.problem}`));
      if (filled.step.kind !== 'tools/call') return await otherStep(s, filled.step, f);
      const { listings, onWire } = f.tools(filled.step.name);
      sent = { tool: listings[0], args: filled.step.arguments };
      const stepChecks = configuredChecks(
        filled.step,
        listings.some((t) => t.outputSchema !== undefined),
      );
      if (!f.numbered) checked = stepChecks;
      const call = {
        timeoutMs: f.timeoutMs,
        run: f.ctx,
        answerText: () => f.wire.last('tools/call')?.answerText,
        onTask: (t: TaskReport) => (task = t),
        // A step whose answer nothing but isError checks is read for an upstream's refused credential.
        unchecked: stepChecks.every((c) => c === 'isError'),
      };
      const called = await callCanaryTool(s, listings, onWire, filled.step, call);
      if (!called.ok) return faulted<AnswerView>(called.fault);
      const { result, answerText } = called.value;
      upstreamCredential ??= called.value.upstreamCredential ?? undefined;
      const view = toolView(result, exactStructuredContent(answerText, result));
      return passed(view, called.detail);
    });
    // -32602 (a fault of the session's, after the call): the canary's arguments or the server's
    // validation — the listed inputSchema says which.
    const classed = !r.ok && sent ? faulted<AnswerView>(invalidParams(r.fault, f.wire.last('tools/call'), sent.tool, sent.args)) : r;
    const judged = classed.ok ? extracted(step, classed, values) : classed;
    const shown = f.numbered ? labelled(i, step, judged) : judged;
    f.record({
      ...probeOf(step.kind, shown, f.ctx.now() - started),
      ...(f.numbered ? { step: placeOf(i, step) } : {}),
      ...(task ? { task } : {}),
    });
    if (!shown.ok) {
      if (shown.fault.failure === FailureClass.unsafeTool && !f.numbered) checked = undefined;
      return { fault: shown.fault, ...(checked ? { checked } : {}) };
    }
  }
  return { fault: null, ...(checked ? { checked } : {}), ...(upstreamCredential ? { upstreamCredential } : {}) };
}

/** The step's templates filled with the values so far; a value of the wrong type named. */
function fillStep(step: FlowStep, values: Map<string, Record<string, unknown>>): { step: FlowStep } | { problem: string } {
  if (step.kind === 'tools/call' || step.kind === 'prompts/get') {
    const args = fill(step.arguments, values);
    if ('problem' in args) return { problem: `arguments: ${args.problem}` };
    if (step.kind === 'prompts/get') {
      const bad = Object.entries(args.value as Record<string, unknown>).find(([, v]) => typeof v !== 'string');
      if (bad) {
        const t = asText(`arguments.${bad[0]}`, bad[1]);
        if ('problem' in t) return { problem: `${t.problem}: a prompt's arguments are strings` };
      }
    }
    return { step: { ...step, arguments: args.value } as FlowStep };
  }
  if (step.kind === 'resources/read') {
    const uri = fill(step.uri, values);
    const text = 'problem' in uri ? uri : asText('uri', uri.value);
    return 'problem' in text ? { problem: text.problem } : { step: { ...step, uri: text.value } };
  }
  return { step };
}

/** resources/list, resources/read, prompts/list, prompts/get: the SDK's call, its answer's view checked. */
async function otherStep(s: Session, step: Exclude<FlowStep, { kind: 'tools/call' }>, f: FlowContext): Promise<StepResult<AnswerView>> {
  const o = { timeout: f.timeoutMs, signal: f.ctx.signal };
  let view: AnswerView;
  let seen: string;
  switch (step.kind) {
    case 'resources/list': {
      const r = await s.client.listResources(undefined, { ...o, cacheMode: 'refresh' });
      view = resourcesListView(r);
      seen = `${r.resources.length} resource(s)`;
      break;
    }
    case 'resources/read': {
      const r = await s.client.readResource({ uri: step.uri }, { ...o, cacheMode: 'refresh' });
      view = resourceReadView(r);
      seen = `${oneLine(step.uri, 100)}: ${r.contents.length} content(s), ${JSON.stringify(oneLine(view.text, 60))}`;
      break;
    }
    case 'prompts/list': {
      const r = await s.client.listPrompts(undefined, { ...o, cacheMode: 'refresh' });
      view = promptsListView(r);
      seen = `${r.prompts.length} prompt(s)`;
      break;
    }
    case 'prompts/get': {
      const r = await s.client.getPrompt({ name: step.name, arguments: step.arguments }, o);
      view = promptView(r);
      seen = `${oneLine(step.name, 60)}: ${r.messages.length} message(s), ${JSON.stringify(oneLine(view.text, 60))}`;
      break;
    }
  }
  const failed = checkView(view.text, view.json, step);
  if (failed.length > 0) return faulted(assertion(`${step.kind}: ${failed.join('; ')}`));
  return passed(view, seen);
}

/** After the step passed: its values, or the extraction that matched nothing (an `assertion`). */
function extracted(
  step: FlowStep,
  r: StepResult<AnswerView> & { ok: true },
  values: Map<string, Record<string, unknown>>,
): StepResult<AnswerView> {
  const names = Object.keys(step.extract);
  if (names.length === 0) return r;
  const got = extractValues(step.extract, r.value);
  if ('problem' in got) return faulted(assertion(`${step.kind}: ${got.problem}`));
  if (step.id) values.set(step.id, got.values);
  return passed(r.value, `${r.detail}; extracted ${names.join(', ')}`);
}

/** The first step whose capability the server does not advertise, as that step's failed line. */
function missingCapability(steps: readonly FlowStep[], f: FlowContext): Fault | null {
  const caps = f.sessions.current.client.getServerCapabilities() ?? {};
  const i = steps.findIndex((s) => NEEDS[s.kind] !== 'tools' && !caps[NEEDS[s.kind]]);
  if (i === -1) return null;
  const step = steps[i]!;
  const offered =
    Object.keys(caps)
      .filter((k) => k !== 'experimental')
      .map((k) => oneLine(k, 30))
      .join(', ') || 'none';
  const fault: Fault = {
    failure: FailureClass.capabilityMissing,
    retryable: false,
    detail: `${stepLabel(i, step)}: ${step.kind}: not sent — the server does not advertise the ${NEEDS[step.kind]} capability (capabilities: ${offered})`,
  };
  f.record({ ...probeOf(step.kind, faulted(fault), 0), step: placeOf(i, step) });
  return fault;
}

function labelled<T>(i: number, step: FlowStep, r: StepResult<T>): StepResult<T> {
  return r.ok ? r : { ...r, fault: { ...r.fault, detail: `${stepLabel(i, step)}: ${r.fault.detail}` } };
}

function placeOf(i: number, step: FlowStep): StepPlace {
  return { index: i + 1, ...(step.id ? { id: step.id } : {}) };
}

function assertion(detail: string): Fault {
  return { failure: FailureClass.assertion, retryable: false, detail };
}
