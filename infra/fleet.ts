/**
 * `new McpCanaryFleet(app, 'McpCanary', config)`: the whole canary from one fleet config, as stacks
 * under your app. A home stack (topics, brief, dashboard) and alarm stacks in the home region; one
 * stack per probe region (run functions, schedules, their dead-letter queue). Invalid config fails
 * here, at synth, with the target and the field named.
 */
import { Annotations, Aspects, Stack, type Environment } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FleetInput } from '../functions/base/config/schema/fleet.ts';
import { fleetNameProblem } from '../functions/base/config/aws/aws-names.ts';
import { configError } from '../functions/base/common/errors.ts';
import { uncheckedTargets } from '../functions/base/config/schema/unchecked.ts';
import { AlarmStack } from './constructs/alarm-stack.ts';
import { BurnAlarmStack, burnTargets, placeBurn } from './constructs/burn-alarms.ts';
import { HomeStack } from './constructs/home-stack.ts';
import { MaintenanceStack } from './constructs/maintenance.ts';
import { ProbeRegionStack } from './constructs/probe-region-stack.ts';
import { ProbeScheduleStack } from './constructs/probe-schedule-stack.ts';
import { StatusStack } from './constructs/status-stack.ts';
import { FleetNames } from './plan/names.ts';
import { ALARM_SHARD_DEPTH } from './plan/placement.ts';
import { planFleet, type FleetPlan } from './plan/plan.ts';
import { addQuotaChecks, type QuotaChecks } from './quotas/plugin.ts';
import { existingParent } from './plan/stack-split.ts';
import { telemetrySettings } from '../functions/base/config/schema/telemetry.ts';
import { chainStacks, countAlarms, PaceAlarms } from './constructs/alarm-pacing.ts';
import { GrantsBeforeChecks } from './constructs/grant-order.ts';
import { HTTPS_DELIVERY_POLICY } from './constructs/topics.ts';
import { fleetLoads, type RuntimeLoad } from './quotas/runtime-load.ts';
import {
  ACCOUNT_QUOTAS_CONTEXT,
  afterDeployNotes,
  alarmPace,
  checkRuntime,
  deployEstimates,
  parseAccountQuotas,
  type AccountQuotas,
  type DeployEstimate,
  type RuntimeFinding,
} from './quotas/runtime.ts';

export interface McpCanaryFleetOptions {
  /** Prefixes every stack, alarm, topic, function and log group. @default - the fleet config's `name`, else the construct id */
  readonly name?: string;
  /** The account to deploy to. @default - environment-agnostic (the CLI's credentials decide) */
  readonly account?: string;
  /** Retention of the run and brief logs. @default - one month */
  readonly logRetention?: RetentionDays;
  /** Memory of the run functions. @default - 256 MB */
  readonly runMemorySize?: number;
  /**
   * Runtime quotas this account has had raised, by id (infra/quotas/runtime-limits.ts), e.g.
   * `{ 'ssm-get-parameter': 10_000, 'cloudwatch-put-metric-alarm': 10 }`: synth checks the fleet against these
   * figures instead of AWS's defaults, and paces the alarms of a deploy at the PutMetricAlarm figure.
   * @default - the context value `mcp-canary:account-quotas` (JSON), else AWS's defaults
   */
  readonly accountQuotas?: AccountQuotas;
}

/** What the fleet asks of AWS's runtime quotas, and how long its alarms take to deploy (infra/quotas/runtime.ts). */
export interface FleetRuntime {
  readonly accountQuotas: AccountQuotas;
  /** Alarms a stack creates at once. */
  readonly alarmsInFlight: number;
  readonly loads: readonly RuntimeLoad[];
  /** Loads over their quota: each is a synth warning `mcp-canary:quota:<id>`. */
  readonly findings: readonly RuntimeFinding[];
  readonly deploy: readonly DeployEstimate[];
}

export class McpCanaryFleet extends Construct {
  readonly names: FleetNames;
  readonly plan: FleetPlan;
  readonly home: HomeStack;
  readonly alarmStacks: AlarmStack[] = [];
  readonly probeStacks: Array<ProbeRegionStack | ProbeScheduleStack> = [];
  /** SLO burn alarms of the targets with `slo.burnAlarms` (constructs/burn-alarms.ts); empty when none. */
  readonly burnStacks: BurnAlarmStack[] = [];
  /** Alarm mute rules of the fleet's maintenance windows; empty when it has none. */
  readonly maintenance: MaintenanceStack[] = [];
  /** The status page (home region), when the config has `statusPage`. */
  readonly status: StatusStack | undefined;
  /** AWS's quotas, checked over the fleet's templates at synth (infra/quotas): a finding fails synth. */
  readonly quotas: QuotaChecks;
  /** AWS's runtime quotas against the fleet's peak load, and the deploy's alarm pace: findings are synth warnings. */
  readonly runtime: FleetRuntime;

