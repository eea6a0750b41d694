/**
 * One alarm change → one brief on the briefs topic. Reads the target's recent run records from every
 * probe region's run log, composes, publishes. The page never waits for this: CloudWatch sent it to the
 * pages topic already, so a failure here costs the brief, not the page.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { composeBrief, type Brief } from './compose.ts';
import { AlarmKind } from '../../base/common/alarm-words.ts';
import type { BriefEnv } from '../../base/config/env/brief-env.ts';
import { readAlarmChange } from './event.ts';
import { readRunRecords } from './records.ts';

/** Runs of history read before the change: enough for N in a row and where the failure began. */
export const LOOKBACK_RUNS = 20;
/** When the event names no period (it always does for our alarms). */
export const DEFAULT_PERIOD_SECONDS = 60;
/** Records logged just after the change (a run that finished late) still belong to it. */
export const LOOKAHEAD_MS = 60_000;

export interface BriefDeps {
  readonly env: BriefEnv;
  readonly sns: SNSClient;
  readonly logs: (region: string) => CloudWatchLogsClient;
}

export type BriefResult =
  | { readonly published: false; readonly reason: string }
  | { readonly published: true; readonly dedupKey: string; readonly messageId: string | undefined; readonly brief: Brief };

export async function briefAlarmChange(event: unknown, deps: BriefDeps): Promise<BriefResult> {
  const { env } = deps;
  const change = readAlarmChange(event, env.fleet, env.probeRegions);
  if (!change) return { published: false, reason: `not a state change of one of ${env.fleet}'s target alarms` };
  // The dead-man's INSUFFICIENT_DATA after runs had arrived is every region falling silent: its loudest case.
  // Any other INSUFFICIENT_DATA (a new alarm, a target alarm keeping state) has nothing to brief.
  const silent =
    change.kind === AlarmKind.deadMan &&
    change.state === 'INSUFFICIENT_DATA' &&
    change.previousState !== undefined &&
    change.previousState !== 'INSUFFICIENT_DATA';
  if (change.state === 'INSUFFICIENT_DATA' && !silent) return { published: false, reason: 'INSUFFICIENT_DATA: nothing to brief' };
  // The dead-man back from every region's silence (INSUFFICIENT_DATA that was not the new alarm's first
  // state) resolves what its INSUFFICIENT_DATA brief said.
  const backFromSilence =
    change.kind === AlarmKind.deadMan &&
    change.state === 'OK' &&
    change.previousState === 'INSUFFICIENT_DATA' &&
    !change.previousReason.startsWith('Unchecked: Initial alarm creation');
  if (change.state === 'OK' && change.previousState !== 'ALARM' && !backFromSilence) {
    return { published: false, reason: `OK after ${change.previousState ?? 'nothing'}: no alarm to resolve` };
  }
  const periodMs = (change.periodSeconds ?? DEFAULT_PERIOD_SECONDS) * 1000;
  const evidence = await readRunRecords(deps.logs, {
    logGroupName: env.runLogGroup,
    target: change.target,
    regions: change.regions,
    startTime: change.changedAt.getTime() - LOOKBACK_RUNS * periodMs,
    endTime: change.changedAt.getTime() + LOOKAHEAD_MS,
  });
  const brief = composeBrief({
    change,
    evidence,
    failureThreshold: env.failureThreshold,
    // The quorum the synth's rule gave the target's alarms, by its number of regions; 1 for a count this
    // deploy wrote no alarm for (an alarm older than it): the alarm fired, so at least one region failed.
    quorum: env.quorums.get(change.regions.length) ?? 1,
  });
  const out = await deps.sns.send(
    new PublishCommand({
      TopicArn: env.topicArn,
      Subject: brief.subject,
      // Chat integrations, queues and functions get the structured notification; email gets the text.
      MessageStructure: 'json',
      Message: JSON.stringify({ default: JSON.stringify(brief.chat), email: brief.text }),
    }),
  );
  return { published: true, dedupKey: brief.dedupKey, messageId: out.MessageId, brief };
}
