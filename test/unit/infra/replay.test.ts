/**
 * Replays run sequences through the synthesized alarms of the example fleet, with CloudWatch's
 * documented evaluation rules and arrival timing (support/timing.ts), and shows who is told, after
 * which run: the target owner's pager only for a real outage, after run N; tickets for what is wrong
 * but not down; the canary owner when the canary itself is broken; and the incident resolves under the
 * same alarm. The random-timing properties are in timing.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alarmsOf, render, type AlarmProps } from '../../helpers/infra/cfn.ts';
import { evaluateExpression, evaluateRange, type AlarmRule, type Series } from '../../helpers/infra/cloudwatch-alarm.ts';
import { resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { replayTimed, type Notification } from '../../helpers/infra/timing.ts';

const synth = synthFleet(smallFleet());
const alarms = [...synth.templates].filter(([n]) => n.includes('-alarms-')).flatMap(([, t]) => alarmsOf(t.toJSON() as never));
const target = (name: string) => alarms.filter((a) => a.AlarmName.startsWith(`McpCanary/${name}/`));
/** The home stack's canary-owner alarm on verdicts that cannot judge, for rates-prod's rate (every minute). */
const home = synth.json('McpCanary-home');
const inconclusive = alarmsOf(home as never).filter((a) => a.AlarmName === 'McpCanary/canary/inconclusive-1m');
const ratesAlarms = [...target('rates-prod'), ...inconclusive];
/** The home stack's alarms name its topics by Ref: read as the topic ARNs the alarm stacks write. */
const topicArns = new Map(
  resourcesOf(home, 'AWS::SNS::Topic').map(([id, p]) => [
    `\${${id}}`,
    `arn:\${AWS::Partition}:sns:us-east-1:\${AWS::AccountId}:${String(p.TopicName)}`,
  ]),
);
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
const PAGES = 'arn:${AWS::Partition}:sns:us-east-1:${AWS::AccountId}:McpCanary-pages';
const TICKETS = 'arn:${AWS::Partition}:sns:us-east-1:${AWS::AccountId}:McpCanary-tickets';
const OWNER = 'arn:${AWS::Partition}:sns:us-east-1:${AWS::AccountId}:McpCanary-canary-owner';

interface Scenario {
  readonly name: string;
  /** Per region; `all` for every region. */
  readonly runs: Readonly<Record<string, string>>;
  /** Expected: the run after which each first notification comes, or null for never. */
  readonly page: number | null;
  readonly ticket: number | null;
  readonly owner: number | null;
  readonly resolved: number | null;
}

