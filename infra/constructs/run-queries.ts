/**
 * Saved Logs Insights queries over a probe region's run log, run on demand from the console (Logs
 * Insights → Saved queries → mcp-canary/<fleet>/…). They used to be dashboard widgets, and a widget
 * reruns its query over the dashboard's whole range on every refresh ($0.005 per GB scanned): about
 * 143 MB a refresh at 100 targets × 3 regions, $30 a month for a wall screen on a 1-minute refresh.
 * A saved query costs nothing until someone runs it; the dashboard reads per-region latency and runs
 * from the fleet-level `RunDuration` metric instead.
 */
import { QueryDefinition, QueryString, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RUN_RECORD_MESSAGE, RUN_SKIPPED_MESSAGE } from '../../functions/base/common/run-record.ts';
import { Outcome } from '../../functions/base/common/verdict.ts';
import type { FleetNames } from '../plan/names.ts';

export interface RunQuery {
  /** The saved query's name, a folder per fleet: `mcp-canary/<fleet>/<what>`. */
  readonly name: string;
  readonly title: string;
  readonly lines: readonly string[];
}

/** The queries every probe region saves, in the order the dashboard lists them. */
export function runQueries(names: FleetNames): RunQuery[] {
  const q = (what: string, title: string, lines: string[]): RunQuery => ({ name: `mcp-canary/${names.fleet}/${what}`, title, lines });
  return [
    q('failures-by-class', 'failures by class and target, with the last detail', [
      `filter message = "${RUN_RECORD_MESSAGE}" and verdict.outcome = "${Outcome.failed}"`,
      'stats count(*) as runs, latest(verdict.detail) as last_detail by verdict.failure, target',
      'sort runs desc',
      'limit 25',
    ]),
    q('runs-by-outcome', 'runs by outcome', [
      `filter message = "${RUN_RECORD_MESSAGE}"`,
      'stats count(*) as runs by verdict.outcome, bin(5m)',
    ]),
    q('latency-by-target', 'latency by target (ms)', [
      `filter message = "${RUN_RECORD_MESSAGE}"`,
      'stats avg(verdict.durationMs) as avg_ms, max(verdict.durationMs) as max_ms, count(*) as runs by target',
      'sort max_ms desc',
    ]),
    q('inconclusive-runs', 'runs the canary could not judge (inconclusive), by target, with the last detail', [
      `filter message = "${RUN_RECORD_MESSAGE}" and verdict.outcome = "${Outcome.inconclusive}"`,
      'stats count(*) as runs, latest(verdict.detail) as last_detail, latest(scheduledFor) as last_period by target',
      'sort runs desc',
      'limit 25',
    ]),
    q('skipped-runs', 'deliveries not counted (duplicates, or no ledger claim)', [
      `filter message = "${RUN_SKIPPED_MESSAGE}"`,
      'stats count(*) as deliveries by reason, bin(1h)',
    ]),
  ];
}

export interface RunQueriesProps {
  readonly names: FleetNames;
  readonly logGroup: ILogGroup;
}

export class RunQueries extends Construct {
  constructor(scope: Construct, id: string, props: RunQueriesProps) {
    super(scope, id);
    runQueries(props.names).forEach((query, i) => {
      new QueryDefinition(this, `Query${i}`, {
        queryDefinitionName: query.name,
        queryString: queryString(query.lines),
        logGroups: [props.logGroup],
      });
    });
  }
}

/** QueryString takes its commands by keyword; each of our lines is one command. */
function queryString(lines: readonly string[]): QueryString {
  const arg = (command: string) => lines.find((l) => l.startsWith(`${command} `))?.slice(command.length + 1);
  const limit = arg('limit');
  return new QueryString({
    filterStatements: lines.filter((l) => l.startsWith('filter ')).map((l) => l.slice('filter '.length)),
    statsStatements: lines.filter((l) => l.startsWith('stats ')).map((l) => l.slice('stats '.length)),
    sort: arg('sort'),
    limit: limit === undefined ? undefined : Number(limit),
  });
}
