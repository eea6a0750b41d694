/**
 * W3C Trace Context ids (https://www.w3.org/TR/trace-context/): one trace per run, a span per request,
 * so the server's own traces of the requests a failed run made can be found from the page or the run
 * record. The headers and `_meta` that carry them are net/trace-context.ts.
 */
import { randomBytes } from 'node:crypto';

/** A trace id: 16 random bytes as 32 lowercase hex. */
export function newTraceId(): string {
  return randomHex(16);
}

/** A span id: 8 random bytes as 16 lowercase hex. */
export function newSpanId(): string {
  return randomHex(8);
}

/** `bytes` random bytes as lowercase hex, never all zeros (the spec forbids all-zero ids). */
function randomHex(bytes: number): string {
  const id = randomBytes(bytes).toString('hex');
  return /^0+$/.test(id) ? randomHex(bytes) : id;
}