const N = 3;
const all = (seq: string) => Object.fromEntries(REGIONS.map((r) => [r, seq]));
const scenarios: Scenario[] = [
  { name: 'Hard outage: every region fails', runs: all('FFFFF'), page: N, ticket: N, owner: null, resolved: null },
  { name: 'Outage, then recovery', runs: all('FFFFHH'), page: N, ticket: N, owner: null, resolved: 5 },
  {
    name: 'Two of three regions fail',
    runs: { ...all('HHHHH'), 'us-east-1': 'FFFFF', 'eu-west-1': 'FFFFF' },
    page: N,
    ticket: N,
    owner: null,
    resolved: null,
  },
  { name: 'One blip', runs: all('HFHHH'), page: null, ticket: null, owner: null, resolved: null },
  { name: 'Blips, never 3 in a row', runs: all('FFHFFH'), page: null, ticket: null, owner: null, resolved: null },
  { name: 'A recovered session (degraded once)', runs: all('HDHHH'), page: null, ticket: null, owner: null, resolved: null },
  { name: 'Slow for 3 runs (degraded)', runs: all('DDDD'), page: null, ticket: N, owner: null, resolved: null },
  { name: 'Healthy, with a certificate about to expire (warning)', runs: all('WWWW'), page: null, ticket: N, owner: null, resolved: null },
  {
    name: 'One region fails, below quorum',
    runs: { ...all('HHHHH'), 'eu-west-1': 'FFFFF' },
    page: null,
    ticket: N,
    owner: null,
    resolved: null,
  },
  {
    name: 'Failing every run, in one region or two by turns',
    runs: { 'us-east-1': 'FFFFF', 'eu-west-1': 'FHFHF', 'ap-southeast-2': 'HHHHH' },
    page: null,
    ticket: N,
    owner: null,
    resolved: null,
  },
  { name: 'The canary cannot judge (inconclusive)', runs: all('IIII'), page: null, ticket: N, owner: N, resolved: null },
  {
    name: 'One region fails, the others cannot judge',
    runs: { ...all('IIII'), 'eu-west-1': 'FFFF' },
    page: N,
    ticket: N,
    owner: N,
    resolved: null,
  },
  {
    name: 'One region fails, one cannot judge, one is healthy',
    runs: { 'us-east-1': 'HHHHH', 'eu-west-1': 'FFFFF', 'ap-southeast-2': 'IIIII' },
    page: null,
    ticket: N,
    owner: N,
    resolved: null,
  },
  {
    name: 'No runs recorded in one region',
    runs: { ...all('HHHHHH'), 'eu-west-1': '------' },
    page: null,
    ticket: null,
    owner: N,
    resolved: null,
  },
  { name: 'The canary is down everywhere', runs: all('------'), page: null, ticket: null, owner: N + 2, resolved: null },
  {
    name: 'Outage while one region records no runs',
    runs: { 'us-east-1': 'FFFF', 'eu-west-1': '----', 'ap-southeast-2': 'FFFF' },
    page: N,
    ticket: N,
    owner: N,
    resolved: null,
  },
  {
    name: 'Outage, then the canary cannot judge anywhere',
    runs: all('FFFFIIIIIIII'),
    page: N,
    ticket: N,
    owner: 4 + N,
    resolved: null,
  },
  {
    name: 'Outage, then only the failing region can judge',
    runs: { ...all('FFFFIIIIIIII'), 'eu-west-1': 'FFFFFFFFFFFF' },
    page: N,
    ticket: N,
    owner: 4 + N,
    resolved: null,
  },
  {
    name: 'Outage, then one region healthy while the others cannot judge',
    runs: { ...all('FFFFIIIIIIII'), 'eu-west-1': 'FFFFHHHHHHHH' },
    page: N,
    ticket: N,
    owner: 4 + N,
    resolved: null,
  },
  {
    name: 'Outage while the run ledger fails in one region',
    runs: { 'us-east-1': 'FFFF', 'eu-west-1': 'LLLL', 'ap-southeast-2': 'FFFF' },
    page: N,
    ticket: N,
    owner: N,
    resolved: null,
  },
  {
    name: 'Recovery while one region cannot publish',
    runs: { 'us-east-1': 'FFFFHHHH', 'eu-west-1': 'FFFFPPPP', 'ap-southeast-2': 'FFFFHHHH' },
    page: N,
    ticket: N,
    owner: 4 + N,
    resolved: 5,
  },
  {
    name: 'Outage, then the canary falls silent everywhere',
    runs: all('FFFF--------'),
    page: N,
    ticket: N,
    owner: 4 + N + 2,
    resolved: null,
  },
  {
    name: 'Outage, then silent but for one failing region',
    runs: { ...all('FFFF--------'), 'eu-west-1': 'FFFFFFFFFFFF' },
    page: N,
    ticket: N,
    owner: 4 + N,
    resolved: null,
  },
];

function first(ns: readonly Notification[], topic: string, states: ReadonlyArray<Notification['state']>): number | null {
  return ns.find((n) => states.includes(n.state) && n.topics.includes(topic))?.afterRun ?? null;
}

