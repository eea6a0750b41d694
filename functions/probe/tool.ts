/** The canary tool step: refuse what is not read-only, call it, check the answer. */
import type { Tool } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import type { CanaryTool } from '../config/target.ts';
import { FailureClass } from '../verdict.ts';
import { oneLine } from '../redact.ts';
import type { Classified } from './classify.ts';
import { checkAnswer, textOf } from './expect.ts';
import type { Session } from './session.ts';

export interface ToolOutcome {
  readonly detail: string;
  /** Set when the tool must not be called, answered `isError`, or failed a check. */
  readonly failure?: Classified;
}

export async function callCanaryTool(
  s: Session,
  tool: Tool,
  wanted: z.output<typeof CanaryTool>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const a = tool.annotations;
  if (a?.readOnlyHint !== true && !wanted.allowUnsafe) {
    const why =
      a?.destructiveHint === true ? 'is annotated destructiveHint: true' : a ? 'is not annotated readOnlyHint: true' : 'has no annotations';
    const detail = `tools/call: not called — ${tool.name} ${why}. A canary calls read-only tools only; allow it with tool.allowUnsafe (--allow-unsafe-tool) if calling it is harmless`;
    return { detail, failure: { failure: FailureClass.unsafeTool, retryable: false, detail } };
  }
  // The listed definition goes along so the SDK checks structuredContent against its outputSchema.
  const result = await s.client.callTool(
    { name: tool.name, arguments: { ...wanted.arguments } },
    { timeout: timeoutMs, signal, toolDefinition: tool },
  );
  const text = textOf(result);
  if (result.isError) {
    const detail = `tools/call: ${tool.name} answered isError: ${oneLine(text || '(no text)', 200)}`;
    return { detail, failure: { failure: FailureClass.toolError, retryable: false, detail } };
  }
  const failed = checkAnswer(result, wanted);
  if (failed.length > 0) {
    const detail = `tools/call: ${failed.join('; ')}`;
    return { detail, failure: { failure: FailureClass.assertion, retryable: false, detail } };
  }
  return { detail: `${tool.name} answered: ${JSON.stringify(oneLine(text, 80))}` };
}
