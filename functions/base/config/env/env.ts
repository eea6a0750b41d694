/**
 * The scheduled run's environment, read once when the function's container starts. The CDK stack sets
 * these; a missing one is a deploy mistake, so it fails the cold start loudly (the Lambda Errors
 * alarm and the dead-man heartbeat both see it) with the variable's name and the fix.
 */
import { configError } from '../../common/errors.ts';
import { namespaceProblem } from '../aws/aws-names.ts';
import { required } from './env-utils.ts';
import { DEFAULT_NAMESPACE } from '../schema/fleet.ts';
import { ProxyRuntime } from '../schema/proxy.ts';
import { partitionOf } from '../aws/regions.ts';

export const EnvVar = {
  homeRegion: 'MCP_CANARY_HOME_REGION',
  namespace: 'MCP_CANARY_NAMESPACE',
  /** The DynamoDB table of the run ledger (functions/lambdas/run/ledger.ts), in the probe region. Unset: every delivery runs. */
  runLedger: 'MCP_CANARY_RUN_LEDGER',
  /** The fleet's egress proxy as JSON (functions/base/config/schema/proxy.ts `ProxyRuntime`): url, credentials reference, noProxy. Unset: direct. */
  proxy: 'MCP_CANARY_PROXY',
  /** Set by the Lambda runtime: the region this copy of the function probes from. */
  probeRegion: 'AWS_REGION',
} as const;

export interface RunEnv {
  /** Where metrics go (and where the alarms live), whatever region the function runs in. */
  readonly homeRegion: string;
  /** CloudWatch namespace of the metrics. @default - `McpCanary` */
  readonly namespace: string;
  /** The region the function runs in: the run record's `probeRegion`, where secrets are read by name. */
  readonly probeRegion: string;
  /** The run ledger's table: one run per schedule and period, whatever AWS delivers twice. @default - none */
  readonly runLedgerTable?: string;
  /** The fleet's egress proxy. @default - none: requests go direct */
  readonly proxy?: ProxyRuntime;
}

export function readRunEnv(env: NodeJS.ProcessEnv = process.env): RunEnv {
  const homeRegion = required(env, EnvVar.homeRegion, "the region that holds the canary's metrics and alarms, e.g. eu-west-1");
  if (!partitionOf(homeRegion)) {
    throw configError(
      `Environment variable ${EnvVar.homeRegion} is not an AWS region: got ${JSON.stringify(homeRegion)}. Set it to e.g. eu-west-1.`,
    );
  }
  const probeRegion = required(
    env,
    EnvVar.probeRegion,
    'the region the function runs in (Lambda sets it; set it yourself when running locally)',
  );
  const ns = env[EnvVar.namespace]?.trim() || DEFAULT_NAMESPACE;
  const problem = namespaceProblem(ns);
  if (problem) {
    throw configError(
      `Environment variable ${EnvVar.namespace} is not a valid CloudWatch namespace: it ${problem} (or unset it for ${DEFAULT_NAMESPACE}).`,
    );
  }
  const runLedgerTable = env[EnvVar.runLedger]?.trim() || undefined;
  const proxy = readProxy(env[EnvVar.proxy]);
  return { homeRegion, namespace: ns, probeRegion, ...(runLedgerTable ? { runLedgerTable } : {}), ...(proxy ? { proxy } : {}) };
}

function readProxy(raw: string | undefined): ProxyRuntime | undefined {
  if (!raw?.trim()) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw configError(
      `Environment variable ${EnvVar.proxy} is not JSON: the stack sets it from the fleet's proxy setting; redeploy, or unset it.`,
    );
  }
  const result = ProxyRuntime.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw configError(
      `Environment variable ${EnvVar.proxy}: ${issue.path.join('.') || 'the value'} ${issue.message}. Fix the fleet's proxy setting and redeploy.`,
    );
  }
  return result.data;
}
