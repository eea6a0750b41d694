/**
 * `new McpCanaryFleet(app, 'McpCanary', config)`: the whole canary from one fleet config, as stacks
 * under your app. A home stack (topics, brief, dashboard) and alarm stacks in the home region; one
 * stack per probe region (run functions, schedules, their dead-letter queue). Invalid config fails
 * here, at synth, with the target and the field named.
 */
import { Annotations, type Environment } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FleetInput } from '../functions/config/fleet.ts';
import { uncheckedTargets } from '../functions/probe/unchecked.ts';
import { AlarmStack } from './constructs/alarm-stack.ts';
import { HomeStack } from './constructs/home-stack.ts';
import { MaintenanceStack } from './constructs/maintenance.ts';
import { ProbeRegionStack } from './constructs/probe-region-stack.ts';
import { ProbeScheduleStack } from './constructs/probe-schedule-stack.ts';
import { FleetNames } from './names.ts';
import { planFleet, type FleetPlan } from './plan.ts';
import { addQuotaChecks, type QuotaChecks } from './quotas/plugin.ts';

export interface McpCanaryFleetOptions {
  /** Prefixes every stack, alarm, topic, function and log group. @default - the construct id */
  readonly name?: string;
  /** The account to deploy to. @default - environment-agnostic (the CLI's credentials decide) */
  readonly account?: string;
  /** Retention of the run and brief logs. @default - one month */
  readonly logRetention?: RetentionDays;
  /** Memory of the run functions. @default - 256 MB */
  readonly runMemorySize?: number;
  /**
   * How many alarm stacks targets are hashed into. Changing it moves alarms between stacks (deploy
   * twice: once without the fleet's alarm stacks, once with). @default - DEFAULT_ALARM_STACKS (16)
   */
  readonly alarmStacks?: number;
  /** Schedules per probe-region stack before an overflow stack. @default - DEFAULT_SCHEDULES_PER_STACK (400) */
  readonly schedulesPerStack?: number;
}

export class McpCanaryFleet extends Construct {
  readonly names: FleetNames;
  readonly plan: FleetPlan;
  readonly home: HomeStack;
  readonly alarmStacks: AlarmStack[] = [];
  readonly probeStacks: Array<ProbeRegionStack | ProbeScheduleStack> = [];
  /** Alarm mute rules of the fleet's maintenance windows; absent when it has none. */
  readonly maintenance?: MaintenanceStack;
  /** AWS's quotas, checked over the fleet's templates at synth (infra/quotas): a finding fails synth. */
  readonly quotas: QuotaChecks;

  constructor(scope: Construct, id: string, config: FleetInput, options: McpCanaryFleetOptions = {}) {
    super(scope, id);
    this.quotas = addQuotaChecks(this);
    this.names = new FleetNames(options.name ?? id);
    this.plan = planFleet(config, { alarmStacks: options.alarmStacks, schedulesPerStack: options.schedulesPerStack });
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
      this.alarmStacks.push(stack);
    }

    if (plan.fleet.maintenance.length > 0) {
      this.maintenance = new MaintenanceStack(this, 'Maintenance', {
        stackName: names.stack('maintenance'),
        env: env(plan.homeRegion),
        description: description('maintenance windows: alarm mute rules'),
        names,
        windows: plan.fleet.maintenance,
        targets: plan.fleet.targets.map((t) => t.name),
      });
      // The rules name alarms the alarm stacks create: deploy those first.
      for (const s of this.alarmStacks) this.maintenance.addStackDependency(s, 'its mute rules name these alarms');
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
      });
      if (region.region === plan.homeRegion) main.addStackDependency(this.home, 'its canary alarms use the home canary-owner topic');
      this.probeStacks.push(main);
      region.scheduleStacks.slice(1).forEach((schedules, i) => {
        const overflow = new ProbeScheduleStack(this, `Probe-${region.region}-${i + 2}`, {
          stackName: names.stack(`probe-${region.region}-${i + 2}`),
          env: env(region.region),
          description: description(`more schedules in ${region.region} (${i + 2})`),
          names,
          schedules,
        });
        overflow.addStackDependency(main, "its schedules invoke the region's run functions and dead-letter to its queue");
        this.probeStacks.push(overflow);
      });
    }
  }
}
