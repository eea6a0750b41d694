/**
 * A `tool_missing` attempt whose tools/list shrank to authentication tools (catalog/auth-shrink.ts) is
 * `auth`: the credentials expired and the server lists only the way back in. Decided here, where the
 * recorded catalog for the run's credential is known; the probe line of tools/list says the same.
 */
import { FailureClass, type ProbeResult } from '../../base/common/verdict.ts';
import type { Fault } from '../../base/common/step.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { shrunkDetail, shrunkToAuth } from '../catalog/auth-shrink.ts';
import { recordedFor } from '../catalog/compare.ts';
import { credentialHeaders } from '../catalog/credential.ts';
import type { Attempt } from '../probe/attempt.ts';

export function authShrunk(target: Target, attempt: Attempt): Attempt {
  if (attempt.failure !== FailureClass.toolMissing || !attempt.listed || !target.tool) return attempt;
  const recorded = target.catalog ? recordedFor(target.catalog, credentialHeaders(target)) : null;
  const found = shrunkToAuth(attempt.listed.tools, recorded && 'map' in recorded ? recorded.map : null, target.tool.name);
  if (!found) return attempt;
  const fault: Fault = { failure: FailureClass.auth, retryable: false, detail: shrunkDetail(target.tool.name, found) };
  const probes = attempt.probes.map((p): ProbeResult =>
    p.name === 'tools/list' && p.failure === FailureClass.toolMissing ? { ...p, failure: fault.failure, detail: fault.detail } : p,
  );
  return { ...attempt, failure: fault.failure, detail: fault.detail, fault, probes };
}

/** The run failed on a listing that shrank to authentication tools: that listing is not the catalog, so it is not compared for drift. */
export function listedBehindAuth(attempt: Attempt): boolean {
  return attempt.failure === FailureClass.auth && attempt.listed !== null;
}
