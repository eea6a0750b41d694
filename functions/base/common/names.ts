/**
 * Tool names as details show them. A name is an identifier (the spec's SHOULD: ASCII letters, digits,
 * `_`, `-`, `.`), so any other character in one is shown as its code point, `get_r\u0430te`: a Cyrillic
 * `а`, a Greek `ο`, a fullwidth letter, a zero-width joiner or a combining mark would otherwise print
 * as the name on-call expects and hide why it did not match. Server words (messages, tool text) are not
 * names and keep their script.
 */
import { oneLine } from './redact.ts';

export function shownName(name: string, max = 80): string {
  let out = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    out += cp >= 0x20 && cp < 0x7f ? ch : cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  }
  return oneLine(out, max);
}

/** Whether a name holds a character `shownName` escapes. */
export function hasLookAlike(name: string): boolean {
  return /[^\x20-\x7e]/.test(name);
}
