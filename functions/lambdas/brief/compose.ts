/**
 * An alarm change plus the run records behind it → the brief: a Gatus-worded headline ("rates-prod has
 * failed 3 time(s) in a row in 2 of 3 regions"), each region with what its last run saw, the failure
 * class, era, server, first and last failure time, the runbook; as plain text for email and as an
 * Amazon Q Developer (AWS Chatbot) custom notification for chat. Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';
import type { RunRecord } from '../../base/common/run-record.ts';
import { Outcome, type ProbeResult } from '../../base/common/verdict.ts';
import { oneLine } from '../../base/common/redact.ts';
import { AlarmKind } from '../../base/common/alarm-words.ts';
import type { AlarmChange } from './event.ts';
import type { RegionRecords } from './records.ts';

/** Chat messages get long fast; the detail lines are cut to fit. */
export const MAX_DETAIL_CHARS = 300;
export const MAX_PROBES_PER_REGION = 6;
/** SNS: ASCII, under 100 characters. */
export const MAX_SUBJECT_CHARS = 99;

/** The custom-notification event format of Amazon Q Developer in chat applications (AWS Chatbot). */
export interface ChatNotification {
  readonly version: '1.0';
  readonly source: 'custom';
  readonly id: string;
  readonly content: {
    readonly textType: 'client-markdown';
    readonly title: string;
    readonly description: string;
    readonly nextSteps: readonly string[];
    readonly keywords: readonly string[];
  };
  readonly metadata: {
    readonly threadId: string;
    readonly summary: string;
    readonly eventType: string;
    readonly relatedResources: readonly string[];
    readonly additionalContext: Readonly<Record<string, string>>;
  };
}

export interface Brief {
  /** Same alarm, same transition, same time → same key: a retried or duplicated event dedups downstream. */
  readonly dedupKey: string;
  readonly subject: string;
  readonly text: string;
  readonly chat: ChatNotification;
}

export interface BriefInput {
  readonly change: AlarmChange;
  readonly evidence: readonly RegionRecords[];
  /** N. */
  readonly failureThreshold: number;
  /** Regions failing at once that page. */
  readonly quorum: number;
}

interface RegionView {
  readonly region: string;
  readonly last: RunRecord | undefined;
  /** Newest-first: the records that count as bad for this alarm kind, up to the newest run. */
  readonly streak: readonly RunRecord[];
  /** Newest-first: the latest bad stretch, even if runs recovered after it (for a resolved alarm). */
  readonly episode: readonly RunRecord[];
  readonly error: string | undefined;
}

export function dedupKey(change: Pick<AlarmChange, 'alarmName' | 'state' | 'changedAt'>): string {
  return createHash('sha256').update(`${change.alarmName}\n${change.state}\n${change.changedAt.toISOString()}`).digest('hex').slice(0, 32);
}

export function composeBrief(input: BriefInput): Brief {
  const { change } = input;
  const bad = isBad(change.kind);
  const views = change.regions.map((region) =>
    regionView(
      region,
      input.evidence.find((x) => x.region === region),
      bad,
    ),
  );
  const headline = headlineOf(input, views);
  const key = dedupKey(change);
  const facts = factsOf(input, views);
  const regionLines = views.flatMap((v) => regionBlock(v, change.kind, input.failureThreshold));
  return {
    dedupKey: key,
    subject: subjectOf(`${change.state}: ${headline}`),
    text: briefText(change, headline, key, facts, regionLines),
    chat: chatNotification(change, headline, key, facts, regionLines),
  };
}

/** One region's records, read for this alarm: the last run, the bad streak up to it, the latest bad stretch. */
function regionView(region: string, e: RegionRecords | undefined, bad: (r: RunRecord) => boolean): RegionView {
  const records = e?.records ?? [];
  const streak: RunRecord[] = [];
  for (let i = records.length - 1; i >= 0 && bad(records[i]!); i--) streak.push(records[i]!);
  let end = records.length - 1;
  while (end >= 0 && !bad(records[end]!)) end--;
  const episode: RunRecord[] = [];
  for (let i = end; i >= 0 && bad(records[i]!); i--) episode.push(records[i]!);
  return { region, last: records.at(-1), streak, episode, error: e?.error };
}

/** The facts a brief states, in order, and the values its chat context repeats. */
interface BriefFacts {
  readonly lines: ReadonlyArray<readonly [string, string]>;
  readonly failureClass: string | undefined;
  readonly firstFailureAt: string | undefined;
  readonly lastFailureAt: string | undefined;
  readonly era: string | undefined;
  readonly server: string | undefined;
}

