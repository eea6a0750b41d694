/**
 * `mcp-canary report --config FILE [--days N] [--json] [--html FILE]`: a fleet's availability, incidents
 * and error budget over the last N days, read from CloudWatch in the fleet's home region with the caller's
 * AWS credentials (functions/io/history), rendered by functions/cli/report. stdout carries only the result.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { perRegion } from '../base/common/per-region.ts';
import { configError } from '../base/common/errors.ts';
import { loadFleet } from '../base/config/load/load.ts';
import { DEFAULT_FLEET_NAME, fleetNameOf } from '../base/config/schema/fleet-name.ts';
import { checkDays, readFleetHistory } from '../io/history/read.ts';
import { runLogGroupName } from '../io/history/run-log.ts';
import { MAX_DAYS, MIN_DAYS } from '../io/history/resolution.ts';
import { renderHtml } from './report/html.ts';
import { buildReport } from './report/report.ts';
import { renderText } from './report/text.ts';
import { printJson } from './print-json.ts';

export const DEFAULT_REPORT_DAYS = 30;

export const REPORT_HELP = `Usage: mcp-canary report --config FILE [--days N] [--json] [--html FILE] [--fleet NAME] [--target NAME] [--end ISO]

Availability, incidents, time to resolve, degraded time and error budget per target over the last N days,
measured by the rule that pages (quorum, N failed runs in a row), maintenance windows shown and left out.
Reads the fleet's Verdict metrics (GetMetricData), its page alarms (DescribeAlarms) and their history
(DescribeAlarmHistory, 30 days kept) in its home region, and each incident's failure class from the run log
(FilterLogEvents in the probe regions), with your AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID, …): needs
cloudwatch:GetMetricData, cloudwatch:DescribeAlarmHistory, cloudwatch:DescribeAlarms and logs:FilterLogEvents.
The fleet is the config's: its name (alarms <name>/<target>/…, log /mcp-canary/<name>/run), namespace,
homeRegion and probe regions; what it cannot find or read, it says.

  --config FILE   the fleet config (JSON or TS), as for cdk synth
  --days N        ${MIN_DAYS}–${MAX_DAYS} (default ${DEFAULT_REPORT_DAYS}); beyond 15 days one-minute data is gone and the
                  rule is applied to 5-minute (≤ 63 days) or hourly points, said in the output
  --json          the report as JSON (version 1) and nothing else on stdout
  --html FILE     also write one self-contained HTML page (inline CSS and SVG, no JavaScript)
  --fleet NAME    the fleet's name when the config has no \`name\` (your CDK app's McpCanaryFleet id); default: the
                  config's name, else ${DEFAULT_FLEET_NAME}
  --target NAME   only this target (repeatable)
  --end ISO       end the window here instead of now, e.g. 2026-12-01T00:00Z

Exit codes: 0 printed, 2 usage, config or AWS access error (the message names the fix).`;

export interface ReportIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly json?: (value: unknown) => void;
}

export interface ReportDeps {
  /** @default - the SDK's default client in the region (credentials and endpoint from the environment) */
  readonly cloudWatch?: (region: string) => CloudWatchClient;
  /** For incidents' failure classes, in the probe regions. @default - the SDK's default client per region */
  readonly logs?: (region: string) => CloudWatchLogsClient;
  readonly nowMs?: number;
}

export async function report(argv: readonly string[], io: ReportIo, deps: ReportDeps = {}): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        days: { type: 'string' },
        json: { type: 'boolean' },
        html: { type: 'string' },
        fleet: { type: 'string' },
        target: { type: 'string', multiple: true },
        end: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw configError(`report: ${(e as Error).message.split('\n')[0]}. See mcp-canary report --help`);
  }
  if (values.help) {
    io.stdout(`${REPORT_HELP}\n`);
    return 0;
  }
  if (typeof values.config !== 'string')
    throw configError('report needs --config FILE: the fleet config, e.g. --config mcp-canary.config.ts');
  const daysText = typeof values.days === 'string' ? values.days : String(DEFAULT_REPORT_DAYS);
  const days = /^\d+$/.test(daysText) ? Number(daysText) : Number.NaN;
  if (Number.isNaN(days))
    throw configError(`--days ${JSON.stringify(daysText)} is not a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}: e.g. --days 30`);
  checkDays(days);
  const endMs = typeof values.end === 'string' ? Date.parse(values.end) : undefined;
  if (endMs !== undefined && Number.isNaN(endMs))
    throw configError(`--end ${JSON.stringify(values.end)} is not an ISO 8601 time: e.g. --end 2026-12-01T00:00Z`);
  const fleet = await loadFleet(values.config);
  const client = (deps.cloudWatch ?? ((region) => new CloudWatchClient({ region })))(fleet.homeRegion);
  const made: CloudWatchLogsClient[] = [];
  const logs = deps.logs ?? perRegion((region) => (made.push(new CloudWatchLogsClient({ region })), made[made.length - 1]!));
  // The config's own name first: a --fleet that contradicts it is refused (exit 2), never silently preferred.
  const { name: fleetName, from } = fleetNameOf(
    fleet,
    typeof values.fleet === 'string' ? { name: values.fleet, by: '--fleet' } : undefined,
  );
  try {
    const history = await readFleetHistory(client, {
      fleet,
      fleetName,
      days,
      runLog: { logs, logGroupName: runLogGroupName(fleetName) },
      ...(deps.nowMs !== undefined ? { nowMs: deps.nowMs } : {}),
      ...(endMs !== undefined ? { endMs } : {}),
      ...(Array.isArray(values.target) ? { targets: values.target } : {}),
    });
    const result = buildReport(history, fleet, from === 'given' ? '--fleet' : from);
    if (typeof values.html === 'string') {
      await writeFile(values.html, renderHtml(result)).catch((e: Error) => {
        throw configError(
          `--html ${values.html}: cannot write it (${(e as NodeJS.ErrnoException).code ?? e.message}): give a path in a folder you can write`,
        );
      });
    }
    if (values.json) printJson(io, result);
    else io.stdout(renderText(result));
    // The text says its warnings; beside JSON, stderr does, so a person piping it still reads them.
    if (values.json) for (const w of result.warnings) io.stderr(`mcp-canary: warning: ${w}\n`);
    if (typeof values.html === 'string' && !values.json) io.stderr(`mcp-canary: wrote ${values.html}\n`);
    return 0;
  } finally {
    client.destroy();
    for (const c of made) c.destroy();
  }
}
