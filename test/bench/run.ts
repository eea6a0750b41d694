/**
 * `npm run bench`: what the canary costs and how fast it tells, measured side by side in one run on
 * one machine. Absolute times on a shared machine are noise; the ratios are the figures.
 *
 * 1. round trips per verdict (a recording proxy in front of servers of both eras);
 * 2. per-run wall time: the engine vs a hand-written fetch floor vs inspector-cli, interleaved;
 * 3. the Lambda footprint: bundle size, cold import, peak RSS of one invocation;
 * 4. fleet scale: synth time, the largest stack, template and role policy for 10 and 1,000 targets × 3
 *    regions and 5,000 × 5 (test/bench/fleet-scale.ts);
 * 5. CLI start: the built `mcp-canary --help` beside inspector-cli's, fresh processes, interleaved;
 * 6. credential reads of 5,000 targets × 5 regions over Lambda's container churn (test/bench/credential-reads.ts).
 *
 * Writes the figures to .bench/bench.json too (`npm run cost` reads the measured run from there).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_TARGETS_PER_RUN } from '../../infra/plan/plan.ts';
import { startMoto } from '../helpers/moto.ts';
import { startServerProcess } from './children.ts';
import { buildPackage, measureCliStart, type CliStart } from './cli-start.ts';
import { buildEngineOnce, engineProcessRun, engineRun, floorRun, inspectorCliPath, inspectorRun, type Era } from './contenders.ts';
import { SCALE_FLEETS, scaleRow, scaleTableRows, synthesize, generatedFleet, type ScaleRow } from './fleet-scale.ts';
import { runtimeTable, type RuntimeColumn } from './runtime-quotas.ts';
import { Floor } from './floor.ts';
import {
  BENCH_DIR,
  buildVariant,
  coldImports,
  FOOTPRINT_NODE,
  lambdaHeapFlags,
  oneRun,
  VARIANTS,
  type BuiltVariant,
  type ColdImport,
  type OneRun,
} from './footprint.ts';
import { HTTPS_HANDSHAKE_RTT, traceRoundTrips, type RoundTrips } from './roundtrips.ts';
import { telemetryFootprint, type TelemetryFootprint } from './telemetry.ts';
import { interleave, median, type Contender } from './stats.ts';
import { fmt, table } from './table.ts';
import { startTracer } from './trace.ts';
import { credentialReads, modelledReads, SSM_DEFAULT_TPS, type ReadFigures } from './credential-reads.ts';

const HELP = `Usage: npm run bench -- [options]

Options:
  --rounds N          timed rounds per contender, interleaved (default: 25)
  --import-rounds N   fresh processes per bundle for the cold import (default: 15)
  --sections LIST     any of roundtrips,walltime,footprint,scale,clistart,credentials (default: all)
  -h, --help          this text

Set MCP_CANARY_BENCH_NODE=/path/to/node24 to run the footprint section on the Lambda's Node.`;

const SECTIONS = ['roundtrips', 'walltime', 'footprint', 'scale', 'clistart', 'credentials'] as const;
type Section = (typeof SECTIONS)[number];

/** What the engine's rules allow at best, in sequential HTTP exchanges (see test/bench/README.md). */
const RULES_MINIMUM: Record<string, number> = { 'modern auto': 3, 'legacy auto': 6, 'legacy pinned': 5 };

/** The round trip the second wall-time table emulates: a nearby region, or the same region over TLS. */
const EMULATED_RTT_MS = 20;

/** The smallest Lambda: what the run must fit. */
const LAMBDA_MEMORY_MB = 128;

const ERA_LABEL: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