function factsOf(input: BriefInput, views: readonly RegionView[]): BriefFacts {
  const failures = views.flatMap((v) => v.episode).sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const lastBad = failures.at(-1);
  const latest = input.evidence.flatMap((e) => e.records).sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
  const withServer = latest.find((r) => r.verdict.server !== null)?.verdict.server;
  const f = {
    failureClass: lastBad ? (lastBad.verdict.failure ?? lastBad.verdict.outcome) : undefined,
    firstFailureAt: failures[0]?.startedAt,
    lastFailureAt: lastBad?.startedAt,
    era: latest.find((r) => r.verdict.revision !== null)?.verdict.revision ?? undefined,
    server: withServer ? `${withServer.name} ${withServer.version}` : undefined,
  };
  const all: Array<[string, string | undefined]> = [
    ['Endpoint', input.change.endpoint],
    ['Failure class', f.failureClass],
    ['First failure', f.firstFailureAt],
    ['Last failure', f.lastFailureAt],
    ['Era', f.era],
    ['Server', f.server],
  ];
  return { ...f, lines: all.filter((l): l is [string, string] => Boolean(l[1])) };
}

function reproduceLine(change: AlarmChange): string | undefined {
  return change.endpoint ? `npx mcp-canary check ${change.endpoint}` : undefined;
}

function transitionOf(change: AlarmChange): string {
  return `${change.previousState ?? '?'} → ${change.state} at ${change.changedAt.toISOString()}`;
}

/** The brief as plain text: the email and the SNS message. */
function briefText(change: AlarmChange, headline: string, key: string, facts: BriefFacts, regionLines: readonly string[]): string {
  const reproduce = reproduceLine(change);
  return [
    `${icon(change)} ${change.state}: ${headline}`,
    '',
    ...facts.lines.map(([k, v]) => `${k}: ${v}`),
    '',
    ...regionLines,
    '',
    `Runbook: ${change.runbookUrl ?? 'none set (add runbookUrl to the fleet config)'}`,
    ...(reproduce ? [`Reproduce: ${reproduce}`] : []),
    `Alarm: ${change.alarmName}, ${transitionOf(change)}`,
    `Dedup key: ${key}`,
  ].join('\n');
}

/** The brief as an AWS Chatbot custom notification (Slack, Teams). */
function chatNotification(
  change: AlarmChange,
  headline: string,
  key: string,
  facts: BriefFacts,
  regionLines: readonly string[],
): ChatNotification {
  const reproduce = reproduceLine(change);
  const description = [...facts.lines.map(([k, v]) => `*${k}:* ${k === 'Endpoint' ? v : `\`${v}\``}`), '', ...regionLines].join('\n');
  return {
    version: '1.0',
    source: 'custom',
    id: key,
    content: {
      textType: 'client-markdown',
      title: `${icon(change)} ${headline}`,
      description,
      nextSteps: [
        ...(change.runbookUrl ? [`Open the runbook: ${change.runbookUrl}`] : ['Add a runbookUrl to the fleet config']),
        ...(reproduce ? [`Reproduce: \`${reproduce}\``] : []),
        `Alarm \`${change.alarmName}\`: ${transitionOf(change)}`,
      ],
      keywords: ['mcp-canary', change.target, change.kind, change.state, ...(facts.failureClass ? [facts.failureClass] : [])],
    },
    metadata: {
      threadId: change.alarmName,
      summary: `${change.state}: ${headline}`,
      eventType: `mcp-canary.${change.kind}.${change.state}`,
      relatedResources: change.alarmArn ? [change.alarmArn] : [],
      additionalContext: compact({
        dedupKey: key,
        alarmName: change.alarmName,
        target: change.target,
        kind: change.kind,
        state: change.state,
        previousState: change.previousState,
        regions: change.regions.join(','),
        failureClass: facts.failureClass,
        firstFailureAt: facts.firstFailureAt,
        lastFailureAt: facts.lastFailureAt,
        era: facts.era,
        server: facts.server,
        endpoint: change.endpoint,
        runbookUrl: change.runbookUrl,
      }),
    },
  };
}

/** What counts as "in a row" for each kind of alarm. */
function isBad(kind: AlarmKind): (r: RunRecord) => boolean {
  if (kind === AlarmKind.critical) return (r) => r.verdict.outcome === Outcome.failed;
  if (kind === AlarmKind.warning) return (r) => r.verdict.outcome !== Outcome.healthy;
  return () => false;
}

