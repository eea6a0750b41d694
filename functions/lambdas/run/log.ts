/**
 * The run's log lines: one JSON object per line on stdout, so CloudWatch Logs Insights and the brief
 * read fields, not text. Written with `process.stdout.write`, not `console.log`, so the Lambda runtime
 * adds no prefix and the line is exactly the JSON. Everything passes a Redactor first.
 */
import { RUN_RECORD_MESSAGE, type RunRecord } from '../../base/common/run-record.ts';
import type { Redactor } from '../../base/common/redact.ts';
import type { Verdict } from '../../base/common/verdict.ts';

export type LogLine = (line: string) => void;

export const stdoutLine: LogLine = (line) => {
  process.stdout.write(`${line}\n`);
};

export function runRecord(verdict: Verdict, probeRegion: string, startedAt: Date, scheduledFor: Date): RunRecord {
  return {
    message: RUN_RECORD_MESSAGE,
    target: verdict.target,
    probeRegion,
    startedAt: startedAt.toISOString(),
    scheduledFor: scheduledFor.toISOString(),
    verdict,
  };
}

export function logRecord<T>(log: LogLine, record: T, redactor: Redactor): T {
  const safe = redactor.value(record);
  log(JSON.stringify(safe));
  return safe;
}
