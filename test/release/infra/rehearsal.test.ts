/**
 * The deploy rehearsal (test/helpers/infra/rehearsal/): each fleet synthesized with real bundling and deployed
 * into moto_server as `cdk deploy --all` would — CDK bootstrap, assets, CreateStack per stack in
 * dependency order, each in its region — with every resource moto's CloudFormation skips created through
 * its service's API, references resolved; then the bundled run handler invoked with a deployed schedule's
 * real payload against real MCP servers, and its datapoints read back where the deployed alarms read.
 *
 * What moto cannot create at all, and what checks it instead:
 * - AWS::CloudWatch::AlarmMuteRule: moto has no mute rule API. test/integration/infra/maintenance.test.ts checks the
 *   synthesized rules; here, every alarm a rule mutes must be deployed under that name.
 * - The alarms' AWS/Lambda (Errors, Throttles) and AWS/SQS metrics: the services publish them, moto does
 *   not, so no run lands there. test/unit/infra/alarms.test.ts and timing.test.ts check those alarms.
 * - What moto's CloudFormation drops from resources it does create (a function's Architectures and
 *   LoggingConfig): probe-region.test.ts and home.test.ts check them in the templates; here, the log group
 *   a function logs to must be deployed.
 * The rehearsal's own checks (each refusal it must make, the intrinsics) are in rehearsal-checks.test.ts.
 */
import { UpdateFunctionConfigurationCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import example from '../../../mcp-canary.config.ts';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { startMoto, type Moto } from '../../helpers/moto.ts';
import type { Deployment } from '../../helpers/infra/rehearsal/deployment.ts';
import { rehearse } from '../../helpers/infra/rehearsal/deploy.ts';
import { Aws } from '../../helpers/infra/rehearsal/aws.ts';
import { bootstrapRegions } from '../../helpers/infra/rehearsal/bootstrap.ts';
import {
  createUserResources,
  GENERATED_REGIONS,
  generatedFleet,
  synthAssembly,
  WRONG_CREDENTIAL,
} from '../../helpers/infra/rehearsal/fleet.ts';
import { Invoker, rateSeconds, type DeployedSchedule, type Invocation } from '../../helpers/infra/rehearsal/invoke.ts';
import { checkLanding, runRecords } from '../../helpers/infra/rehearsal/landing.ts';
import { describeNeeding } from '../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

const GENERATED = 'Rehearsal';
const NAMESPACE = 'McpCanaryRehearsal';
const token = 'rehearsal-token-5eb1c4';

let moto: Moto;
let assembly: { dir: string; remove(): void };
let servers: RunningServer[];
let apis: RatesApi[];
let fleet: ReturnType<typeof generatedFleet>;
const cleanups: Array<() => unknown> = [];
const log = (line: string) => console.log(`rehearsal: ${line}`);

beforeAll(async () => {
  apis = await Promise.all([startRatesApi(), startRatesApi()]);
  apis[1]!.revokeKey();
  const auth = `Bearer ${token}`;
  [moto, ...servers] = await Promise.all([
    startMoto({ awsManagedPolicies: true }),
    startMcpServer({ era: 'modern', requireAuthorization: auth, tools: [rateTool(apis[0]!)] }),
    startMcpServer({ era: 'legacy', requireAuthorization: auth, tools: [rateTool(apis[0]!)] }),
    startMcpServer({ era: 'modern', requireAuthorization: auth, tools: [rateTool(apis[1]!)] }),
  ]);
  fleet = generatedFleet(30, { modern: servers[0]!.url, legacy: servers[1]!.url, revoked: servers[2]!.url, token }, NAMESPACE);
  // `cdk bootstrap` of every region these tests use, in moto's process while this one synthesizes: moto
  // loads most of its services on the first CreateStack. The requests leave before the synth holds the loop.
  const early = new Aws(moto.endpoint);
  const bootstrapped = bootstrapRegions(early, [...GENERATED_REGIONS, 'ca-central-1']).finally(() => early.destroy());
  await new Promise((r) => setTimeout(r, 250));
  const started = performance.now();
  // Both fleets in one app, as one `cdk synth`: the handlers are bundled once.
  assembly = synthAssembly([
    { id: 'McpCanary', config: example },
    { id: GENERATED, config: fleet },
  ]);
  log(`synth of both fleets, bundling included: ${Math.round(performance.now() - started)} ms`);
  await bootstrapped;
}, 120_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await Promise.all([...(servers ?? []).map((s) => s.close()), ...(apis ?? []).map((a) => a.close())]);
  assembly?.remove();
  await moto?.stop();
});

async function mapTwoAtATime<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i]!);
  };
  await Promise.all([lane(), lane()]);
  return out;
}