function headlineOf(input: BriefInput, views: readonly RegionView[]): string {
  const { change, failureThreshold: n, quorum } = input;
  const t = change.target;
  const total = views.length;
  const inARow = views.filter((v) => v.streak.length >= n);
  const names = (vs: readonly RegionView[]) => vs.map((v) => v.region).join(', ');
  if (change.state === 'INSUFFICIENT_DATA') return `no run of ${t} in any of its ${total} regions: the canary is silent everywhere`;
  if (change.state === 'ALARM') {
    if (change.kind === AlarmKind.critical) {
      if (inARow.length >= quorum) return `${t} has failed ${n} time(s) in a row in ${inARow.length} of ${total} regions`;
      // Below the quorum, the page came from the regions that judge: the others could not (alarm-math.ts).
      const unjudged = views.filter((v) => v.last?.verdict.outcome === Outcome.inconclusive);
      if (inARow.length > 0 && unjudged.length > 0)
        return `${t} has failed ${n} time(s) in a row in ${inARow.length} of ${total} regions; ${unjudged.length} could not judge it (inconclusive)`;
      // The records of the runs that paged are still on their way.
      return `${t} has failed ${n} time(s) in a row in at least ${quorum} of ${total} regions`;
    }
    if (change.kind === AlarmKind.warning) {
      const where = inARow.length > 0 ? ` in ${names(inARow)}` : '';
      // The kinds of the regions named: a region that is not unhealthy N in a row is not in the sentence.
      return `${t} has been unhealthy ${n} time(s) in a row${where} (${warningKinds(inARow.length > 0 ? inARow : views)})`;
    }
    const silent = views.filter((v) => isSilent(v, change, n));
    return `no run of ${t} was recorded in ${silent.length > 0 ? names(silent) : `some of its ${total} regions`} for ${n} period(s): the canary is broken there`;
  }
  if (change.kind === AlarmKind.deadMan) return `runs of ${t} are recorded again in its regions`;
  const fine = views.filter((v) => v.last && isBad(change.kind)(v.last) === false);
  return `${t} is resolved: its last run was ${change.kind === AlarmKind.critical ? 'not failing' : 'healthy'} in ${fine.length} of ${total} regions`;
}

function warningKinds(views: readonly RegionView[]): string {
  const seen = new Set(
    views.map((v) => v.streak[0]?.verdict.outcome).filter((o): o is Outcome => o !== undefined && o !== Outcome.healthy),
  );
  return seen.size > 0 ? [...seen].join(', ') : 'degraded, failing below quorum, or inconclusive';
}

function isSilent(v: RegionView, change: AlarmChange, n: number): boolean {
  if (!v.last) return true;
  if (!change.periodSeconds) return false;
  return Date.parse(v.last.startedAt) < change.changedAt.getTime() - n * change.periodSeconds * 1000;
}

function regionBlock(v: RegionView, kind: AlarmKind, n: number): string[] {
  if (v.error && !v.last) return [`${v.region}: ⚠️ its run log could not be read: ${v.error}`];
  if (!v.last) return [`${v.region}: ⚫ no run recorded in the window read`];
  const r = v.last.verdict;
  const mark = r.outcome === Outcome.healthy ? '✅' : r.outcome === Outcome.failed ? '❌' : '⚠️';
  const run =
    v.streak.length > 0 && kind !== AlarmKind.deadMan
      ? `${r.outcome} ${v.streak.length >= n ? `${v.streak.length} time(s) in a row` : `${v.streak.length} time(s)`}${r.failure ? ` (${r.failure})` : ''}`
      : `${r.outcome}${r.failure ? ` (${r.failure})` : ''}`;
  const lines = [`${v.region}: ${mark} ${run}, last run ${v.last.startedAt} (${r.durationMs} ms)`, `    ${cut(r.detail)}`];
  if (r.outcome !== Outcome.healthy) lines.push(...r.probes.slice(0, MAX_PROBES_PER_REGION).map(probeLine));
  // The run's W3C trace id: every request of that run carried it, so the server's own traces are one search away.
  if (r.outcome !== Outcome.healthy && r.traceId) lines.push(`    trace ${r.traceId}`);
  return lines;
}

function probeLine(p: ProbeResult): string {
  return `    ${p.ok ? '✅' : '❌'} ${p.name} ${p.durationMs} ms: ${p.failure ? `${p.failure}: ` : ''}${cut(p.detail)}`;
}

function icon(change: AlarmChange): string {
  if (change.state === 'OK') return '✅';
  if (change.kind === AlarmKind.critical) return '🔴';
  if (change.kind === AlarmKind.warning) return '🟠';
  return '⚫';
}

function cut(s: string): string {
  return oneLine(s, MAX_DETAIL_CHARS);
}

/** SNS subjects are printable ASCII without line breaks, under 100 characters. */
export function subjectOf(s: string): string {
  const ascii = s
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return ascii.length > MAX_SUBJECT_CHARS ? `${ascii.slice(0, MAX_SUBJECT_CHARS - 3)}...` : ascii;
}

function compact(o: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}
