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
import type { Handshake } from '../card/compare.ts';
import type { CardMemory } from '../card/memory.ts';
import { serverCardWarnings } from '../card/run.ts';
import { compareCatalog } from '../catalog/compare.ts';
import { credentialHeaders } from '../catalog/credential.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import { shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import { Revision, WarningKind, type PostureResult, type Verdict, type Warning } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { processCadence, type PostureCadence } from '../posture/cadence.ts';
import { postureWarnings, runPosture } from '../posture/run.ts';
import type { Attempt } from '../probe/attempt.ts';
import { listedBehindAuth } from './shrunk.ts';

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

/**
 * An answer nothing but `isError` checks that reads like a refused upstream credential (probe's
 * upstream-credential.ts): the run keeps its outcome, and the owner hears it before users do.
 */
export function upstreamCredentialWarning(target: Target, attempt: Attempt): Warning[] {
  if (!attempt.upstreamCredential || !target.tool) return [];
  return [
    {
      kind: WarningKind.upstreamCredential,
      detail: `tools/call: ${shownName(target.tool.name)} answered ${JSON.stringify(oneLine(attempt.upstreamCredential, 160))} as an ordinary result (not isError), and nothing else checks the answer: it reads like an expired or revoked upstream credential. Add tool.expectText or tool.expectJson (--expect-text, --expect-json) naming what a good answer holds, so a wrong answer fails the run`,
    },
  ];
}

/**
 * Catalog drift, the posture checks and the Server Card of a run that reached the server, after its
 * verdict's timing; posture and the card side by side.
 */
export async function driftAndPosture(
  target: Target,
  attempt: Attempt,
  ctx: RunContext,
  cadence: PostureCadence = processCadence,
  cards?: CardMemory,
): Promise<{ warnings: Warning[]; posture: PostureResult[] | null }> {
  const warnings: Warning[] = [];
  const behindAuth = listedBehindAuth(attempt);
  if (target.catalog && attempt.listed && !behindAuth) {
    warnings.push(
      ...compareCatalog(attempt.listed.tools, target.catalog, credentialHeaders(target), {
        canaryTool: target.tool?.name,
        flowTools: (target.flow ?? []).flatMap((s) => (s.kind === 'tools/call' ? [s.name] : [])),
      }),
    );
  }
  // Posture speaks the era's own requests: a 2025-06-18 session is the 2025 era.
  const era = attempt.revision === null ? null : attempt.revision === Revision.modern ? Revision.modern : Revision.legacy;
  const [posture, card] = await Promise.all([runPosture(target, era, ctx, cadence), cardWarnings(target, attempt, behindAuth, ctx, cards)]);
  warnings.push(...card, ...postureWarnings(posture));
  return { warnings, posture };
}

/** The Server Card, compared with this run's handshake: only when the handshake succeeded. */
function cardWarnings(target: Target, attempt: Attempt, behindAuth: boolean, ctx: RunContext, cards?: CardMemory): Promise<Warning[]> {
  if (!attempt.handshake) return Promise.resolve([]);
  const handshake: Handshake = {
    server: attempt.server,
    revision: attempt.revision,
    offered: attempt.handshake.offered,
    capabilities: attempt.handshake.capabilities,
    tools: attempt.listed && !behindAuth ? attempt.listed.tools.map((t) => t.name) : null,
  };
  return serverCardWarnings(target, handshake, ctx, cards);
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
