/**
 * `npm run cost`: what the canary costs a month, all in, per target·region and for the whole fleet, from
 * the synthesized templates of a fleet config (synthesized here, in-process, bundling skipped) and the
 * run the bench measured (.bench/bench.json), beside CloudWatch Synthetics at the same schedule: with
 * credentials stored as docs/deploy.md recommends, the run ledger, and the dashboard left open on a
 * wall screen. Every price is in prices.ts, with its date.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { loadFleet } from '../../functions/base/config/load/load.ts';
import { CREDENTIAL_REFUSED_METRIC, REFRESH_FAILED_METRIC } from '../../functions/base/config/schema/oauth-delegated.ts';
import {
  billedShares,
  costPerTargetRegion,
  fleetCost,
  runsPerMonth,
  WALL_SCREEN,
  type Inventory,
  type RunUsage,
  type TargetRegionCost,
} from './cost-model.ts';
import { featureSection } from './cost-features-report.ts';
import { asUsersPay, generatedCost, withCredential } from './cost-fleets.ts';
import { generatedFleet, synthesize } from './fleet-scale.ts';
import { CREDENTIAL_READS, SECRET_CACHE_SECONDS, SECRETS_PER_CALL, SSM_NAMES_PER_CALL } from '../../infra/quotas/credential-rate.ts';
import { REMOTE_VERDICT_SPREAD_SECONDS } from '../../infra/quotas/runtime-load.ts';
import { BENCH_DIR, VARIANTS } from './footprint.ts';
import { readInventory, type ReadInventory } from './inventory.ts';
import { PRICES, PRICES_AS_OF, PRICES_REGION } from './prices.ts';
import { fmt, table } from './table.ts';

const HELP = `Usage: npm run cost -- [options]

Options:
  --config FILE      the fleet config to price (default: mcp-canary.config.ts)
  --billed-ms N      billed duration of one invocation (default: the warm run in .bench/bench.json)
  --remote-ms N      the same for a remote endpoint, shown beside it (default: 1000)
  --no-scale         skip the generated fleets of 1 to 1,000 targets
  -h, --help         this text`;

/** docs/cost.md assumes about 1 s billed per run against a remote endpoint (TLS and the round trips). */
const DEFAULT_REMOTE_MS = 1000;
/** When the bench has not run yet: roughly what it measures on the project's machines. */
const FALLBACK_USAGE: RunUsage = { billedMs: 150, recordBytesPerTarget: 700 };

const out = (s = '') => process.stdout.write(`${s}\n`);

interface Measured {
  readonly usage: RunUsage;
  readonly source: string;
}

async function measuredUsage(billedOverride: number | undefined): Promise<Measured> {
  try {
    const bench = JSON.parse(await readFile(join(BENCH_DIR, 'bench.json'), 'utf8')) as {
      date?: string;
      footprint?: {
        runs?: Array<{ variant?: string; targets: number; nodeFlags: string[]; warmHandlerMs: number; logBytesPerTarget: number }>;
      };
    };
    // The shipped bundle, one target, under the Lambda's heap limits.
    const shipped = (bench.footprint?.runs ?? []).filter((r) => r.targets === 1 && (r.variant ?? VARIANTS[0]!.name) === VARIANTS[0]!.name);
    const run = shipped.find((r) => r.nodeFlags.length > 0) ?? shipped[0];
    if (run) {
      return {
        usage: { billedMs: billedOverride ?? run.warmHandlerMs, recordBytesPerTarget: run.logBytesPerTarget },
        source: `${billedOverride === undefined ? 'a warm invocation of the built handler, 1 target, loopback server' : '--billed-ms'}; run record bytes measured (.bench/bench.json, ${bench.date?.slice(0, 10) ?? 'undated'})`,
      };
    }
  } catch {
    // no bench results yet
  }
  return {
    usage: { ...FALLBACK_USAGE, billedMs: billedOverride ?? FALLBACK_USAGE.billedMs },
    source: 'no .bench/bench.json (run npm run bench first): fallback figures',
  };
}

