/**
 * Pure: does a tool's ordinary answer (HTTP 200, not `isError`) read like its upstream refused an expired
 * or revoked credential? Servers wrap an upstream API, and many hand the upstream's 401 back as the
 * tool's text ("401 Unauthorized", "invalid api key", "token expired", `{"error":{"code":401}}`), so an
 * answer nothing checks reads healthy. The verdict keeps its outcome (the answer may be data that quotes
 * such words); the run warns, naming the words it read. Judged only when nothing else checks the answer.
 *
 * Only short answers are read: an error message is short, and a long answer (a search result, a page)
 * that mentions a 401 in passing is data, not the tool failing.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { textOf } from './expect.ts';

/** The longest answer (text and structuredContent) read for an upstream's refusal. */
export const MAX_UPSTREAM_ANSWER_CHARS = 2_000;

/**
 * The wording of a refused credential across HTTP APIs and OAuth: the status with its reason, the
 * OAuth error codes (RFC 6749, 6750), and "key/token/credentials … expired/revoked/invalid" either way round.
 */
const CREDENTIAL = String.raw`(?:api[ _-]?key|access[ _-]?token|bearer[ _-]?token|refresh[ _-]?token|auth(?:entication|orization)?[ _-]?token|token|credentials?|secret|session)`;
const REFUSED = String.raw`(?:expired|revoked|invalid|invalidated|no longer valid|not valid|rejected|unrecognized|incorrect|missing)`;
const PATTERNS: readonly RegExp[] = [
  /\b401\b[\s:-]{0,3}(?:\(?\s*)unauthori[sz]ed\b/i,
  /\bunauthori[sz]ed\b[^\n]{0,20}\b401\b/i,
  /\b(?:http|status|status[ _-]?code|error[ _-]?code|code|response)\W{0,3}401\b/i,
  /\b(?:invalid_token|invalid_grant|invalid_client|unauthorized_client|token_expired|expired_token)\b/i,
  new RegExp(String.raw`\b${CREDENTIAL}\s+(?:has\s+|have\s+|is\s+|are\s+|was\s+|were\s+)?(?:been\s+)?${REFUSED}\b`, 'i'),
  new RegExp(String.raw`\b${REFUSED}\s+(?:or\s+\w+\s+)?${CREDENTIAL}\b`, 'i'),
  /\b(?:authentication|authorization)\s+(?:failed|required|error|denied)\b/i,
  /\b(?:not authenticated|unauthenticated|bad credentials|please (?:re-?)?authenticate|re-?authenticat(?:e|ion) required|sign in again|log in again)\b/i,
];

/** The keys under which an HTTP status is carried in a JSON error (`{"error":{"code":401}}`, `{"statusCode":401}`). */
const STATUS_KEYS = new Set([
  'code',
  'status',
  'statuscode',
  'status_code',
  'httpstatus',
  'http_status',
  'httpcode',
  'http_code',
  'error_code',
  'errorcode',
]);

/** The words of the answer that read like a refused credential (one line, as the server wrote them), or null. */
export function upstreamCredentialWords(result: CallToolResult): string | null {
  const text = textOf(result);
  const structured = result.structuredContent === undefined ? '' : safeJson(result.structuredContent);
  if (text.length + structured.length > MAX_UPSTREAM_ANSWER_CHARS) return null;
  for (const source of [text, structured]) {
    if (!source) continue;
    const found = matchWords(source);
    if (found) return found;
  }
  const status = [result.structuredContent, parsed(text)].some((v) => carries401(v, 0));
  return status ? 'a JSON error with status 401' : null;
}

/** The matched phrase with a little of what surrounds it, as the server wrote it. */
function matchWords(source: string): string | null {
  for (const p of PATTERNS) {
    const m = p.exec(source);
    if (!m) continue;
    const start = Math.max(0, m.index - 30);
    const end = Math.min(source.length, m.index + m[0].length + 30);
    return `${start > 0 ? '…' : ''}${source.slice(start, end).replace(/\s+/g, ' ').trim()}${end < source.length ? '…' : ''}`;
  }
  return null;
}

/** A 401 under a status key, at any depth (a bounded walk). */
function carries401(v: unknown, depth: number): boolean {
  if (depth > 6 || v === null || typeof v !== 'object') return false;
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) {
    if (STATUS_KEYS.has(k.toLowerCase()) && (value === 401 || value === '401')) return true;
    if (carries401(value, depth + 1)) return true;
  }
  return false;
}

function parsed(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}
