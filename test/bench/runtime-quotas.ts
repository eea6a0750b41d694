/**
 * The runtime quota table of `npm run bench` (scale section), which docs/deploy.md quotes: for each generated
 * fleet, every runtime quota at its peak in the busiest Region, against AWS's default, with the page that states
 * it (credential reads at their steady rate, and their first firing after a deploy apart). The fleet as generated
 * keeps each credential in Secrets Manager by name (read in each probe Region); the
 * same fleet with SSM SecureString parameters in the home Region read by ARN, as docs/deploy.md recommends, is
 * planned beside it for the read rows. And how long the first deploy's alarms take, with and without SLO burn alarms.
 */
import type { FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { BURN_ALARMS_PER_TARGET } from '../../infra/constructs/burn-alarms.ts';
import { HTTPS_DELIVERY_POLICY } from '../../infra/constructs/topics.ts';
import type { FleetRuntime } from '../../infra/fleet.ts';
import { planFleet } from '../../infra/plan/plan.ts';
import { RuntimeQuotas, type RuntimeQuota } from '../../infra/quotas/runtime-limits.ts';
import { fleetLoads, type RuntimeLoad } from '../../infra/quotas/runtime-load.ts';
import { allowed, deployEstimates, duration } from '../../infra/quotas/runtime.ts';
import { generatedFleet } from './fleet-scale.ts';

export interface RuntimeColumn {
  readonly fleet: string;
  /** By row label: the peak, its Region, and whether synth warns. */
  readonly cells: Readonly<Record<string, { peak: number; region: string; over: boolean; overOnce?: boolean }>>;
  readonly deploy: { alarms: number; seconds: number; withBurnSeconds: number };
}

/** The generated fleet with each target's credential an SSM SecureString parameter in the home Region, by ARN. */
export function withSsmHome(fleet: FleetInput): FleetInput {
  return {
    ...fleet,
    targets: fleet.targets.map((t, i) => ({
      ...t,
      headerSecrets: {
        Authorization: { ssmParameter: `arn:aws:ssm:${fleet.homeRegion}:111122223333:parameter/mcp-canary/svc-${i}`, prefix: 'Bearer ' },
      },
    })),
  };
}

/** A row: the quota at its peak (or, for a credential read, its steady rate, `afterDeploy` its first firing after a deploy). */
const ROWS: ReadonlyArray<{ label: string; quota: RuntimeQuota; ssm?: boolean; afterDeploy?: boolean }> = [
  { label: 'Scheduler invocations', quota: RuntimeQuotas.schedulerInvocations },
  { label: 'Lambda concurrent executions (with a mass incident’s briefs in the home Region)', quota: RuntimeQuotas.lambdaConcurrency },
  { label: 'PutMetricData (home Region)', quota: RuntimeQuotas.putMetricData },
  {
    label: 'GetParameters + GetParameter, steady (SecureString in the home Region by ARN)',
    quota: RuntimeQuotas.ssmGetParameter,
    ssm: true,
  },
  {
    label: 'GetParameters + GetParameter, the first firing after a deploy (calls at once)',
    quota: RuntimeQuotas.ssmGetParameter,
    ssm: true,
    afterDeploy: true,
  },
  { label: 'KMS Decrypt behind those parameters, steady', quota: RuntimeQuotas.kmsCryptographicOperations, ssm: true },
  {
    label: 'BatchGetSecretValue, steady (secrets by name, read in each probe Region)',
    quota: RuntimeQuotas.secretsManagerBatchGetSecretValue,
  },
  {
    label: 'BatchGetSecretValue, the first firing after a deploy (calls at once)',
    quota: RuntimeQuotas.secretsManagerBatchGetSecretValue,
    afterDeploy: true,
  },
  { label: 'Run ledger writes (a new on-demand table)', quota: RuntimeQuotas.dynamoDbNewTableWrites },
  { label: 'PutMetricAlarm during the deploy (paced)', quota: RuntimeQuotas.putMetricAlarm },
  { label: 'Pages of a mass incident to an HTTPS pager (seconds until the last)', quota: RuntimeQuotas.snsPageDeliveries },
];

const busiest = (loads: readonly RuntimeLoad[], quota: RuntimeQuota) =>
  loads.filter((l) => l.quota === quota).sort((a, b) => b.peak / allowed(b.quota, b.region) - a.peak / allowed(a.quota, a.region))[0];

export function runtimeTable(fleets: ReadonlyArray<{ targets: number; regions: readonly string[]; runtime: FleetRuntime }>): {
  head: string[];
  rows: string[][];
  notes: string[];
  columns: RuntimeColumn[];
} {
  const columns = fleets.map((f): RuntimeColumn => {
    const ssmLoads = fleetLoads(planFleet(withSsmHome(generatedFleet(f.targets, f.regions))), {
      pageDeliveriesPerSecond: HTTPS_DELIVERY_POLICY.throttlePolicy.maxReceivesPerSecond,
      alarmsInFlight: f.runtime.alarmsInFlight,
    });
    const cells: Record<string, { peak: number; region: string; over: boolean; overOnce?: boolean }> = {};
    for (const row of ROWS) {
      const l = busiest(row.ssm ? ssmLoads : f.runtime.loads, row.quota);
      const limit = l && allowed(l.quota, l.region, f.runtime.accountQuotas);
      // The first firing is said (an information line, or a sentence of the warning), never warned on by itself.
      if (l && row.afterDeploy && l.afterDeploy)
        cells[row.label] = { peak: l.afterDeploy.calls, region: l.region, over: false, overOnce: l.afterDeploy.calls > limit! };
      else if (l && !row.afterDeploy) cells[row.label] = { peak: l.peak, region: l.region, over: l.peak > limit! };
    }
    const home = f.runtime.deploy.find((d) => d.region === f.regions[0])!;
    const [burn] = deployEstimates(new Map([[home.region, home.alarms + BURN_ALARMS_PER_TARGET * f.targets]]), f.runtime.accountQuotas);
    return {
      fleet: `${f.targets.toLocaleString('en-US')} × ${f.regions.length}`,
      cells,
      deploy: { alarms: home.alarms, seconds: home.seconds, withBurnSeconds: burn!.seconds },
    };
  });
  const cell = (c: RuntimeColumn['cells'][string] | undefined) =>
    c
      ? `${(Math.round(c.peak * 10) / 10).toLocaleString('en-US')} (${c.region})${c.over ? ' **over: synth warns**' : ''}${c.overOnce ? ' over in that second, if they fire together: synth says what happens' : ''}`
      : '—';
  const rows = ROWS.map((row) => [row.label, ...columns.map((c) => cell(c.cells[row.label])), row.quota.limitText, row.quota.source]);
  rows.push([
    'First deploy: alarms in the home Region, at the paced rate',
    ...columns.map(
      (c) =>
        `${c.deploy.alarms.toLocaleString('en-US')}: ≥ ${duration(c.deploy.seconds)}; with SLO burn alarms ≥ ${duration(c.deploy.withBurnSeconds)}`,
    ),
    RuntimeQuotas.putMetricAlarm.limitText,
    RuntimeQuotas.putMetricAlarm.source,
  ]);
  return {
    head: ['quota (busiest Region)', ...columns.map((c) => `${c.fleet} peak`), 'AWS default', 'source'],
    rows,
    notes: [
      '',
      'Peak: one firing of every schedule of a Region in one second, a mass incident of every target; credential reads at their steady rate',
      '(infra/quotas/credential-rate.ts, held to the bench’s measured reads) and, apart, the first firing after a deploy, every container cold.',
      'infra/quotas/runtime-load.ts says why each. Over a default, synth prints a warning naming the quota and the request (mcp-canary:quota:<id>).',
    ],
    columns,
  };
}
