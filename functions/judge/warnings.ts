/**
 * What a run adds beyond up/down, once its verdict is known: catalog drift (compare the listed tools
 * with the target's recorded `catalog`) and the posture checks (when due). Warnings only: the
 * outcome, the failure class and the exit code stay the engine's.
 */
import { compareCatalog } from '../catalog/compare.ts';
import { credentialHeaders } from '../catalog/credential.ts';
import { Revision } from '../common/verdict.ts';
import type { Target } from '../config/target.ts';
import type { PostureCadence } from '../posture/cadence.ts';
import { postureWarnings, runPosture } from '../posture/run.ts';
import type { PostureResult, Verdict, Warning } from '../common/verdict.ts';
import type { Attempt } from '../probe/attempt.ts';
import type { FetchLike } from '../net/wire.ts';

export interface ExtrasContext {
  readonly fetch?: FetchLike | undefined;
  readonly middleware?: ((next: FetchLike) => FetchLike) | undefined;
  readonly budget: AbortSignal;
  readonly remainingMs: number;
  readonly postureCadence?: PostureCadence | undefined;
}

export async function runExtras(
  target: Target,
  attempt: Attempt,
  ctx: ExtrasContext,
): Promise<{ warnings: Warning[]; posture: PostureResult[] | null }> {
  const warnings: Warning[] = [];
  if (target.catalog && attempt.listed) {
    warnings.push(...compareCatalog(attempt.listed.tools, target.catalog, credentialHeaders(target), { canaryTool: target.tool?.name }));
  }
  // Posture speaks the era's own requests: a 2025-06-18 session is the 2025 era.
  const era = attempt.revision === null ? null : attempt.revision === Revision.modern ? Revision.modern : Revision.legacy;
  const posture = await runPosture(target, era, {
    fetch: ctx.fetch,
    middleware: ctx.middleware,
    budget: ctx.budget,
    remainingMs: ctx.remainingMs,
    cadence: ctx.postureCadence,
  });
  warnings.push(...postureWarnings(posture));
  return { warnings, posture };
}

/** The verdict with the extras added: warnings appended to whatever the engine already warned about. */
export function withExtras(v: Verdict, extras: { warnings: Warning[]; posture: PostureResult[] | null }): Verdict {
  return { ...v, warnings: [...v.warnings, ...extras.warnings], ...(extras.posture ? { posture: extras.posture } : {}) };
}
