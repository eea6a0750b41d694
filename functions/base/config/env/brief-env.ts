/**
 * The brief function's environment, read once at cold start. The CDK stack sets every variable; a
 * missing one is a deploy mistake and fails loudly, naming the variable (its Errors alarm tells the
 * canary owner; the page has gone out regardless).
 */
import { configError } from '../../common/errors.ts';
import { positiveInt, required } from './env-utils.ts';

export const BriefEnvVar = {
  /** SNS topic the brief is published to. */
  topicArn: 'MCP_CANARY_BRIEF_TOPIC_ARN',
  /** The fleet name: alarm names start with `<fleet>-`. */
  fleet: 'MCP_CANARY_FLEET',
  /** The run functions' log group, same name in every probe region. */
  runLogGroup: 'MCP_CANARY_RUN_LOG_GROUP',
  /** N: runs in a row. */
  failureThreshold: 'MCP_CANARY_FAILURE_THRESHOLD',
  /**
   * k by R: each target's quorum by its number of probe regions, as the synth's rule gave it
   * (functions/base/config/schema/target-rule.ts), e.g. `1:1,3:2`; `quorumsText` writes it.
   */
  quorum: 'MCP_CANARY_QUORUM',
  /** Comma-separated: every region the fleet probes from, when an event names none. */
  probeRegions: 'MCP_CANARY_PROBE_REGIONS',
} as const;

export interface BriefEnv {
  readonly topicArn: string;
  readonly fleet: string;
  readonly runLogGroup: string;
  readonly failureThreshold: number;
  /** The quorum of a target with this many probe regions: the rule's answer, written at synth. */
  readonly quorums: ReadonlyMap<number, number>;
  readonly probeRegions: readonly string[];
}

export function readBriefEnv(env: NodeJS.ProcessEnv = process.env): BriefEnv {
  const failureThreshold = positiveInt(
    BriefEnvVar.failureThreshold,
    required(env, BriefEnvVar.failureThreshold, 'N, the runs in a row before an alarm (e.g. 3)'),
  );
  return {
    topicArn: required(env, BriefEnvVar.topicArn, 'the ARN of the briefs SNS topic'),
    fleet: required(env, BriefEnvVar.fleet, 'the fleet name that prefixes its alarm names'),
    runLogGroup: required(env, BriefEnvVar.runLogGroup, "the run functions' log group name, e.g. /mcp-canary/McpCanary/run"),
    failureThreshold,
    quorums: readQuorums(required(env, BriefEnvVar.quorum, 'the quorum by number of probe regions, e.g. 1:1,3:2')),
    probeRegions: required(env, BriefEnvVar.probeRegions, 'the comma-separated probe regions')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  };
}

/** `{1 → 1, 3 → 2}` → `1:1,3:2`, by number of regions: the value the stack writes. */
export function quorumsText(quorums: ReadonlyMap<number, number>): string {
  return [...quorums]
    .sort(([a], [b]) => a - b)
    .map(([regions, quorum]) => `${regions}:${quorum}`)
    .join(',');
}

function readQuorums(text: string): Map<number, number> {
  return new Map(
    text.split(',').map((entry): [number, number] => {
      const [regions, quorum, ...rest] = entry.split(':').map((x) => x.trim());
      if (!regions || !quorum || rest.length > 0)
        throw configError(
          `Environment variable ${BriefEnvVar.quorum} must list regions:quorum pairs, e.g. 1:1,3:2; got ${JSON.stringify(entry)} in ${JSON.stringify(text)}.`,
        );
      return [positiveInt(BriefEnvVar.quorum, regions), positiveInt(BriefEnvVar.quorum, quorum)];
    }),
  );
}
