/**
 * W3C Trace Context ids for a run (https://www.w3.org/TR/trace-context/): one trace per run, so the
 * server's own traces of the requests a failed run made can be found from the page or the run record.
 */
import { randomBytes } from 'node:crypto';

/** A trace id: 16 random bytes as 32 lowercase hex; the spec forbids all zeros. */
export function newTraceId(): string {
  const id = randomBytes(16).toString('hex');
  return /^0+$/.test(id) ? newTraceId() : id;
}