function outcomeOf(s: Scenario) {
  const ns = replayTimed(ratesAlarms, { runs: s.runs }).map((n) => ({ ...n, topics: n.topics.map((t) => topicArns.get(t) ?? t) }));
  return {
    page: first(ns, PAGES, ['ALARM']),
    ticket: first(ns, TICKETS, ['ALARM']),
    owner: first(ns, OWNER, ['ALARM', 'INSUFFICIENT_DATA']),
    resolved: first(ns, PAGES, ['OK']),
    ns,
  };
}

describe('the evaluator follows the CloudWatch User Guide', () => {
  // "How alarm state is evaluated when data is missing": five points fetched (0 ok, X breaching, - missing).
  const rule = (m: number, t: AlarmRule['treatMissingData']): AlarmRule => ({
    comparison: 'GreaterThanOrEqualToThreshold',
    threshold: 1,
    evaluationPeriods: 3,
    datapointsToAlarm: m,
    treatMissingData: t,
  });
  const points = (s: string) => s.split(' ').map((c) => (c === '-' ? undefined : c === 'X' ? 1 : 0));
  // Both of the guide's tables, every column; "keep" is "Retain current state".
  it.each([
    ['0 - X - X', 3, 'OK', 'OK', 'OK', 'OK'],
    ['0 - - - -', 3, 'OK', 'OK', 'OK', 'OK'],
    ['- - - - -', 3, 'INSUFFICIENT_DATA', 'keep', 'ALARM', 'OK'],
    ['0 X X - X', 3, 'ALARM', 'ALARM', 'ALARM', 'ALARM'],
    ['- - - - X', 3, 'INSUFFICIENT_DATA', 'keep', 'ALARM', 'OK'],
    ['X - - - -', 3, 'ALARM', 'keep', 'ALARM', 'OK'],
    ['0 - X - X', 2, 'ALARM', 'ALARM', 'ALARM', 'ALARM'],
    ['0 0 X 0 X', 2, 'ALARM', 'ALARM', 'ALARM', 'ALARM'],
    ['0 - X - -', 2, 'OK', 'OK', 'ALARM', 'OK'],
    ['- - - - 0', 2, 'OK', 'OK', 'ALARM', 'OK'],
    ['- - - - X', 2, 'INSUFFICIENT_DATA', 'keep', 'ALARM', 'OK'],
  ] as const)(
    'documented row "%s" with %i of 3: missing → %s, ignore → %s, breaching → %s, notBreaching → %s',
    (row, m, missing, ignore, breaching, notBreaching) => {
      expect(evaluateRange(rule(m, 'missing'), points(row)).state).toBe(missing);
      for (const current of ['OK', 'ALARM'] as const) {
        expect(evaluateRange(rule(m, 'ignore'), points(row), current).state).toBe(ignore === 'keep' ? current : ignore);
      }
      expect(evaluateRange(rule(m, 'breaching'), points(row)).state).toBe(breaching);
      expect(evaluateRange(rule(m, 'notBreaching'), points(row)).state).toBe(notBreaching);
    },
  );

  it('computes the documented metric math examples', () => {
    const ts = (vals: Array<number | null>): Series => new Map(vals.flatMap((v, i) => (v === null ? [] : [[i, v] as [number, number]])));
    const list = (s: Series, n: number) => Array.from({ length: n }, (_, i) => s.get(i) ?? null);
    const data = new Map([
      ['metric1', ts([30, 20, 0, 0])],
      ['metric2', ts([20, null, 20, null])],
    ]);
    expect(list(evaluateExpression('(metric1 < metric2)', data), 4)).toEqual([0, 0, 1, 0]);
    expect(list(evaluateExpression('(metric1 >= 30)', data), 4)).toEqual([1, 0, 0, 0]);
    expect(list(evaluateExpression('(metric1 > 15 AND metric2 > 15)', data), 4)).toEqual([1, 0, 0, 0]);
    const ifData = new Map([
      ['metric1', ts([1, 1, 0, 0, null])],
      ['metric2', ts([30, null, 0, 0, 30])],
      ['metric3', ts([0, 0, 20, null, 20])],
    ]);
    expect(list(evaluateExpression('IF(metric1, metric2, metric3)', ifData), 5)).toEqual([30, 0, 20, null, null]);
    expect(list(evaluateExpression('IF(metric1, 5, metric3)', ifData), 5)).toEqual([5, 5, 20, null, null]);
    expect(list(evaluateExpression('IF(metric1, metric2, 5)', ifData), 5)).toEqual([30, 0, 5, 5, null]);
  });
});

