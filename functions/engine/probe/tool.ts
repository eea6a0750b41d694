/** The canary tool step: refuse what is not read-only, call it (following a task when the target says it may be one), check the answer. */
import { SdkError, SdkErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import type { CanaryTool } from '../../base/config/schema/target.ts';
import { FailureClass, type TaskReport } from '../../base/common/verdict.ts';
import { oneLine } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faulted, passed, type Fault, type StepResult } from '../../base/common/step.ts';
import { checkAnswer, textOf } from './expect.ts';
import { shownName } from '../../base/common/names.ts';
import type { Session } from './session.ts';
import { createdTask, followTask } from './task.ts';
import { upstreamCredentialWords } from './upstream-credential.ts';

export interface CallContext {
  readonly timeoutMs: number;
  /** The run's budget: its signal, and what is left of it (the SDK's multi-round-trip retries stop within it). */
  readonly run: Pick<RunContext, 'signal' | 'remainingMs' | 'now' | 'sleep'>;
  /** The JSON text of the answer as the wire read it (integers beyond 2^53 intact), after the call. */
  readonly answerText: () => string | null | undefined;
  /** How a task ended, when the call ran as one. */
  readonly onTask?: (report: TaskReport) => void;
  /** Nothing but isError checks the answer: an ordinary answer is read for an upstream's refused credential. */
  readonly unchecked: boolean;
}

/**
 * The tool's answer, `structuredContent` as the server wrote it (for expectations and extraction), and
 * the answer's words that read like a refused upstream credential when nothing but isError checks it.
 */
export interface ToolAnswer {
  readonly result: CallToolResult;
  readonly answerText: string | null | undefined;
  readonly upstreamCredential: string | null;
}

/**
 * `listings` are every tool `tools/list` named `wanted.name` (the SDK's list), `onWire` how many times
 * the wire saw that name (the client drops a definition it cannot use). A call goes by name, so when a
 * name is listed more than once the canary cannot know which definition it reaches: it calls only when
 * every listing is read-only.
 */
export async function callCanaryTool(
  s: Session,
  listings: readonly Tool[],
  onWire: number,
  wanted: z.output<typeof CanaryTool>,
  c: CallContext,
): Promise<StepResult<ToolAnswer>> {
  const tool = listings[0]!;
  const name = shownName(tool.name);
  const refused = wanted.allowUnsafe ? null : refusal(name, listings, onWire);
  if (refused) {
    const detail = `tools/call: not called — ${refused}. A canary calls read-only tools only; allow it with tool.allowUnsafe (--allow-unsafe-tool) if calling it is harmless`;
    return faulted({ failure: FailureClass.unsafeTool, retryable: false, detail });
  }
  const answered = await call(s, tool, wanted, c);
  if ('fault' in answered) return faulted(answered.fault);
  const { result, answerText } = answered;
  const text = textOf(result);
  if (result.isError) {
    const detail = `tools/call: ${name} answered isError: ${oneLine(text || '(no text)', 300)}`;
    return faulted({ failure: FailureClass.toolError, retryable: false, detail });
  }
  const failed = checkAnswer(result, wanted, answerText);
  if (failed.length > 0) {
    const detail = `tools/call: ${failed.join('; ')}`;
    return faulted({ failure: FailureClass.assertion, retryable: false, detail });
  }
  const upstreamCredential = c.unchecked ? upstreamCredentialWords(result) : null;
  return passed({ result, answerText, upstreamCredential }, `${name} answered: ${JSON.stringify(oneLine(text, 80))}`);
}

/**
 * The call; when the target says the tool may run as a task and the server answered one (the SDK refuses
 * `resultType: "task"`), the task followed to its end (task.ts). A completed task's result is judged as
 * the call's own answer.
 */
async function call(
  s: Session,
  tool: Tool,
  wanted: z.output<typeof CanaryTool>,
  c: CallContext,
): Promise<Omit<ToolAnswer, 'upstreamCredential'> | { readonly fault: Fault }> {
  const startedAt = c.run.now();
  try {
    // The listed definition goes along so the SDK checks structuredContent against its outputSchema.
    const result = await s.client.callTool(
      { name: tool.name, arguments: { ...wanted.arguments } },
      { timeout: c.timeoutMs, signal: c.run.signal, toolDefinition: tool, maxTotalTimeout: Math.max(1, c.run.remainingMs()) },
    );
    return { result, answerText: c.answerText() };
  } catch (e) {
    if (!wanted.task || !isTaskAnswer(e)) throw e;
    const created = createdTask(c.answerText());
    if (!created) {
      const detail = `tools/call: ${shownName(tool.name)} answered resultType "task" without a task (no taskId or status): not a CreateTaskResult (SEP-2663)`;
      return { fault: { failure: FailureClass.protocol, retryable: false, detail } };
    }
    const end = await followTask(s, created, { name: shownName(tool.name), timeoutMs: c.timeoutMs, run: c.run, startedAt });
    if (end.report) c.onTask?.(end.report);
    if (!end.ok) return { fault: end.fault };
    // tasks/get's answer text is not kept: its structuredContent is read as the SDK parsed it.
    return { result: end.result, answerText: undefined };
  }
}

function isTaskAnswer(e: unknown): boolean {
  return (
    e instanceof SdkError && e.code === SdkErrorCode.UnsupportedResultType && (e.data as { resultType?: unknown })?.resultType === 'task'
  );
}

function refusal(name: string, listings: readonly Tool[], onWire: number): string | null {
  if (listings.length > 1 || onWire > listings.length) {
    if (onWire <= listings.length && listings.every((t) => t.annotations?.readOnlyHint === true)) return null;
    const each = listings.map((t) => annotationWords(t.annotations)).join('; ');
    const dropped =
      onWire > listings.length ? `; ${onWire - listings.length} more the client dropped as unusable, annotations unknown` : '';
    return `tools/list names ${name} ${Math.max(onWire, listings.length)} times (${each}${dropped}), and a call by name may reach any of them: the canary calls a name listed more than once only when every listing is annotated readOnlyHint: true`;
  }
  const a = listings[0]!.annotations;
  if (a?.readOnlyHint === true) return null;
  return `${name} ${a?.destructiveHint === true ? 'is annotated destructiveHint: true' : a ? 'is not annotated readOnlyHint: true' : 'has no annotations'}`;
}

function annotationWords(a: Tool['annotations']): string {
  if (!a) return 'no annotations';
  const words = [
    a.readOnlyHint === true ? 'readOnlyHint: true' : 'not readOnlyHint',
    ...(a.destructiveHint === true ? ['destructiveHint: true'] : []),
  ];
  return words.join(', ');
}
