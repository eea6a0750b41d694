/** The canary tool step: refuse what is not read-only, call it, check the answer. */
import type { Tool } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import type { CanaryTool } from '../../base/config/schema/target.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import { oneLine } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { faulted, passed, type StepResult } from '../../base/common/step.ts';
import { checkAnswer, textOf } from './expect.ts';
import { shownName } from '../../base/common/names.ts';
import type { Session } from './session.ts';
import { upstreamCredentialWords } from './upstream-credential.ts';

export interface CallContext {
  readonly timeoutMs: number;
  /** The run's budget: its signal, and what is left of it (the SDK's multi-round-trip retries stop within it). */
  readonly run: Pick<RunContext, 'signal' | 'remainingMs'>;
  /** The JSON text of the answer as the wire read it (integers beyond 2^53 intact), after the call. */
  readonly answerText: () => string | null | undefined;
  /** Nothing but isError checks the answer: an ordinary answer is read for an upstream's refused credential. */
  readonly unchecked: boolean;
}

/** What a passed call leaves for the warnings: the answer's words that read like a refused upstream credential. */
export interface Called {
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
): Promise<StepResult<Called>> {
  const tool = listings[0]!;
  const name = shownName(tool.name);
  const refused = wanted.allowUnsafe ? null : refusal(name, listings, onWire);
  if (refused) {
    const detail = `tools/call: not called — ${refused}. A canary calls read-only tools only; allow it with tool.allowUnsafe (--allow-unsafe-tool) if calling it is harmless`;
    return faulted({ failure: FailureClass.unsafeTool, retryable: false, detail });
  }
  // The listed definition goes along so the SDK checks structuredContent against its outputSchema.
  const result = await s.client.callTool(
    { name: tool.name, arguments: { ...wanted.arguments } },
    { timeout: c.timeoutMs, signal: c.run.signal, toolDefinition: tool, maxTotalTimeout: Math.max(1, c.run.remainingMs()) },
  );
  const text = textOf(result);
  if (result.isError) {
    const detail = `tools/call: ${name} answered isError: ${oneLine(text || '(no text)', 300)}`;
    return faulted({ failure: FailureClass.toolError, retryable: false, detail });
  }
  const failed = checkAnswer(result, wanted, c.answerText());
  if (failed.length > 0) {
    const detail = `tools/call: ${failed.join('; ')}`;
    return faulted({ failure: FailureClass.assertion, retryable: false, detail });
  }
  const upstreamCredential = c.unchecked ? upstreamCredentialWords(result) : null;
  return passed({ upstreamCredential }, `${name} answered: ${JSON.stringify(oneLine(text, 80))}`);
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
