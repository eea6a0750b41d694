/**
 * `npm run cost`: what the canary costs a month, per target·region and for the whole fleet, from the
 * synthesized templates of a fleet config (synthesized here, in-process, bundling skipped) and the run
 * the bench measured (.bench/bench.json), beside CloudWatch Synthetics at the same schedule. Every
 * price is in prices.ts, with its date.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { loadFleet } from '../../functions/config/load.ts';
import { costPerTargetRegion, fleetCost, runsPerMonth, type RunUsage, type TargetRegionCost } from './cost-model.ts';
import { generatedFleet, synthesize } from './fleet-scale.ts';
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

/** functions/run/README.md assumes about 1 s billed per run against a remote endpoint (TLS and the round trips). */
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
    ['Secrets Manager API calls', `$${(p.secretsManagerCall * 10_000).toFixed(2)} per 10,000`],
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
    `${inv.dashboards} dashboard(s); logs kept ${inv.logRetentionDays} days.`,
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
      'secret reads',
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
      fmt.usd(c.secretReads),
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
  const measured = await measuredUsage(billed);
  const remote: RunUsage = { ...measured.usage, billedMs: remoteMs };
  const synth = synthesize(fleet);
  const inv = readInventory(synth.stacks, fleet.namespace);

  out(
    `mcp-canary cost — ${relative(process.cwd(), args.config) || args.config}, list prices ${PRICES_REGION} as of ${PRICES_AS_OF} (test/bench/prices.ts), 30-day month`,
  );
  out('');
  out(table(['price', 'as used'], priceRows()));
  out('');
  out(`Deployed (synthesized templates): ${inventoryLine(inv, synth.stacks.length)}`);
  if (inv.unpublishedAlarmMetrics.length > 0)
    out(`WARNING: alarms read metrics no run publishes: ${inv.unpublishedAlarmMetrics.slice(0, 5).join(', ')}`);
  if (inv.guessedMemory > 0)
    out(
      `Note: ${inv.guessedMemory} schedule(s) invoke a function of another stack; its region's largest run function's memory is assumed.`,
    );
  out(
    `Measured: ${fmt.ms(measured.usage.billedMs)} billed per invocation (${measured.source}), ${fmt.int(measured.usage.recordBytesPerTarget)} B of run record per target per run.`,
  );

  const costs = costPerTargetRegion(inv, measured.usage, PRICES);
  const remoteCosts = costPerTargetRegion(inv, remote, PRICES);
  out(`\n## Per target·region·month (billed ${fmt.ms(measured.usage.billedMs)} per invocation, as measured)\n`);
  out(perTargetTable(costs));

  const total = fleetCost(inv, costs, PRICES);
  const totalRemote = fleetCost(inv, remoteCosts, PRICES);
  out(`\n## Whole fleet per month\n`);
  out(
    table(
      ['item', `billed ${fmt.ms(measured.usage.billedMs)} (measured)`, `billed ${fmt.ms(remoteMs)} (remote endpoint)`],
      [
        [`target·regions (${total.targetRegions}): sum of the table above`, fmt.usd(total.direct), fmt.usd(totalRemote.direct)],
        ["the canary's own alarms (run errors, dead-letter queues, brief)", fmt.usd(total.canaryAlarms), fmt.usd(totalRemote.canaryAlarms)],
        ['dashboards', fmt.usd(total.dashboards), fmt.usd(totalRemote.dashboards)],
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
  out('\nNot counted: the brief function (runs on alarm changes only), SNS deliveries, the secrets themselves (yours, read by');
  out('reference), data transfer, and free tiers other than the Scheduler allowance.');

  if (!args['no-scale']) {
    out(`\n## Generated fleets, every target probed from 3 regions at rate(1 minute)\n`);
    const rows: string[][] = [];
    for (const n of [1, 10, 100, 1000]) {
      const g = generatedFleet(n);
      const ginv = readInventory(synthesize(g).stacks, 'McpCanary');
      const measuredTotal = fleetCost(ginv, costPerTargetRegion(ginv, measured.usage, PRICES), PRICES);
      const remoteTotal = fleetCost(ginv, costPerTargetRegion(ginv, remote, PRICES), PRICES);
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
    out('\nPer target·region·month. "own": its metrics, alarms, secret reads and share of the invocations it rides in;');
    out('"all in": plus its share of the canary\'s own alarms and the dashboard.');
    out('\nEach generated target has its own Secrets Manager secret and a canary tool (test/bench/fleet-scale.ts).');
  }
  return 0;
}

process.exitCode = await main().catch((e: unknown) => {
  if (e instanceof Error && e.name === 'CanaryError') {
    console.error(`cost: ${e.message}`);
    return 2;
  }
  throw e;
});
