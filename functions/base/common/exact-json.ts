/**
 * JSON with exact integers: `JSON.parse` rounds an integer beyond 2^53 to the nearest double, so
 * `--expect-json id=9007199254740993` would match `9007199254740992`. Read with lossless-json, an
 * integer that a double cannot hold is a BigInt (the CLI's --expect-json and the tool's answer alike),
 * in whatever form the JSON writes it: `9007199254740993`, `9.007199254740993e15`, `90071992547409930e-1`.
 */
import { parse, stringify } from 'lossless-json';

/** Past this many digits an integer is not read exactly (`1e1000000` must not become a million digits). */
const MAX_EXACT_DIGITS = 400;

/** JSON text → value, an integer beyond 2^53 as a BigInt (every other number as JSON.parse reads it). */
export function parseExactJson(text: string): unknown {
  return parse(text, null, (n) => exactInteger(n) ?? Number(n));
}

/** A JSON number literal that names an integer a double cannot hold, as a BigInt; else null. */
function exactInteger(literal: string): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = m;
  const shift = Number(exponent) - fraction.length;
  let digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  if (shift < 0) {
    // A fraction part that is all zeros (`1000.0`, `12e-1` is not one): the digits cut off must be zeros.
    const cut = digits.slice(shift);
    if (!/^0*$/.test(cut)) return null;
    digits = digits.slice(0, shift) || '0';
  } else {
    if (digits.length + shift > MAX_EXACT_DIGITS) return null;
    digits += '0'.repeat(shift);
  }
  const value = BigInt(`${sign}${digits}`);
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER) ? value : null;
}

/** A value as JSON text, BigInts as their digits; a number JSON cannot write (a literal beyond a double) as itself. */
export function showJson(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return stringify(v) ?? 'undefined';
}