/** The deployed schedules of every probe region, as the rehearsal created them. */
function schedulesOf(d: Deployment): Array<DeployedSchedule & { periodSeconds: number }> {
  return d.ofType('AWS::Scheduler::Schedule').map((r) => ({
    region: r.region,
    name: r.ref!,
    groupName: r.resolved.GroupName as string | undefined,
    periodSeconds: rateSeconds(String(r.resolved.ScheduleExpression))!,
  }));
}

describe('the example fleet, rehearsed', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await rehearse(assembly.dir, moto.endpoint, { stacks: (name) => name.startsWith('McpCanary-') });
    cleanups.push(() => d.aws.destroy());
    log(`example fleet: ${d.summary()}`);
  }, 120_000);

  it('deploys every stack, each in its region, and accounts for every resource', () => {
    expect([...d.stacks.values()].map((s) => `${s.stackName} ${s.region}`).sort()).toEqual(
      [
        ...[...d.stacks.keys()].filter((n) => n.startsWith('McpCanary-alarms-')).map((n) => `${n} us-east-1`),
        'McpCanary-home us-east-1',
        'McpCanary-probe-ap-southeast-2 ap-southeast-2',
        'McpCanary-probe-eu-west-1 eu-west-1',
        'McpCanary-probe-us-east-1 us-east-1',
      ].sort(),
    );
    const tally = d.tally();
    log(`example fleet: ${JSON.stringify(tally)}`);
    // Every alarm, schedule, subscription, policy and event-invoke config exists because the rehearsal made it.
    for (const t of [
      'AWS::CloudWatch::Alarm',
      'AWS::Scheduler::Schedule',
      'AWS::SNS::Subscription',
      'AWS::SNS::TopicPolicy',
      'AWS::SQS::QueuePolicy',
      'AWS::Lambda::EventInvokeConfig',
    ]) {
      expect(tally[t], t).toEqual({ api: expect.any(Number) });
    }
    for (const t of ['AWS::Lambda::Function', 'AWS::SQS::Queue', 'AWS::SNS::Topic', 'AWS::IAM::Role', 'AWS::Logs::LogGroup']) {
      expect(tally[t], t).toEqual({ moto: expect.any(Number) });
    }
    // 9 per-target, 2 inconclusive (one per rate), the run's own faults (ledger, publish, credentials) in each
    // of the 3 probe regions, and the canary's other own alarms in the probe regions and the home region.
    const names = d.ofType('AWS::CloudWatch::Alarm').map((a) => String(a.resolved.AlarmName));
    for (const fault of ['run-ledger', 'run-publish', 'run-credentials'])
      expect(
        names.filter((n) => n === `McpCanary/canary/${fault}`),
        fault,
      ).toHaveLength(3);
    expect(tally['AWS::CloudWatch::Alarm']!.api).toBe(32);
    const skipped = d.resources((r) => r.by !== 'moto').length;
    log(
      `example fleet: moto's CloudFormation skipped ${skipped} of ${d.resources().length} resources and reported CREATE_COMPLETE for every stack`,
    );
    expect(skipped).toBeGreaterThan(d.resources().length / 2);
  });

  it('resolves the alarm actions to the home topics the home stack created', () => {
    const topics = new Set(d.ofType('AWS::SNS::Topic').map((t) => t.ref));
    const actions = d
      .ofType('AWS::CloudWatch::Alarm')
      .flatMap((a) => [...((a.resolved.AlarmActions as string[]) ?? []), ...((a.resolved.OKActions as string[]) ?? [])]);
    expect(actions.length).toBeGreaterThan(21);
    for (const arn of actions) expect(topics.has(arn), arn).toBe(true);
  });
});

