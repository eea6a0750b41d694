/**
 * An incident's failure class, which the `Verdict` metric does not carry: read from the run records the
 * probe regions' run functions logged while it paged (the same lines the brief quotes), with
 * FilterLogEvents over the incident's first periods only, so a report costs one call per incident and
 * region. The server-side filter narrows; every line is parsed and checked again here.
 */
import { FilterLogEventsCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';
import { parseRunRecord, runRecordFilter } from '../../base/common/run-record.ts';
import { failureClasses, type FailureClass } from '../../base/common/verdict.ts';

/**
 * Only a class of the taxonomy counts: a line in the log group is not checked field by field when parsed,
 * and whatever it says travels into the report's JSON and HTML and onto the status page.
 */
function isFailureClass(v: unknown): v is FailureClass {
  return typeof v === 'string' && (failureClasses as readonly string[]).includes(v);
}

export interface RunLogSource {
  readonly logs: (region: string) => CloudWatchLogsClient;
  /** The run functions' log group, the same name in every probe region (`/mcp-canary/<fleet>/run`). */
  readonly logGroupName: string;
}

/** The fleet's run log group name, as infra/plan/names.ts gives it (test/unit/io/history/run-log.test.ts holds them equal). */
export function runLogGroupName(fleetName: string): string {
  return `/mcp-canary/${fleetName}/run`;
}

/** Records read per incident and region: the first periods of an outage are enough to name it. */
const LIMIT = 100;

/** A region whose run log could not be read: the group is not there (another fleet's name?), or the read failed. */
export interface UnreadLog {
  readonly region: string;
  readonly problem: 'not-found' | 'unreadable';
  /** The AWS error's name, e.g. ResourceNotFoundException, AccessDeniedException. */
  readonly error: string;
}

export interface FailureClassLookup {
  /** The most frequent class of the taxonomy among the failed runs found; null when none was found. */
  readonly failureClass: string | null;
  /**
   * The regions whose log was not read. With none, a null class is known (the log holds no failed run of
   * those periods); with some, it is only not found, and the caller says which log it could not read.
   */
  readonly unread: readonly UnreadLog[];
}

/**
 * The most frequent failure class among the failed runs of `target` between fromMs and toMs in these
 * regions (ties: the first seen), and which regions' logs could not be read.
 */
export async function findFailureClass(
  source: RunLogSource,
  q: { readonly target: string; readonly regions: readonly string[]; readonly fromMs: number; readonly toMs: number },
  cost: { logCalls: number },
): Promise<FailureClassLookup> {
  const counts = new Map<string, number>();
  const unread: UnreadLog[] = [];
  await Promise.all(
    q.regions.map(async (region) => {
      try {
        cost.logCalls++;
        const out = await source.logs(region).send(
          new FilterLogEventsCommand({
            logGroupName: source.logGroupName,
            filterPattern: runRecordFilter(q.target),
            startTime: q.fromMs,
            endTime: q.toMs,
            limit: LIMIT,
          }),
        );
        for (const e of out.events ?? []) {
          const r = e.message ? parseRunRecord(e.message) : null;
          const scheduled = r ? Date.parse(r.scheduledFor) : Number.NaN;
          if (!r || r.target !== q.target || r.verdict.outcome !== 'failed' || !isFailureClass(r.verdict.failure)) continue;
          if (!(scheduled >= q.fromMs && scheduled < q.toMs)) continue;
          counts.set(r.verdict.failure, (counts.get(r.verdict.failure) ?? 0) + 1);
        }
      } catch (e) {
        // A region whose log cannot be read names no class, and is said as unread: never as "no class".
        const failure = awsFailure(e);
        unread.push({ region, problem: failure.kind === AwsErrorKind.notFound ? 'not-found' : 'unreadable', error: failure.name });
      }
    }),
  );
  let best: string | null = null;
  for (const [failure, n] of counts) if (best === null || n > counts.get(best)!) best = failure;
  // In the regions' order, whatever order the calls answered in.
  unread.sort((a, b) => q.regions.indexOf(a.region) - q.regions.indexOf(b.region));
  return { failureClass: best, unread };
}

/** `findFailureClass`'s class alone (the status page, which shows a cause only when it has one). */
export async function failureClassOf(
  source: RunLogSource,
  q: { readonly target: string; readonly regions: readonly string[]; readonly fromMs: number; readonly toMs: number },
  cost: { logCalls: number },
): Promise<string | null> {
  return (await findFailureClass(source, q, cost)).failureClass;
}
