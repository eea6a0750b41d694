/**
 * The brief function's environment, read once at cold start. The CDK stack sets every variable; a
 * missing one is a deploy mistake and fails loudly, naming the variable (its Errors alarm tells the
 * canary owner; the page has gone out regardless).
 */
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
  /** Fleet quorum, when the config sets one. */
  quorum: 'MCP_CANARY_QUORUM',
  /** Comma-separated: every region the fleet probes from, when an event names none. */
  probeRegions: 'MCP_CANARY_PROBE_REGIONS',
} as const;

export interface BriefEnv {
  readonly topicArn: string;
  readonly fleet: string;
  readonly runLogGroup: string;
  readonly failureThreshold: number;
  /** @default - more than half of the target's regions */
  readonly quorum: number | undefined;
  readonly probeRegions: readonly string[];
}

export function readBriefEnv(env: NodeJS.ProcessEnv = process.env): BriefEnv {
  const failureThreshold = positiveInt(
    BriefEnvVar.failureThreshold,
    required(env, BriefEnvVar.failureThreshold, 'N, the runs in a row before an alarm (e.g. 3)'),
  );
  const quorumText = env[BriefEnvVar.quorum]?.trim();
  return {
    topicArn: required(env, BriefEnvVar.topicArn, 'the ARN of the briefs SNS topic'),
    fleet: required(env, BriefEnvVar.fleet, 'the fleet name that prefixes its alarm names'),
    runLogGroup: required(env, BriefEnvVar.runLogGroup, "the run functions' log group name, e.g. /mcp-canary/McpCanary/run"),
    failureThreshold,
    quorum: quorumText ? positiveInt(BriefEnvVar.quorum, quorumText) : undefined,
    probeRegions: required(env, BriefEnvVar.probeRegions, 'the comma-separated probe regions')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  };
}
