/**
 * Pure checks of a tool's answer against what the target expects. Each failed check reads as a
 * condition with what was seen (Gatus' style): `rate == 1.08, got 1.2`.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { oneLine } from '../redact.ts';

export interface AnswerExpectations {
  readonly expectText?: string | undefined;
  readonly expectJson: Readonly<Record<string, unknown>>;
}

/** The text content of a tool result, joined: what `expectText` and `isError` details read. */
export function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text' && typeof (c as { text?: unknown }).text === 'string')
    .map((c) => c.text)
    .join('\n');
}

/** Returns the failed conditions; empty when every expectation holds. */
export function checkAnswer(result: CallToolResult, e: AnswerExpectations): string[] {
  const failed: string[] = [];
  if (e.expectText !== undefined) {
    const text = textOf(result);
    if (!text.includes(e.expectText))
      failed.push(`text contains ${JSON.stringify(e.expectText)}, got ${JSON.stringify(oneLine(text, 80))}`);
  }
  for (const [path, want] of Object.entries(e.expectJson)) {
    const got = lookup(result.structuredContent, path);
    if (!got.found) failed.push(`${path} == ${JSON.stringify(want)}, got nothing at that path`);
    else if (canonical(got.value) !== canonical(want))
      failed.push(`${path} == ${JSON.stringify(want)}, got ${oneLine(JSON.stringify(got.value) ?? 'undefined', 80)}`);
  }
  return failed;
}

/** `a.b.0.c`: object keys and array indexes, as users write them on the command line. */
export function lookup(root: unknown, path: string): { found: true; value: unknown } | { found: false } {
  let cur = root;
  for (const key of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(key) && Number(key) < cur.length) cur = cur[Number(key)];
    else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, key))
      cur = (cur as Record<string, unknown>)[key];
    else return { found: false };
  }
  return { found: true, value: cur };
}

/** JSON with sorted keys, so {a,b} equals {b,a}. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}