describe('run sequences through the synthesized alarms', () => {
  it.each(scenarios)('$name', (s) => {
    const got = outcomeOf(s);
    expect({ page: got.page, ticket: got.ticket, owner: got.owner, resolved: got.resolved }).toEqual({
      page: s.page,
      ticket: s.ticket,
      owner: s.owner,
      resolved: s.resolved,
    });
  });

  it('pages a hard outage after run N and not after run N−1', () => {
    for (const n of [2, 3, 5]) {
      const fleet = synthFleet({ ...smallFleet(), failureThreshold: n });
      const critical = [...fleet.templates]
        .flatMap(([, t]) => alarmsOf(t.toJSON() as never))
        .find((a) => a.AlarmName === 'McpCanary/rates-prod/critical')!;
      const pages = replayTimed([critical], { runs: all('F'.repeat(n + 2)) }).filter((x) => x.state === 'ALARM');
      expect(pages.map((p) => p.afterRun)).toEqual([n]);
      expect(replayTimed([critical], { runs: all('F'.repeat(n - 1)), tail: 0 }).filter((x) => x.state === 'ALARM')).toEqual([]);
    }
  });

  it('resolves an incident on the pages topic, so the pager closes it under the same alarm name', () => {
    const { ns } = outcomeOf(scenarios[1]!);
    const critical = ns.filter((n) => n.alarm === 'McpCanary/rates-prod/critical');
    expect(critical.map((n) => [n.afterRun, n.state, n.topics])).toEqual([
      [3, 'ALARM', [PAGES]],
      [5, 'OK', [PAGES]],
    ]);
  });

  it('never pages the target owner for the canary failing, a blip, a recovered session, a warning or one region', () => {
    for (const s of scenarios.filter((x) => x.page === null))
      expect(outcomeOf(s).ns.filter((n) => n.topics.includes(PAGES) && n.state !== 'OK')).toEqual([]);
  });

  it('keeps an open page open while the canary is silent, and tells the canary owner instead', () => {
    for (const s of scenarios.filter((x) => x.name.startsWith('Outage, then'))) {
      if (s.resolved !== null) continue;
      const { ns } = outcomeOf(s);
      expect(ns.filter((n) => n.alarm.endsWith('/critical')).map((n) => n.state)).toEqual(['ALARM']);
      expect(ns.some((n) => n.topics.includes(OWNER))).toBe(true);
    }
  });

  it('is the table in docs/alarms.md', () => {
    const doc = readFileSync(new URL('../../../docs/alarms.md', import.meta.url), 'utf8');
    const section = /<!-- replay-table:start -->\n([\s\S]*?)\n<!-- replay-table:end -->/.exec(doc)?.[1];
    expect(section, 'docs/alarms.md has no replay table markers').toBeDefined();
    expect(section!.trim()).toBe(replayTable().trim());
  });

  it('captures the page a hard outage sends (MCP_CANARY_CAPTURE_DIR)', () => {
    const ns = outcomeOf(scenarios[0]!).ns;
    const alarm = ratesAlarms.find((a) => a.AlarmName.endsWith('/critical'))!;
    const page = pageOf(
      alarm,
      ns.find((n) => n.alarm === alarm.AlarmName && n.state === 'ALARM')!,
    );
    expect(page.NewStateValue).toBe('ALARM');
    expect(page.AlarmDescription).toContain('Endpoint: https://rates.example.com/mcp');
    expect(page.NewStateReason).toBe(
      'Threshold Crossed: 3 out of the last 3 datapoints [3.0 (29/11/26 22:02:00), 3.0 (29/11/26 22:01:00), 3.0 (29/11/26 22:00:00)] was greater than or equal to the threshold (2.0) (minimum 3 datapoints for OK -> ALARM transition).',
    );
    const dir = process.env.MCP_CANARY_CAPTURE_DIR;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'page.json'), `${JSON.stringify(page, null, 2)}\n`);
      writeFileSync(join(dir, 'replay-table.md'), `${replayTable()}\n`);
    }
  });
});