const out = (s = '') => process.stdout.write(`${s}\n`);

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        rounds: { type: 'string', default: '25' },
        'import-rounds': { type: 'string', default: '15' },
        sections: { type: 'string', default: SECTIONS.join(',') },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (e) {
    console.error(`bench: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    out(HELP);
    return 0;
  }
  const rounds = Number(args.rounds);
  const importRounds = Number(args['import-rounds']);
  const sections = new Set(args.sections.split(',').map((s) => s.trim()));
  const unknown = [...sections].filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(importRounds) || importRounds < 1 || unknown.length > 0) {
    console.error(
      `bench: --rounds and --import-rounds take a positive integer, --sections any of ${SECTIONS.join(', ')}${unknown.length ? ` (got ${unknown.join(', ')})` : ''}.\n\n${HELP}`,
    );
    return 2;
  }
  const want = (s: Section) => sections.has(s);

  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`;
  const date = new Date().toISOString();
  out(`mcp-canary bench — ${date.slice(0, 10)}, ${machine}`);
  const results: Record<string, unknown> = { date, machine };
  await mkdir(BENCH_DIR, { recursive: true });

  const servers = await startServerProcess();
  try {
    if (want('roundtrips')) results.roundTrips = await roundTripsSection(servers.urls);
    if (want('walltime')) {
      results.wallTime = await wallTimeSection(servers.urls, rounds);
      results.wallTimeWithRtt = await wallTimeWithRttSection(servers.urls, rounds, EMULATED_RTT_MS);
    }
    if (want('footprint')) results.footprint = await footprintSection(servers.urls.modern, importRounds);
  } finally {
    await servers.stop();
  }
  if (want('scale')) results.scale = scaleSection();
  if (want('clistart')) results.cliStart = await cliStartSection(rounds);
  if (want('credentials')) results.credentials = await credentialsSection();

  // Sections not run keep their last figures: `--sections scale` must not drop the footprint `npm run cost` reads.
  const previous = await readFile(join(BENCH_DIR, 'bench.json'), 'utf8').then(
    (t) => JSON.parse(t) as Record<string, unknown>,
    () => ({}),
  );
  await writeFile(join(BENCH_DIR, 'bench.json'), `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  out(`\nFigures written to .bench/bench.json (read by npm run cost).`);
  return 0;
}

async function roundTripsSection(urls: { modern: string; legacy: string }): Promise<RoundTrips[]> {
  out('\n## 1. Round trips per verdict (healthy verdict, canary tool called)\n');
  const floor = new Floor('fresh');
  const inspector = inspectorCliPath();
  const rows: Array<{ era: Era; rules: string; rt: RoundTrips }> = [];
  for (const era of ['modern', 'legacy'] as const) {
    const tracer = await startTracer(urls[era]);
    try {
      rows.push({ era, rules: `${era} auto`, rt: await traceRoundTrips('engine (auto)', tracer, (u) => engineRun(u)) });
      if (era === 'legacy')
        rows.push({
          era,
          rules: 'legacy pinned',
          rt: await traceRoundTrips('engine (pinned 2025-11-25)', tracer, (u) => engineRun(u, '2025-11-25')),
        });
      rows.push({
        era,
        rules: `${era} auto`,
        rt: await traceRoundTrips('fetch floor (fresh pool)', tracer, (u) => floorRun(floor, era, u)),
      });
      if (era === 'legacy' && inspector)
        rows.push({ era, rules: '', rt: await traceRoundTrips('inspector-cli tools/call', tracer, (u) => inspectorRun(inspector, u), 2) });
    } finally {
      await tracer.close();
    }
  }
  out(
    table(
      [
        'era',
        'contender',
        'requests',
        'conns',
        'sequential RTT',
        `on https (+${HTTPS_HANDSHAKE_RTT}/conn)`,
        'rules allow',
        'requests, in order',
      ],
      rows.map(({ era, rules, rt }) => [
        ERA_LABEL[era],
        rt.contender + (rt.varied ? ' (varied!)' : ''),
        String(rt.requests.length),
        String(rt.connections),
        String(rt.sequentialHttp),
        String(rt.sequentialHttps),
        rules ? `${RULES_MINIMUM[rules]} / ${RULES_MINIMUM[rules]! + HTTPS_HANDSHAKE_RTT}` : '—',
        rt.requests.join(' → '),
      ]),
    ),
  );
  out(`\nSequential RTT: the longest chain of requests each sent after the previous answer ended, as a recording`);
  out(`proxy saw them (parallel ones overlap and count once). On https every connection opened on that chain adds`);
  out(`a TCP and a TLS 1.3 handshake (${HTTPS_HANDSHAKE_RTT} RTT). "rules allow": the fewest the engine's rules permit, http / https.`);
  return rows.map((r) => r.rt);
}

interface WallTime {
  readonly contender: string;
  readonly era: Era;
  readonly medianMs: number;
  readonly runs: number;
}

async function wallTimeSection(
  urls: { modern: string; legacy: string },
  rounds: number,
): Promise<{ rows: WallTime[]; ratios: Record<string, number> }> {
  out(`\n## 2. Per-run wall time, median of ${rounds} interleaved runs each (loopback servers in another process)\n`);
  const fresh = new Floor('fresh');
  const shared = new Floor('shared');
  const engineOnce = await buildEngineOnce();
  const inspector = inspectorCliPath();
  interface Timed extends Contender {
    readonly era: Era;
    readonly label: string;
  }
  const c = (era: Era, label: string, run: () => Promise<void>): Timed => ({ era, label, name: `${era}/${label}`, run });
  const contenders: Timed[] = [
    c('modern', 'engine, in-process', () => engineRun(urls.modern)),
    c('modern', 'fetch floor, fresh pool', () => floorRun(fresh, 'modern', urls.modern)),
    c('modern', 'fetch floor, shared pool', () => floorRun(shared, 'modern', urls.modern)),
    c('modern', 'engine, fresh process', () => engineProcessRun(engineOnce, urls.modern)),
    c('legacy', 'engine, in-process', () => engineRun(urls.legacy)),
    c('legacy', 'engine, in-process, pinned', () => engineRun(urls.legacy, '2025-11-25')),
    c('legacy', 'fetch floor, fresh pool', () => floorRun(fresh, 'legacy', urls.legacy)),
    c('legacy', 'fetch floor, shared pool', () => floorRun(shared, 'legacy', urls.legacy)),
    c('legacy', 'engine, fresh process', () => engineProcessRun(engineOnce, urls.legacy)),
    ...(inspector ? [c('legacy', 'inspector-cli, fresh process', () => inspectorRun(inspector, urls.legacy))] : []),
  ];
  const samples = await interleave(contenders, { rounds });
  await shared.close();
  const m = (era: Era, label: string) => median(samples.get(`${era}/${label}`) ?? [NaN]);
  const rows: WallTime[] = contenders.map((x) => ({
    contender: x.label,
    era: x.era,
    medianMs: m(x.era, x.label),
    runs: samples.get(x.name)!.length,
  }));
  out(
    table(
      ['era', 'contender', 'median', '÷ floor (fresh pool)'],
      rows.map((r) => [ERA_LABEL[r.era], r.contender, fmt.ms(r.medianMs), fmt.ratio(r.medianMs / m(r.era, 'fetch floor, fresh pool'))]),
    ),
  );
  const ratios: Record<string, number> = {};
  for (const era of ['modern', 'legacy'] as const) {
    ratios[`engine ÷ floor (fresh pool), ${ERA_LABEL[era]}`] = m(era, 'engine, in-process') / m(era, 'fetch floor, fresh pool');
    ratios[`engine ÷ floor (shared pool), ${ERA_LABEL[era]}`] = m(era, 'engine, in-process') / m(era, 'fetch floor, shared pool');
  }
  if (inspector) {
    ratios['inspector-cli ÷ engine in-process (a warm Lambda), 2025-11-25'] =
      m('legacy', 'inspector-cli, fresh process') / m('legacy', 'engine, in-process');
    ratios['inspector-cli ÷ engine in a fresh process (a cold one), 2025-11-25'] =
      m('legacy', 'inspector-cli, fresh process') / m('legacy', 'engine, fresh process');
  }
  out('');
  out(
    table(
      ['ratio', 'value'],
      Object.entries(ratios).map(([k, v]) => [k, fmt.ratio(v)]),
    ),
  );
  if (!inspector) out('\n@modelcontextprotocol/inspector-cli is not installed: its rows are missing.');
  out(`\ninspector-cli 1.0.3 speaks 2025-11-25 only (SDK v1): the 2026-07-28 server refuses it ("Unsupported protocol`);
  out(`version"), so it is compared on 2025-11-25 (its requests are in section 1).`);
  return { rows, ratios };
}

async function wallTimeWithRttSection(
  urls: { modern: string; legacy: string },
  rounds: number,
  rttMs: number,
): Promise<{ rttMs: number; rows: WallTime[]; ratios: Record<string, number> }> {
  out(
    `\n### 2b. The same with a ${rttMs} ms round trip (a delaying proxy: ${rttMs} ms per request, ${2 * rttMs} ms more for each new connection)\n`,
  );
  const modern = await startTracer(urls.modern, { rttMs });
  const legacy = await startTracer(urls.legacy, { rttMs });
  const fresh = new Floor('fresh');
  const shared = new Floor('shared');
  const inspector = inspectorCliPath();
  try {
    interface Timed extends Contender {
      readonly era: Era;
      readonly label: string;
    }
    const c = (era: Era, label: string, run: () => Promise<void>): Timed => ({ era, label, name: `${era}/${label}`, run });
    const contenders: Timed[] = [
      c('modern', 'engine, in-process', () => engineRun(modern.url)),
      c('modern', 'fetch floor, fresh pool', () => floorRun(fresh, 'modern', modern.url)),
      c('modern', 'fetch floor, shared pool', () => floorRun(shared, 'modern', modern.url)),
      c('legacy', 'engine, in-process', () => engineRun(legacy.url)),
      c('legacy', 'fetch floor, fresh pool', () => floorRun(fresh, 'legacy', legacy.url)),
      ...(inspector ? [c('legacy', 'inspector-cli, fresh process', () => inspectorRun(inspector, legacy.url))] : []),
    ];
    const samples = await interleave(contenders, { rounds, warmupRounds: 2 });
    const m = (era: Era, label: string) => median(samples.get(`${era}/${label}`) ?? [NaN]);
    const rows: WallTime[] = contenders.map((x) => ({
      contender: x.label,
      era: x.era,
      medianMs: m(x.era, x.label),
      runs: samples.get(x.name)!.length,
    }));
    out(
      table(
        ['era', 'contender', 'median', '÷ floor (fresh pool)'],
        rows.map((r) => [ERA_LABEL[r.era], r.contender, fmt.ms(r.medianMs), fmt.ratio(r.medianMs / m(r.era, 'fetch floor, fresh pool'))]),
      ),
    );
    const ratios: Record<string, number> = {
      [`engine ÷ floor (fresh pool), 2026-07-28, ${rttMs} ms RTT`]:
        m('modern', 'engine, in-process') / m('modern', 'fetch floor, fresh pool'),
      [`engine ÷ floor (fresh pool), 2025-11-25, ${rttMs} ms RTT`]:
        m('legacy', 'engine, in-process') / m('legacy', 'fetch floor, fresh pool'),
    };
    if (inspector)
      ratios[`inspector-cli ÷ engine in-process, 2025-11-25, ${rttMs} ms RTT`] =
        m('legacy', 'inspector-cli, fresh process') / m('legacy', 'engine, in-process');
    out('');
    out(
      table(
        ['ratio', 'value'],
        Object.entries(ratios).map(([k, v]) => [k, fmt.ratio(v)]),
      ),
    );
    return { rttMs, rows, ratios };
  } finally {
    await shared.close();
    await Promise.all([modern.close(), legacy.close()]);
  }
}

interface Footprint {
  readonly node: string;
  readonly variants: Array<{
    name: string;
    needs: string;
    bytes: number;
    gzipBytes: number;
    cold: ColdImport;
    top: ReadonlyArray<readonly [string, number]>;
  }>;
  readonly runs: Array<OneRun & { variant: string }>;
  readonly telemetry: TelemetryFootprint;
}

async function footprintSection(modernUrl: string, importRounds: number): Promise<Footprint> {
  const node = FOOTPRINT_NODE === process.execPath ? `Node ${process.version}` : FOOTPRINT_NODE;
  out(`\n## 3. Lambda footprint (${node}; cold import: median of ${importRounds} fresh processes per bundle, interleaved)\n`);
  const built: BuiltVariant[] = [];
  for (const [i, v] of VARIANTS.entries()) built.push(await buildVariant(v, i));
  const cold = await coldImports(
    built.map((b) => b.file),
    importRounds,
  );
  const base = built[0]!;
  out(
    table(
      ['bundle', 'needs', 'size', 'gzip', 'cold import', 'process → ready', 'vs shipped'],
      built.map((b, i) => [
        b.variant.name,
        b.variant.needs,
        fmt.kb(b.bytes),
        fmt.kb(b.gzipBytes),
        fmt.ms(cold[i]!.importMs),
        fmt.ms(cold[i]!.readyMs),
        i === 0 ? '—' : `${b.bytes <= base.bytes ? '−' : '+'}${fmt.kb(Math.abs(base.bytes - b.bytes))}`,
      ]),
    ),
  );
  out(
    `\nLargest parts of the shipped bundle: ${base.byPackage
      .slice(0, 6)
      .map(([p, n]) => `${p} ${fmt.kb(n)}`)
      .join(', ')}.`,
  );
  out('"@aws-sdk/* external" imports the SDK from node_modules here; in Lambda it would be the runtime\'s copy.');

  // OpenTelemetry export (functions/io/telemetry): the bound is 10 % of size and cold import with export off.
  const telemetry = await telemetryFootprint(importRounds);
  out(
    `\nOpenTelemetry export (the SDK in telemetry-export.mjs beside index.mjs, ${fmt.kb(telemetry.sideFileBytes)}; cold import: median of ${importRounds}):\n`,
  );
  out(
    table(
      ['run handler', 'index.mjs', 'cold import', 'export file load'],
      telemetry.rows.map((r) => [r.name, fmt.kb(r.bytes), fmt.ms(r.importMs), r.exportLoadMs === undefined ? '—' : fmt.ms(r.exportLoadMs)]),
    ),
  );
  out(`\nExport off vs before: size ×${telemetry.sizeRatio.toFixed(3)}, cold import ×${telemetry.importRatio.toFixed(2)} (bound: ×1.10).`);

  // The shipped bundle as it is and under the Lambda's heap limits; the bundles that would take less
  // memory (the zod source change, the cfworker validator) under the same limits.
  const plans: Array<{ variant: number; flags: string[] }> = [
    { variant: 0, flags: [] },
    { variant: 0, flags: lambdaHeapFlags(LAMBDA_MEMORY_MB) },
    ...built.flatMap((b, i) =>
      b.variant.plugins?.length && !b.variant.options?.external ? [{ variant: i, flags: lambdaHeapFlags(LAMBDA_MEMORY_MB) }] : [],
    ),
  ];
  const moto = await startMoto();
  const runs: Array<OneRun & { variant: string }> = [];
  try {
    for (const plan of plans) {
      for (const targets of [1, MAX_TARGETS_PER_RUN]) {
        runs.push({
          variant: built[plan.variant]!.variant.name,
          ...(await oneRun(built[plan.variant]!.file, modernUrl, targets, moto.endpoint, plan.flags)),
        });
      }
    }
  } finally {
    await moto.stop();
  }
  out('');
  out(
    table(
      [
        'bundle, fresh process',
        'node flags',
        'targets',
        'peak RSS',
        'after 2nd run',
        'import',
        'cold run',
        'warm run',
        'log B/target',
        'verdicts',
      ],
      runs.map((r) => [
        r.variant,
        r.nodeFlags.length ? `Lambda ${LAMBDA_MEMORY_MB} MB` : '(none)',
        String(r.targets),
        fmt.mb(r.peakRssBytes),
        fmt.mb(r.warmPeakRssBytes),
        fmt.ms(r.importMs),
        fmt.ms(r.handlerMs),
        fmt.ms(r.warmHandlerMs),
        fmt.int(r.logBytesPerTarget),
        `${r.outcomes.filter((o) => o === 'healthy').length}/${r.targets} healthy${r.published ? ', published' : ', NOT published'}`,
      ]),
    ),
  );
  out(`\nA run is one handler invocation: judging (loopback server), the log lines, PutMetricData to moto_server; the warm run`);
  out(
    `is the second invocation in the same process. "Lambda ${LAMBDA_MEMORY_MB} MB" flags: ${lambdaHeapFlags(LAMBDA_MEMORY_MB).join(' ')}, the heap`,
  );
  out(
    `limits the Lambda runtime sets for a ${LAMBDA_MEMORY_MB} MB function. ${MAX_TARGETS_PER_RUN} targets is the most one payload carries.`,
  );
  return {
    node,
    variants: built.map((b, i) => ({
      name: b.variant.name,
      needs: b.variant.needs,
      bytes: b.bytes,
      gzipBytes: b.gzipBytes,
      cold: cold[i]!,
      top: b.byPackage.slice(0, 10),
    })),
    runs,
    telemetry,
  };
}

function scaleSection(): { rows: ScaleRow[]; runtime: RuntimeColumn[] } {
  out('\n## 4. Fleet scale (McpCanaryFleet synthesized in-process, bundling skipped, no cdk-nag)\n');
  synthesize(generatedFleet(2)); // warm-up: module loading and JIT are not the fleet's cost
  const synths = SCALE_FLEETS.map((f) => ({ f, s: synthesize(generatedFleet(f.targets, f.regions)) }));
  const rows = synths.map(({ f, s }) => scaleRow(f.targets, f.regions.length, s));
  const t = scaleTableRows(rows);
  out(table(t.head, t.rows));
  out(
    '\nPer stack CloudFormation allows 500 resources, a 1 MB template (from S3), 200 outputs and 200 parameters; IAM 10,240 characters of inline policy per role.',
  );
  out('\n### Runtime quotas at the peak, per account and Region (infra/quotas/runtime-*.ts; the busiest Region of each)\n');
  const big = synths.filter(({ f }) => f.targets >= 1_000);
  const r = runtimeTable(big.map(({ f, s }) => ({ targets: f.targets, regions: f.regions, runtime: s.runtime })));
  out(table(r.head, r.rows));
  for (const line of r.notes) out(line);
  return { rows, runtime: r.columns };
}

async function cliStartSection(rounds: number): Promise<CliStart> {
  out(`\n## 5. CLI start (npm run build first; each run a fresh process, median of ${rounds} interleaved rounds)\n`);
  await buildPackage();
  const r = await measureCliStart(rounds);
  const floor = r.rows[0]!.medianMs;
  out(
    table(
      ['contender', 'median', 'above the floor', 'command'],
      r.rows.map((x) => [x.contender, fmt.ms(x.medianMs), fmt.ms(x.medianMs - floor), x.command]),
    ),
  );
  if (r.helpRatio === null) out('\n@modelcontextprotocol/inspector-cli is not installed: no ratio.');
  else
    out(
      `\nmcp-canary --help ÷ inspector-cli --help: ${fmt.ratio(r.helpRatio)} (target ≤ 0.50×: ${r.helpRatio <= 0.5 ? 'met' : 'NOT met'}).`,
    );
  out("Through npx add npx's own start (the same for both tools); run installed, as here, for the tool's own start.");
  return r;
}

process.exitCode = await main();

async function credentialsSection(): Promise<ReadFigures[]> {
  out();
  out('## 6. Credential reads: 5,000 targets × 5 regions, one SSM parameter each, 3 simulated hours (steady from the second)');
  const rows = await credentialReads();
  out(
    table(
      [
        'scenario',
        'containers',
        'read / target·run',
        'calls/s home (5 regions)',
        'first minute',
        'peak second',
        'calls/s per region (copies)',
      ],
      rows.map((r) => [
        r.scenario,
        String(r.peakContainers),
        r.namesPerTargetRun.toFixed(2),
        r.homeCallsPerSecond.toFixed(1),
        r.firstMinuteHomeCallsPerSecond.toFixed(1),
        String(r.peakSecondHome),
        r.perRegionCallsPerSecond.toFixed(1),
      ]),
    ),
  );
  const model = modelledReads();
  out(
    `The read rate synth and npm run cost use (infra/quotas/credential-rate.ts), for this fleet: ${model.namesPerTargetRun.toFixed(2)} read / target·run, ` +
      `${model.homeCallsPerSecond.toFixed(1)} calls/s home steady, ${model.firstMinuteHomeCallsPerSecond.toFixed(1)} in the first minute.`,
  );
  out(`SSM's default throughput: ${SSM_DEFAULT_TPS} calls/s per account and region, shared with everything else in it.`);
  return rows;
}
