/**
 * What a run warns about while the endpoint still works: credentials and the certificate about to
 * expire (started beside the run, never waited for past its budget), catalog drift (the listed tools
 * against the target's recorded `catalog`) and the posture checks (when due). Warnings only: the
 * outcome, the failure class and the exit code stay the attempts'.
 */
import {
  bearerWarnings,
  clientCertificateWarnings,
  processCertificateWatch,
  secretRefWarnings,
  type CertificateWatch,
} from '../auth/expiry.ts';
import { compareCatalog } from '../catalog/compare.ts';
import { credentialHeaders } from '../catalog/credential.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { Revision, type PostureResult, type Verdict, type Warning } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { processCadence, type PostureCadence } from '../posture/cadence.ts';
import { postureWarnings, runPosture } from '../posture/run.ts';
import type { Attempt } from '../probe/attempt.ts';

/**
 * The expiry warnings, started before the first request. Only the headers the user gave are read: a
 * token the canary obtains and refreshes itself never warns. The certificate look is once an hour per
 * origin, beside the run: a slow handshake drops the warning, never the verdict.
 */
export function expiryWarnings(target: Target, ctx: RunContext, watch: CertificateWatch = processCertificateWatch): Promise<Warning[]> {
  const certificate = untilAborted(
    watch.warning(target.url, target.certWarningDays).catch(() => null),
    ctx.signal,
  );
  const now = ctx.wallNow();
  const fixed = [
    ...bearerWarnings(target.headers, target.credentialWarningDays, now),
    ...secretRefWarnings(target.auth?.oauth, target.credentialWarningDays, now),
    ...clientCertificateWarnings(ctx.reach?.tls, target.credentialWarningDays, now),
  ];
  return certificate.then((c) => (c ? [...fixed, c] : fixed));
}

/** Catalog drift and the posture checks of a run that reached the server, after its verdict's timing. */
export async function driftAndPosture(
  target: Target,
  attempt: Attempt,
  ctx: RunContext,
  cadence: PostureCadence = processCadence,
): Promise<{ warnings: Warning[]; posture: PostureResult[] | null }> {
  const warnings: Warning[] = [];
  if (target.catalog && attempt.listed) {
    warnings.push(
      ...compareCatalog(attempt.listed.tools, target.catalog, credentialHeaders(target), {
        canaryTool: target.tool?.name,
        flowTools: (target.flow ?? []).flatMap((s) => (s.kind === 'tools/call' ? [s.name] : [])),
      }),
    );
  }
  // Posture speaks the era's own requests: a 2025-06-18 session is the 2025 era.
  const era = attempt.revision === null ? null : attempt.revision === Revision.modern ? Revision.modern : Revision.legacy;
  const posture = await runPosture(target, era, ctx, cadence);
  warnings.push(...postureWarnings(posture));
  return { warnings, posture };
}

/** The verdict with warnings appended to whatever it already warned about, and the posture results. */
export function withWarnings(v: Verdict, extra: { warnings: readonly Warning[]; posture?: PostureResult[] | null }): Verdict {
  return { ...v, warnings: [...v.warnings, ...extra.warnings], ...(extra.posture ? { posture: extra.posture } : {}) };
}

/** `work`, or null once `signal` aborts (the run's budget is spent), whichever comes first. */
function untilAborted<T>(work: Promise<T | null>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const stop = () => resolve(null);
    signal.addEventListener('abort', stop, { once: true });
    void work.then((v) => {
      signal.removeEventListener('abort', stop);
      resolve(v);
    });
  });
}
