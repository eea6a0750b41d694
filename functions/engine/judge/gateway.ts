/**
 * A gateway's backends as verdicts of their own, `<gateway>/<backend>`, from the gateway's run: each
 * backend judged on the gateway's session (probe/backends.ts) is `healthy`, `degraded` (its own steps
 * slower than `degradedMs`) or failed by its own step, with catalog drift against its own recorded
 * tools. When the gateway's run ended before the backends were reached, each is `inconclusive`
 * (`gateway_down`) naming the gateway's failure: the gateway's own verdict pages once, the backends never.
 */
import { shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import { canaryVerdict, FailureClass, Outcome, WarningKind, type Verdict, type Warning } from '../../base/common/verdict.ts';
import { backendTargetName, type Backend } from '../../base/config/schema/backends.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { compareCatalog } from '../catalog/compare.ts';
import { credentialHeaders } from '../catalog/credential.ts';
import type { Attempt } from '../probe/attempt.ts';
import type { BackendAttempt } from '../probe/backends.ts';

/** Each backend's verdict; none for a target without backends. */
export function backendVerdicts(target: Target, gateway: Verdict, last: Attempt | null): Verdict[] {
  if (!target.backends) return [];
  const judged = new Map((last?.backends ?? []).map((b) => [b.name, b]));
  return target.backends.map((b) => {
    const a = judged.get(b.name);
    return a ? judgedVerdict(target, b, a, gateway) : notJudged(target, b.name, gateway);
  });
}

/** Every backend `inconclusive`, naming the gateway's failure (a config problem, a refused token, the gateway down). */
export function notJudged(target: Pick<Target, 'name'>, backend: string, gateway: Verdict): Verdict {
  const why =
    gateway.outcome === Outcome.failed
      ? `the gateway "${target.name}" is down (${gateway.failure}: ${oneLine(gateway.detail, 160)})`
      : `the gateway "${target.name}" was not judged (${gateway.outcome}${gateway.failure ? `, ${gateway.failure}` : ''})`;
  return {
    ...canaryVerdict(
      backendTargetName(target.name, backend),
      Outcome.inconclusive,
      FailureClass.gatewayDown,
      `not judged: ${why}; the gateway's own verdict pages, not this backend's`,
      gateway.durationMs,
      gateway.traceId,
    ),
    gateway: target.name,
  };
}

function judgedVerdict(target: Target, b: Backend, a: BackendAttempt, gateway: Verdict): Verdict {
  const ms = Math.round(a.durationMs);
  const slow = a.outcome === Outcome.healthy && ms > target.degradedMs;
  return {
    target: backendTargetName(target.name, b.name),
    gateway: target.name,
    outcome: slow ? Outcome.degraded : a.outcome,
    failure: a.failure,
    detail: slow ? `slow: its steps took ${ms} ms through the gateway (degraded above ${target.degradedMs} ms)` : a.detail,
    revision: gateway.revision,
    server: gateway.server,
    durationMs: ms,
    retries: 0,
    probes: a.probes.map((p) => ({ ...p, durationMs: Math.round(p.durationMs) })),
    warnings: [...drift(target, b, a), ...upstreamCredential(b, a)],
    traceId: gateway.traceId,
    ...(a.checked ? { checked: a.checked } : {}),
  };
}

/** The gateway's tools with this backend's prefix (taken off) against the backend's recorded catalog. */
function drift(target: Target, b: Backend, a: BackendAttempt): Warning[] {
  if (!b.catalog) return [];
  return compareCatalog(a.tools, b.catalog, credentialHeaders(target), {
    canaryTool: b.tool?.name,
    flowTools: (b.flow ?? []).flatMap((s) => (s.kind === 'tools/call' ? [s.name] : [])),
  });
}

function upstreamCredential(b: Backend, a: BackendAttempt): Warning[] {
  if (!a.upstreamCredential || !b.tool) return [];
  return [
    {
      kind: WarningKind.upstreamCredential,
      detail: `tools/call: ${shownName(b.tool.name)} answered ${JSON.stringify(oneLine(a.upstreamCredential, 160))} as an ordinary result (not isError), and nothing else checks the answer: it reads like an expired or revoked upstream credential. Add expectText or expectJson to backend "${b.name}"'s tool`,
    },
  ];
}