describe('a generated fleet of 30 targets × 3 regions, rehearsed and run', () => {
  let d: Deployment;
  let invoker: Invoker;
  let runs: Invocation[];
  let periodStart: Date;

  beforeAll(async () => {
    const user = new Aws(moto.endpoint);
    await createUserResources(user, fleet, token);
    user.destroy();
    d = await rehearse(assembly.dir, moto.endpoint, { stacks: (name) => name.startsWith(`${GENERATED}-`) });
    invoker = new Invoker(d);
    cleanups.push(
      () => invoker.close(),
      () => d.aws.destroy(),
    );
    log(`generated fleet: ${d.summary()}`);

    // The next five-minute boundary: a period of every schedule (one and five minutes) starts there.
    periodStart = new Date(Math.ceil(Date.now() / 300_000) * 300_000);
    const started = performance.now();
    // Two at a time, one per core: each is a Lambda sandbox of its own, not a share of this machine.
    runs = await mapTwoAtATime(schedulesOf(d), (s) => invoker.run(s, periodStart));
    log(`${runs.length} scheduled runs of the bundled handler: ${Math.round(performance.now() - started)} ms`);
  }, 180_000);

  // Stacks split by size only (infra/plan/stack-split.ts), far beyond what moto deploys in seconds: split stacks
  // and their deploy order are held by test/release/infra/scale.test.ts and stack-split.test.ts instead.
  it('deploys alarm shards and a maintenance stack, every resource accounted for', () => {
    const names = [...d.stacks.keys()];
    expect(names.filter((n) => n.startsWith(`${GENERATED}-alarms-`)).length).toBeGreaterThan(3);
    expect(names).toContain(`${GENERATED}-maintenance`);
    const tally = d.tally();
    log(`generated fleet: ${JSON.stringify(tally)}`);
    expect(tally['AWS::CloudWatch::AlarmMuteRule']).toEqual({ impossible: 1 });
    expect(tally['AWS::CloudWatch::Alarm']!.api).toBeGreaterThanOrEqual(90);
  });

  it('runs each schedule through its deployed function: every target judged in every region it is probed from', () => {
    for (const r of runs) expect(r.exitCode, `${r.schedule.region} ${r.schedule.name}: ${r.stderr}`).toBe(0);
    const records = runRecords(runs);
    const expected = fleet.targets.flatMap((t) => (t.probeRegions ?? GENERATED_REGIONS).map((region) => `${t.name} ${region}`));
    expect(records.map((r) => `${r.target} ${r.probeRegion}`).sort()).toEqual(expected.sort());
    const verdict = (target: string, region: string) => records.find((r) => r.target === target && r.probeRegion === region)?.verdict;
    expect(verdict('t-00', 'us-east-1')).toMatchObject({ outcome: 'healthy', revision: '2025-11-25' }); // secret as a JSON key
    expect(verdict('t-01', 'eu-west-1')).toMatchObject({ outcome: 'healthy', revision: '2026-07-28' }); // SSM parameter
    expect(verdict('t-04', 'ap-southeast-2')).toMatchObject({ outcome: 'healthy' }); // the five-minute schedule
    expect(verdict('t-07', 'us-east-1')).toMatchObject({ outcome: 'failed', failure: 'tool_error' }); // upstream key revoked
    expect(verdict(WRONG_CREDENTIAL.target, WRONG_CREDENTIAL.region)).toMatchObject({ outcome: 'failed', failure: 'auth' });
    expect(verdict(WRONG_CREDENTIAL.target, 'us-east-1')).toMatchObject({ outcome: 'healthy' });
    for (const r of runs) expect(JSON.stringify(r.logLines) + r.stderr).not.toContain(token);
  });

  it("lands every run's datapoint exactly where the deployed alarms read, in the period it was scheduled for", async () => {
    const landing = await checkLanding(d.aws.at('us-east-1').cloudWatch, NAMESPACE, runs, periodStart);
    expect(landing.problems).toEqual([]);
    // Three alarms per target, each reading the target's metric (metric math reads it twice), and the
    // canary owner's inconclusive alarm of each of the two rates.
    expect(new Set(landing.checked.map((r) => r.alarmName)).size).toBe(92);
    const service = [...new Set(landing.serviceMetrics.map((r) => `${r.namespace} ${r.metricName}`))].sort();
    log(`${landing.checked.length} alarm metric reads checked; service metrics moto cannot produce: ${service.join(', ')}`);
  });

  it('would see datapoints land where no alarm reads (the landing check is live)', async () => {
    // A function whose namespace disagrees with the alarms: its runs publish, and no alarm hears them.
    const [one] = schedulesOf(d).filter((s) => s.region === 'eu-west-1' && s.periodSeconds === 60);
    const fn = d.ofType('AWS::Lambda::Function').find((f) => f.region === 'eu-west-1' && String(f.ref).endsWith('-1m'))!;
    const env = (fn.resolved.Environment as { Variables: Record<string, string> }).Variables;
    await d.aws.at('eu-west-1').lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: fn.ref,
        Environment: { Variables: { ...env, MCP_CANARY_NAMESPACE: 'Elsewhere' } },
      }),
    );
    // An hour on, so the first runs' datapoints are out of every window the check reads.
    const later = new Date(periodStart.getTime() + 3_600_000);
    const moved = await invoker.run(one!, later);
    const targets = [...new Set(runRecords([moved]).map((r) => r.target))];
    expect(targets.length).toBeGreaterThan(0);
    const landing = await checkLanding(d.aws.at('us-east-1').cloudWatch, NAMESPACE, [moved], later);
    // Every metric read of every alarm of every target the run judged finds nothing there.
    expect(landing.problems).toHaveLength(targets.length * 5);
    // (moto's GetMetricData matches them in the other namespace; GetMetricStatistics does not.)
    for (const p of landing.problems)
      expect(p).toMatch(
        / reads \S+ of Verdict Target=t-\d+ per 60 s: GetMetricStatistics has \[\] in McpCanaryRehearsal, the runs make \[\{/,
      );
  });
});