  constructor(scope: Construct, id: string, config: FleetInput, options: McpCanaryFleetOptions = {}) {
    super(scope, id);
    this.quotas = addQuotaChecks(this);
    const accountQuotas =
      options.accountQuotas !== undefined
        ? parseAccountQuotas(options.accountQuotas, 'McpCanaryFleet accountQuotas')
        : parseAccountQuotas(this.node.tryGetContext(ACCOUNT_QUOTAS_CONTEXT), `the context value ${ACCOUNT_QUOTAS_CONTEXT}`);
    this.names = new FleetNames(fleetName(id, config, options));
    // Stacks are split by size, automatically (placement.ts): no option, so the default app and a CDK app deploy alike.
    this.plan = planFleet(config, { names: this.names });
    const { names, plan } = this;
    const env = (region: string): Environment => ({ account: options.account, region });
    const description = (what: string) => `mcp-canary ${names.fleet}: ${what}`;

    this.home = new HomeStack(this, 'Home', {
      stackName: names.stack('home'),
      env: env(plan.homeRegion),
      description: description('topics, brief function and dashboard (home region)'),
      names,
      plan,
      logRetention: options.logRetention,
    });
    // A tool call whose answer nothing checks reads an upstream 401 returned as text as healthy: say so at synth.
    for (const line of uncheckedTargets(plan.fleet.targets)) Annotations.of(this.home).addWarningV2('mcp-canary:unchecked-answer', line);

    this.status =
      plan.fleet.statusPage && plan.status
        ? new StatusStack(this, 'Status', {
            stackName: names.stack('status'),
            env: env(plan.homeRegion),
            description: description('status page: bucket, writer function and its schedule (home region)'),
            names,
            page: plan.fleet.statusPage,
            payload: plan.status,
            logRetention: options.logRetention,
          })
        : undefined;
    // Its errors alarm tells the home canary-owner topic.
    this.status?.addStackDependency(this.home, 'its errors alarm uses the home canary-owner topic');

    const alarmStacks = new Map<number, AlarmStack>();
    for (const [index, targets] of plan.alarmStacks) {
      const label = String(index).padStart(2, '0');
      const stack = new AlarmStack(this, `Alarms${label}`, {
        stackName: names.stack(`alarms-${label}`),
        env: env(plan.homeRegion),
        description: description(`alarms of ${targets.length} target(s), shard ${label}`),
        names,
        namespace: plan.namespace,
        failureThreshold: plan.failureThreshold,
        targets,
      });
      stack.addStackDependency(this.home, 'alarm actions publish to the home topics');
      // A stack split from this one takes over some of its alarms: the parent must drop them first.
      const parent = existingParent(index, ALARM_SHARD_DEPTH, (p) => plan.alarmStacks.has(p));
      if (parent !== undefined)
        stack.addStackDependency(alarmStacks.get(parent)!, 'alarms that move here on a split are deleted there first');
      alarmStacks.set(index, stack);
      this.alarmStacks.push(stack);
    }

    const burn = placeBurn(burnTargets(plan, names));
    for (const [index, targets] of burn) {
      const stack = new BurnAlarmStack(this, index === 0 ? 'SloBurn' : `SloBurn${index}`, {
        stackName: names.stack(index === 0 ? 'slo-burn' : `slo-burn-${index}`),
        env: env(plan.homeRegion),
        description: description(`SLO burn alarms of ${targets.length} target(s)`),
        names,
        namespace: plan.namespace,
        targets,
      });
      stack.addStackDependency(this.home, 'burn alarms publish to the home topics');
      // The page composite's ActionsSuppressor names its target's critical alarm: it must exist first.
      for (const a of this.alarmStacks) stack.addStackDependency(a, 'the fast-burn page is suppressed by the critical alarm');
      const parent = existingParent(index, 0, (p) => burn.has(p));
      if (parent !== undefined)
        stack.addStackDependency(this.burnStacks[parent]!, 'alarms that move here on a split are deleted there first');
      this.burnStacks[index] = stack;
    }

    const muteStacks = new Map<number, MaintenanceStack>();
    for (const [index, rules] of plan.muteRuleStacks) {
      const part = index === 0 ? 'maintenance' : `maintenance-${index}`;
      const stack = new MaintenanceStack(this, index === 0 ? 'Maintenance' : `Maintenance${index}`, {
        stackName: names.stack(part),
        env: env(plan.homeRegion),
        description: description('maintenance windows: alarm mute rules'),
        rules,
      });
      // The rules name alarms the alarm stacks create: deploy those first.
      for (const s of [...this.alarmStacks, ...this.burnStacks.filter(Boolean)])
        stack.addStackDependency(s, 'its mute rules name these alarms');
      const parent = existingParent(index, 0, (p) => plan.muteRuleStacks.has(p));
      if (parent !== undefined)
        stack.addStackDependency(muteStacks.get(parent)!, 'rules that move here on a split are deleted there first');
      muteStacks.set(index, stack);
      this.maintenance.push(stack);
    }

    for (const region of plan.regions) {
      const main = new ProbeRegionStack(this, `Probe-${region.region}`, {
        stackName: names.stack(`probe-${region.region}`),
        env: env(region.region),
        description: description(`run functions and schedules in ${region.region}`),
        names,
        plan: region,
        homeRegion: plan.homeRegion,
        namespace: plan.namespace,
        failureThreshold: plan.failureThreshold,
        canaryOwner: plan.fleet.notify.canaryOwner,
        logRetention: options.logRetention,
        memorySize: options.runMemorySize,
        telemetry: telemetrySettings(plan.fleet.telemetry),
      });
      if (region.region === plan.homeRegion) main.addStackDependency(this.home, 'its canary alarms use the home canary-owner topic');
      this.probeStacks.push(main);
      const overflow = new Map<number, ProbeScheduleStack>();
      for (const schedules of region.scheduleStacks.slice(1)) {
        const index = schedules[0]!.stack;
        const stack = new ProbeScheduleStack(this, `Probe-${region.region}-${index}`, {
          stackName: names.stack(`probe-${region.region}-${index}`),
          env: env(region.region),
          description: description(`more schedules in ${region.region} (${index})`),
          names,
          schedules,
        });
        stack.addStackDependency(main, "its schedules invoke the region's run functions and dead-letter to its queue");
        const parent = existingParent(index, 0, (p) => p === 0 || overflow.has(p));
        if (parent !== undefined && parent !== 0)
          stack.addStackDependency(overflow.get(parent)!, 'schedules that move here on a split are deleted there first');
        overflow.set(index, stack);
        this.probeStacks.push(stack);
      }
    }

    // Each resource Lambda checks against its role at creation waits for the policy that grants it (grant-order.ts).
    Aspects.of(this).add(new GrantsBeforeChecks());
    this.runtime = this.paceAndCheck(accountQuotas);
  }

