/**
 * JSON with exact integers: `JSON.parse` rounds an integer beyond 2^53 to the nearest double, so
 * `--expect-json id=9007199254740993` would match `9007199254740992`. Read with lossless-json, an
 * integer that a double cannot hold is a BigInt (the CLI's --expect-json and the tool's answer alike).
 */
import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** JSON text → value, an integer beyond 2^53 as a BigInt (every other number as JSON.parse reads it). */
export function parseExactJson(text: string): unknown {
  return parse(text, null, (n) => (isInteger(n) && !isSafeNumber(n) ? BigInt(n) : Number(n)));
}

/** A value as JSON text, BigInts as their digits. */
export function showJson(v: unknown): string {
  return stringify(v) ?? 'undefined';
}