function priceRows(): string[][] {
  const p = PRICES;
  return [
    ['Lambda duration (arm64 / x86_64)', `$${p.lambdaGbSecond.arm64} / $${p.lambdaGbSecond.x86_64} per GB-s`],
    ['Lambda requests', `$${(p.lambdaRequest * 1e6).toFixed(2)} per million`],
    [
      'EventBridge Scheduler',
      `$${(p.schedulerInvocation * 1e6).toFixed(2)} per million invocations, first ${fmt.int(p.schedulerFreeInvocationsPerMonth)} a month free`,
    ],
    [
      'CloudWatch custom metrics',
      p.customMetricTiers.map((t) => `$${t.usd.toFixed(2)}${Number.isFinite(t.upTo) ? ` to ${fmt.int(t.upTo)}` : ' beyond'}`).join(', ') +
        ' per metric-month',
    ],
    ['CloudWatch PutMetricData', `$${(p.putMetricDataRequest * 1000).toFixed(2)} per 1,000 requests`],
    [
      'CloudWatch alarms (standard resolution)',
      `$${p.alarmMetric.toFixed(2)} per alarm metric-month (a metric-math alarm: per metric it reads)`,
    ],
    ['CloudWatch Logs', `$${p.logsIngestionGb.toFixed(2)} per GB ingested, $${p.logsStorageGbMonth} per GB-month stored`],
    ['CloudWatch dashboards', `$${p.dashboard.toFixed(2)} per dashboard-month`],
    ['CloudWatch Logs Insights', `$${p.logsInsightsGbScanned} per GB scanned (a dashboard widget scans on every refresh)`],
    [
      'Secrets Manager',
      `$${p.secretsManagerSecret.toFixed(2)} per secret-month (per region stored), $${(p.secretsManagerCall * 10_000).toFixed(2)} per 10,000 calls`,
    ],
    [
      'SSM Parameter Store (standard) + KMS',
      `$0 per parameter, standard GetParameter free; $${(p.kmsRequest * 10_000).toFixed(2)} per 10,000 KMS requests`,
    ],
    [
      'SSM Parameter Store higher throughput',
      `$${(p.ssmHigherThroughputCall * 10_000).toFixed(2)} per 10,000 calls, in a Region where synth warns the steady reads pass 40 calls a second`,
    ],
    [
      'DynamoDB on demand (the run ledger)',
      `$${(p.dynamoWriteRequestUnit * 1e6).toFixed(3)} per million write units, $${p.dynamoStorageGbMonth} per GB-month`,
    ],
    ['CloudWatch Synthetics', `$${p.syntheticsCanaryRun} per canary run`],
  ];
}

function inventoryLine(inv: ReadInventory, stacks: number): string {
  const math = inv.alarms.filter((a) => a.math);
  const std = inv.alarms.filter((a) => !a.math);
  const targetRegions = inv.schedules.reduce((n, s) => n + s.targets.length, 0);
  const memory = [...new Set(inv.schedules.map((s) => `${s.memoryMb} MB ${s.architecture}`))].join(', ');
  return [
    `${stacks} stacks; ${inv.schedules.length} schedule(s) carrying ${targetRegions} target·region(s) (${memory});`,
    `${inv.publishedMetrics} custom metrics published (${inv.metricsPerTarget} per target, shared by its regions, counted from the dimension sets the payloads imply);`,
    `${std.length} standard alarm(s) (${std.reduce((n, a) => n + a.alarmMetrics, 0)} alarm metrics) and ${math.length} metric-math alarm(s) (${math.reduce((n, a) => n + a.alarmMetrics, 0)} alarm metrics), ${inv.alarms.filter((a) => a.target !== null).length} of them per target;`,
    `${inv.dashboards} dashboard(s) (${inv.dashboardLogWidgets?.length ?? 0} Logs Insights widget(s), ${inv.dashboardRangeHours ?? 3} h range); ${inv.fleetMetrics ?? 0} fleet-level metric(s); a run ledger in ${inv.ledgerRegions?.length ?? 0} region(s); logs kept ${inv.logRetentionDays} days.`,
  ].join('\n');
}