  /**
   * Paces the deploy's alarms (alarm-pacing.ts) and checks the runtime quotas: each finding is a synth warning on
   * the stack of its Region, and the time the home Region's alarms take to create is printed with the synth.
   */
  private paceAndCheck(accountQuotas: AccountQuotas): FleetRuntime {
    const { plan } = this;
    const alarmsInFlight = alarmPace(accountQuotas);
    this.quotas.alarmsInFlight = alarmsInFlight;
    const stacks = this.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    const alarmsByRegion = new Map<string, number>();
    for (const s of stacks) alarmsByRegion.set(s.region, (alarmsByRegion.get(s.region) ?? 0) + countAlarms(s));
    // Chained at synth, so alarms added to these stacks after construction are paced too.
    Aspects.of(this).add(new PaceAlarms(alarmsInFlight));
    // The home Region's alarm stacks deploy one at a time, after the other stacks there that hold alarms.
    const homeProbe = this.probeStacks.find((s) => s.region === plan.homeRegion && s instanceof ProbeRegionStack);
    const heavy = [...this.alarmStacks, ...this.burnStacks.filter(Boolean)];
    for (const before of [homeProbe, this.status])
      if (before && heavy[0]) heavy[0].addStackDependency(before, 'one stack creates alarms in the home Region at a time');
    chainStacks(heavy, 'one stack creates alarms in the home Region at a time (PutMetricAlarm is rate-limited per Region)');

    const loads = fleetLoads(plan, { pageDeliveriesPerSecond: HTTPS_DELIVERY_POLICY.throttlePolicy.maxReceivesPerSecond, alarmsInFlight });
    const findings = checkRuntime(loads, accountQuotas);
    const stackOf = (region: string) =>
      region === plan.homeRegion
        ? this.home
        : (this.probeStacks.find((s) => s.region === region && s instanceof ProbeRegionStack) ?? this.home);
    for (const f of findings) Annotations.of(stackOf(f.region)).addWarningV2(`mcp-canary:quota:${f.quota.id}`, f.message);
    for (const n of afterDeployNotes(loads, accountQuotas)) Annotations.of(stackOf(n.region)).addInfo(n.message);
    const deploy = deployEstimates(alarmsByRegion, accountQuotas);
    for (const d of deploy) if (d.region === plan.homeRegion || d.seconds >= 60) Annotations.of(this.home).addInfo(d.message);
    return { accountQuotas, alarmsInFlight, loads, findings, deploy };
  }
}

/**
 * The fleet config's `name` when it has one (the default app's id, McpCanary, otherwise: existing stacks
 * keep their names). An invalid one is left to the schema, whose message names the field; a construct
 * option that disagrees with the config is refused rather than silently winning.
 */
function fleetName(id: string, config: FleetInput, options: McpCanaryFleetOptions): string {
  const fromConfig = typeof config.name === 'string' && fleetNameProblem(config.name) === null ? config.name : undefined;
  if (options.name !== undefined && fromConfig !== undefined && options.name !== fromConfig) {
    throw configError(
      `mcp-canary fleet config: name is ${JSON.stringify(fromConfig)}, but the McpCanaryFleet name option is ${JSON.stringify(options.name)}: set one of them.`,
    );
  }
  return options.name ?? fromConfig ?? id;
}
