/**
 * Pure checks of a tool's answer against what the target expects. Each failed check reads as a
 * condition with what was seen (Gatus' style): `rate == 1.08, got 1.2`, with enough of it (300
 * characters, redacted later like every detail) to carry the server's own message.
 *
 * Numbers compare exactly: `JSON.parse` — the SDK's, and `--expect-json`'s — rounds an integer beyond
 * 2^53 to the nearest double, so `id == 9007199254740993` would pass against `9007199254740992`. The
 * answer is read again from the JSON text the wire kept, with lossless-json, and an integer that a
 * double cannot hold is a BigInt on both sides. (`JSON.parse`'s reviver `context.source` would do it
 * too, but Node 20 lacks it.)
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { parseExactJson, showJson } from '../../base/common/exact-json.ts';
import { oneLine } from '../../base/common/redact.ts';

export interface AnswerExpectations {
  readonly expectText?: string | undefined;
  readonly expectJson: Readonly<Record<string, unknown>>;
}

/** What a detail keeps of the answer it quotes. */
const SEEN_CHARS = 300;

/** The text content of a tool result, joined: what `expectText` and `isError` details read. */
export function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text' && typeof (c as { text?: unknown }).text === 'string')
    .map((c) => c.text)
    .join('\n');
}

/**
 * Returns the failed conditions; empty when every expectation holds. `answerText` is the JSON-RPC
 * message that carried `result` as the server wrote it: its structuredContent is read from there.
 */
export function checkAnswer(result: CallToolResult, e: AnswerExpectations, answerText?: string | null): string[] {
  const paths = Object.keys(e.expectJson).length > 0;
  return checkView(textOf(result), paths ? exactStructuredContent(answerText, result) : undefined, e);
}

/** The same checks over any answer's text and JSON (a flow step's: a resource, a prompt, a list). */
export function checkView(text: string, json: unknown, e: AnswerExpectations): string[] {
  const failed: string[] = [];
  if (e.expectText !== undefined && !text.includes(e.expectText))
    failed.push(`text contains ${JSON.stringify(e.expectText)}, got ${JSON.stringify(oneLine(text, SEEN_CHARS))}`);
  for (const [path, want] of Object.entries(e.expectJson)) {
    const got = lookup(json, path);
    if (!got.found) failed.push(`${path} == ${showJson(want)}, got nothing at that path`);
    else if (!sameJson(got.value, want)) failed.push(`${path} == ${showJson(want)}, got ${oneLine(showJson(got.value), SEEN_CHARS)}`);
  }
  return failed;
}

/** structuredContent as the server wrote it, when the wire kept its text; else as the SDK parsed it. */
export function exactStructuredContent(answerText: string | null | undefined, result: CallToolResult): unknown {
  if (!answerText) return result.structuredContent;
  try {
    const msg = parseExactJson(answerText);
    const one = Array.isArray(msg) ? msg.find((m) => m && typeof m === 'object' && 'result' in m) : msg;
    const r = (one as { result?: { structuredContent?: unknown } } | undefined)?.result;
    return r && typeof r === 'object' && 'structuredContent' in r ? r.structuredContent : result.structuredContent;
  } catch {
    return result.structuredContent;
  }
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

/**
 * JSON equality: objects regardless of key order; numbers by value, integers exactly (a BigInt and a
 * number are equal when they name the same integer).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint';
  if (numeric(a) && numeric(b)) {
    const whole = (v: unknown) => typeof v === 'bigint' || Number.isInteger(v);
    if (whole(a) && whole(b)) return BigInt(a as number | bigint) === BigInt(b as number | bigint);
    return typeof a === 'number' && typeof b === 'number' && a === b;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}