function perTargetTable(costs: readonly TargetRegionCost[]): string {
  return table(
    [
      'target',
      'region',
      'runs/month',
      'payload',
      'metrics',
      'PutMetricData',
      'Lambda',
      'Scheduler',
      'logs',
      'alarms',
      'credential',
      'secret reads',
      'ledger',
      'total',
      'Synthetics',
    ],
    costs.map((c) => [
      c.target,
      c.region,
      fmt.int(runsPerMonth(c.periodSeconds)),
      String(c.payloadTargets),
      fmt.usd(c.customMetrics),
      fmt.usd(c.putMetricData),
      fmt.usd(c.lambda),
      fmt.usd(c.scheduler),
      fmt.usd(c.logs),
      fmt.usd(c.alarms),
      fmt.usd(c.credentialStorage),
      fmt.usd(c.secretReads),
      fmt.usd(c.ledger),
      fmt.usd(c.total),
      fmt.usd(c.synthetics),
    ]),
  );
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        config: { type: 'string', default: 'mcp-canary.config.ts' },
        'billed-ms': { type: 'string' },
        'remote-ms': { type: 'string', default: String(DEFAULT_REMOTE_MS) },
        'no-scale': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (e) {
    console.error(`cost: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    out(HELP);
    return 0;
  }
  const billed = args['billed-ms'] === undefined ? undefined : Number(args['billed-ms']);
  const remoteMs = Number(args['remote-ms']);
  if ((billed !== undefined && !(billed > 0)) || !(remoteMs > 0)) {
    console.error(`cost: --billed-ms and --remote-ms take a positive number of milliseconds.\n\n${HELP}`);
    return 2;
  }

  const fleet = await loadFleet(args.config);
  const bench = await measuredUsage(billed);
  const synth = synthesize(fleet);
  const measured: Measured = { ...bench, usage: asUsersPay(synth, bench.usage) };
  const remote: RunUsage = asUsersPay(synth, { ...bench.usage, billedMs: remoteMs });
  const inv = readInventory(synth.stacks, fleet.namespace);

  out(
    `mcp-canary cost — ${relative(process.cwd(), args.config) || args.config}, list prices ${PRICES_REGION} as of ${PRICES_AS_OF} (test/bench/prices.ts), 30-day month`,
  );
  out('');
  out(table(['price', 'as used'], priceRows()));
  out('');
  out(`Deployed (synthesized templates): ${inventoryLine(inv, synth.stacks.length)}`);
  // The refresher publishes its own metrics (not a run's): their alarms do see data.
  const unpublished = inv.unpublishedAlarmMetrics.filter(
    (m) => ![CREDENTIAL_REFUSED_METRIC, REFRESH_FAILED_METRIC].includes(m.split(' ')[0]!),
  );
  if (unpublished.length > 0) out(`WARNING: alarms read metrics no run publishes: ${unpublished.slice(0, 5).join(', ')}`);
  if (inv.guessedMemory > 0)
    out(
      `Note: ${inv.guessedMemory} schedule(s) invoke a function of another stack; its region's largest run function's memory is assumed.`,
    );
  out(
    `Measured: ${fmt.ms(measured.usage.billedMs)} billed per invocation (${measured.source}), ${fmt.int(measured.usage.recordBytesPerTarget)} B of run record per target per run.`,
  );
  out(readsAndWavesLine());

  const costs = costPerTargetRegion(inv, measured.usage, PRICES);
  const remoteCosts = costPerTargetRegion(inv, remote, PRICES);
  out(`\n## Per target·region·month (billed ${fmt.ms(measured.usage.billedMs)} per invocation, as measured)\n`);
  out(perTargetTable(costs));

  const total = fleetCost(inv, costs, PRICES, measured.usage, WALL_SCREEN);
  const totalRemote = fleetCost(inv, remoteCosts, PRICES, remote, WALL_SCREEN);
  out(`\n## Whole fleet per month\n`);
  out(
    table(
      ['item', `billed ${fmt.ms(measured.usage.billedMs)} (measured)`, `billed ${fmt.ms(remoteMs)} (remote endpoint)`],
      [
        [`target·regions (${total.targetRegions}): sum of the table above`, fmt.usd(total.direct), fmt.usd(totalRemote.direct)],
        ["the canary's own alarms (run errors, dead-letter queues, brief)", fmt.usd(total.canaryAlarms), fmt.usd(totalRemote.canaryAlarms)],
        ['dashboards', fmt.usd(total.dashboards), fmt.usd(totalRemote.dashboards)],
        [
          'the dashboard left open, 1-minute refresh: Logs Insights scans',
          fmt.usd(total.dashboardScans),
          fmt.usd(totalRemote.dashboardScans),
        ],
        ['fleet-level metrics (RunDuration per probe region)', fmt.usd(total.fleetMetrics), fmt.usd(totalRemote.fleetMetrics)],
        ['run ledger storage', fmt.usd(total.ledgerStorage), fmt.usd(totalRemote.ledgerStorage)],
        ['custom metric tiers past 10,000', fmt.usd(total.metricTierAdjustment), fmt.usd(totalRemote.metricTierAdjustment)],
        [
          `Scheduler allowance (${fmt.int(total.schedulerInvocations)} invocations)`,
          fmt.usd(total.schedulerAllowance),
          fmt.usd(totalRemote.schedulerAllowance),
        ],
        ['total', fmt.usd(total.total), fmt.usd(totalRemote.total)],
        ['per target·region, all in', fmt.usd(total.perTargetRegion), fmt.usd(totalRemote.perTargetRegion)],
        ['CloudWatch Synthetics, one canary per target·region, same schedule', fmt.usd(total.synthetics), fmt.usd(totalRemote.synthetics)],
      ],
    ),
  );
  out(
    `\nThe dashboard's metric widgets request ${fmt.int(inv.dashboardMetricsPerRefresh ?? 0)} metric(s) a refresh; the console's own reads are not listed as`,
  );
  out(
    `billed, and are not in the total. Were they billed as GetMetricData, the wall screen would add ${fmt.usd(total.dashboardMetricReadsIfBilled)} a month.`,
  );
  out('Not counted: the brief function (runs on alarm changes only), SNS deliveries, data transfer, and free tiers other');
  out('than the Scheduler allowance.');

  if (!args['no-scale']) {
    out(`\n## Generated fleets, every target probed from 3 regions at rate(1 minute), all in\n`);
    out('Each target has a credential, stored as docs/deploy.md recommends (one SSM SecureString parameter in the home region,');
    out('read by ARN), and the dashboard is left open on a 1-minute refresh.\n');
    const rows: string[][] = [];
    const scale = new Map<number, Inventory>();
    for (const n of [1, 10, 100, 1000]) {
      const g = withCredential(generatedFleet(n), 'ssm-home');
      const gsynth = synthesize(g);
      const ginv = readInventory(gsynth.stacks, 'McpCanary');
      scale.set(n, ginv);
      const gMeasured = asUsersPay(gsynth, measured.usage);
      const gRemote = asUsersPay(gsynth, remote);
      const measuredTotal = fleetCost(ginv, costPerTargetRegion(ginv, gMeasured, PRICES), PRICES, gMeasured);
      const remoteTotal = fleetCost(ginv, costPerTargetRegion(ginv, gRemote, PRICES), PRICES, gRemote);
      const payload = Math.max(...ginv.schedules.map((s) => s.targets.length));
      rows.push([
        `${fmt.int(n)} × 3`,
        String(payload),
        fmt.usd(measuredTotal.direct / measuredTotal.targetRegions),
        fmt.usd(measuredTotal.perTargetRegion),
        fmt.usd(remoteTotal.direct / remoteTotal.targetRegions),
        fmt.usd(remoteTotal.perTargetRegion),
        fmt.usd(remoteTotal.total),
        fmt.usd(remoteTotal.synthetics),
        fmt.ratio(remoteTotal.synthetics / remoteTotal.total),
      ]);
    }
    out(
      table(
        [
          'targets × regions',
          'largest payload',
          `own, ${fmt.ms(measured.usage.billedMs)}`,
          `all in, ${fmt.ms(measured.usage.billedMs)}`,
          `own, ${fmt.ms(remoteMs)}`,
          `all in, ${fmt.ms(remoteMs)}`,
          `fleet, ${fmt.ms(remoteMs)}`,
          'Synthetics',
          'Synthetics ÷ canary',
        ],
        rows,
      ),
    );
    out('\nPer target·region·month. "own": its metrics, alarms, credential, secret reads, ledger writes and share of the');
    out('invocations it rides in; "all in": plus its share of the canary\'s own alarms, the fleet metrics and the dashboard.');

    out(`\n## The same fleets, other ways to store the credential (all in, billed ${fmt.ms(remoteMs)})\n`);
    const credentialRows: string[][] = [];
    for (const [kind, label] of [
      ['ssm-home', 'SSM SecureString (standard) in the home region, by ARN: recommended'],
      ['secret-home', 'one Secrets Manager secret in the home region, by ARN'],
      ['secret-per-region', 'a Secrets Manager secret by name, so one in every probe region (the old advice)'],
    ] as const) {
      credentialRows.push([label, ...[10, 100].map((n) => fmt.usd(generatedCost(n, kind, remote).fleet.perTargetRegion))]);
    }
    out(table(['credential', '10 × 3', '100 × 3'], credentialRows));

    out(`\n## The dashboard before this round: three Logs Insights widgets per probe region, left open\n`);
    const dashRows: string[][] = [];
    for (const n of [10, 100, 1000]) {
      const ginv = scale.get(n)!;
      const old: Inventory = {
        ...ginv,
        dashboardLogWidgets: ginv.schedules
          .map((x) => x.region)
          .filter((r, i, a) => a.indexOf(r) === i)
          .flatMap((r) => [r, r, r]),
      };
      const scans = fleetCost(old, costPerTargetRegion(old, remote, PRICES), PRICES, remote).dashboardScans;
      dashRows.push([`${fmt.int(n)} × 3`, fmt.usd(scans), fmt.usd(scans / (n * 3)), fmt.usd(0)]);
    }
    out(table(['targets × regions', 'scans a month (1-minute refresh)', 'per target·region', 'now (saved queries, on demand)'], dashRows));

    out(`\n## One target in every batch hangs for its whole budget (25 targets a schedule, 256 MB arm64)\n`);
    const hang = 30_000 + 2_000;
    const shares = billedShares([...Array<number>(24).fill(remoteMs), hang]);
    const lambdaPerMs = (256 / 1024 / 1000) * PRICES.lambdaGbSecond.arm64 * runsPerMonth(60);
    out(
      table(
        ['who', 'billed ms per run', 'Lambda per target·region·month'],
        [
          ['a batch-mate (its own verdict in ' + fmt.ms(remoteMs) + ')', fmt.ms(shares[0]!), fmt.usd(shares[0]! * lambdaPerMs)],
          ['a batch-mate, if the batch were split evenly', fmt.ms(hang / 25), fmt.usd((hang / 25) * lambdaPerMs)],
          ['the hanging target (budgetMs 30 s + 2 s grace)', fmt.ms(shares[24]!), fmt.usd(shares[24]! * lambdaPerMs)],
        ],
      ),
    );
    out("Its batch-mates' datapoints leave in their own wave (one more PutMetricData per invocation); the wait is the hanging");
    out("target's own cost: lower its budgetMs, or fix the endpoint.");

    out(`\n## Optional features, each turned on in the 100 × 3 fleet (billed on top of the figures above)\n`);
    for (const line of featureSection(100)) out(line);
  }
  return 0;
}

/** The read and publish rates the bill assumes, in one line. */
function readsAndWavesLine(): string {
  const reads =
    CREDENTIAL_READS.perTargetMinute === 'per-container-cache'
      ? `each credential read once per warm container per ${SECRET_CACHE_SECONDS / 60} minutes, a function's schedules landing on as many containers (k schedules: k ÷ (k + 4) reads a run at one run a minute), a store's references read together (GetParameters ${SSM_NAMES_PER_CALL} names a call, BatchGetSecretValue ${SECRETS_PER_CALL}; infra/quotas/credential-rate.ts, as synth checks them)`
      : `${CREDENTIAL_READS.perTargetMinute} credential read(s) per target per minute (measured)`;
  return `Assumed: ${reads}; one PutMetricData per wave, a batch's verdicts ${REMOTE_VERDICT_SPREAD_SECONDS} s apart (1 to 3 waves).`;
}

process.exitCode = await main().catch((e: unknown) => {
  if (e instanceof Error && e.name === 'CanaryError') {
    console.error(`cost: ${e.message}`);
    return 2;
  }
  throw e;
});