/** The markdown table of the scenarios, as the replay computes it. */
function replayTable(): string {
  const cell = (n: number | null) => (n === null ? '—' : `run ${n}`);
  const runs = (r: Readonly<Record<string, string>>) => {
    const seqs = REGIONS.map((x) => r[x]!);
    return seqs.every((q) => q === seqs[0]) ? `all: \`${seqs[0]}\`` : REGIONS.map((x) => `${x}: \`${r[x]}\``).join('<br>');
  };
  const rows = scenarios.map((s) => {
    const o = outcomeOf(s);
    return `| ${s.name} | ${runs(s.runs)} | ${cell(o.page)} | ${cell(o.ticket)} | ${cell(o.owner)} | ${cell(o.resolved)} |`;
  });
  return [
    '| Scenario (N = 3, quorum 2 of 3) | Runs per region | Page (critical) | Ticket (warning) | Canary owner | Page resolved |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The SNS message CloudWatch publishes for an alarm action, in its documented JSON shape. */
function pageOf(alarm: AlarmProps, n: Notification) {
  const account = '111122223333';
  const resolve = (s: string) => s.replace('${AWS::Partition}', 'aws').replace('${AWS::AccountId}', account);
  const start = Date.UTC(2026, 10, 29, 22, 0, 0);
  const at = (run: number) => new Date(start + (run - 1) * 60_000);
  const stamp = (d: Date) =>
    `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCFullYear()).slice(2)} ${d.toISOString().slice(11, 19)}`;
  const evaluated = n.evaluated.map((e, i, arr) => ({ ...e, run: n.afterRun - (arr.length - 1 - i) })).reverse();
  const m = alarm.DatapointsToAlarm;
  const reason = `Threshold Crossed: ${m} out of the last ${alarm.EvaluationPeriods} datapoints [${evaluated.map((e) => `${(e.value ?? 0).toFixed(1)} (${stamp(at(e.run))})`).join(', ')}] was greater than or equal to the threshold (${alarm.Threshold.toFixed(1)}) (minimum ${m} datapoints for OK -> ALARM transition).`;
  return {
    AlarmName: alarm.AlarmName,
    AlarmDescription: alarm.AlarmDescription,
    AWSAccountId: account,
    NewStateValue: n.state,
    NewStateReason: reason,
    StateChangeTime: new Date(start + n.at * 1000).toISOString().replace('Z', '+0000'),
    Region: 'US East (N. Virginia)',
    AlarmArn: `arn:aws:cloudwatch:us-east-1:${account}:alarm:${alarm.AlarmName}`,
    OldStateValue: n.from,
    OKActions: (alarm.OKActions ?? []).map(render).map(resolve),
    AlarmActions: (alarm.AlarmActions ?? []).map(render).map(resolve),
    InsufficientDataActions: (alarm.InsufficientDataActions ?? []).map(render).map(resolve),
    Trigger: {
      Period: alarm.Metrics!.find((x) => x.MetricStat)!.MetricStat!.Period,
      EvaluationPeriods: alarm.EvaluationPeriods,
      DatapointsToAlarm: alarm.DatapointsToAlarm,
      ComparisonOperator: alarm.ComparisonOperator,
      Threshold: alarm.Threshold,
      TreatMissingData: alarm.TreatMissingData,
      EvaluateLowSampleCountPercentile: '',
      Metrics: alarm.Metrics,
    },
  };
}
