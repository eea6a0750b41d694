/**
 * The evidence: the run records one target left in the probe regions' run log groups. The server-side
 * filter narrows the scan; every line is parsed and checked again here, so a loose filter (or a log
 * line in another shape) never puts another target's run into a brief.
 */
import { FilterLogEventsCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { parseRunRecord, runRecordFilter, type RunRecord } from '../../base/common/run-record.ts';
import { oneLine } from '../../base/common/redact.ts';
import { AwsErrorKind, awsFailure } from '../../base/common/aws-errors.ts';

/** Pages of FilterLogEvents read per region before giving up on older records. */
export const MAX_PAGES_PER_REGION = 20;
/** Records kept per region (the newest). */
export const MAX_RECORDS_PER_REGION = 50;

export interface RegionRecords {
  readonly region: string;
  /** Oldest first. */
  readonly records: readonly RunRecord[];
  /** Why this region's log could not be read, in one line (never fatal: the brief says so). */
  readonly error?: string;
}

export interface RecordQuery {
  readonly logGroupName: string;
  readonly target: string;
  readonly regions: readonly string[];
  /** Epoch ms, inclusive. */
  readonly startTime: number;
  readonly endTime: number;
}

// Parsing a run record and filtering for one are the run-record contract's (common/run-record.ts): history reads them too.
export { parseRunRecord, runRecordFilter };

export async function readRunRecords(logs: (region: string) => CloudWatchLogsClient, q: RecordQuery): Promise<RegionRecords[]> {
  return Promise.all(
    q.regions.map(async (region): Promise<RegionRecords> => {
      const records: RunRecord[] = [];
      try {
        let nextToken: string | undefined;
        for (let page = 0; page < MAX_PAGES_PER_REGION; page++) {
          const out = await logs(region).send(
            new FilterLogEventsCommand({
              logGroupName: q.logGroupName,
              filterPattern: runRecordFilter(q.target),
              startTime: q.startTime,
              endTime: q.endTime,
              nextToken,
            }),
          );
          for (const event of out.events ?? []) {
            const record = event.message ? parseRunRecord(event.message) : null;
            if (record && record.target === q.target && record.probeRegion === region) records.push(record);
          }
          nextToken = out.nextToken;
          if (!nextToken) break;
        }
      } catch (e) {
        const failure = awsFailure(e);
        const why =
          failure.kind === AwsErrorKind.notFound
            ? `log group ${q.logGroupName} does not exist in ${region} (is the probe stack deployed?)`
            : `${failure.name}: ${failure.message}`;
        return { region, records: newest(records), error: oneLine(why, 300) };
      }
      return { region, records: newest(records) };
    }),
  );
}

function newest(records: RunRecord[]): RunRecord[] {
  const byTime = [...records].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  // The same run can appear twice when pages overlap; keep one per start time.
  const seen = new Set<string>();
  const unique = byTime.filter((r) => (seen.has(r.startedAt) ? false : (seen.add(r.startedAt), true)));
  return unique.slice(-MAX_RECORDS_PER_REGION);
}
