/**
 * Every Lambda function of the canary, with the house defaults in one place (Powertools'
 * `FunctionWithLogGroup` pattern): Node 24 on arm64, the bundle for its handler (`lambda-bundling.ts`),
 * and a log group of our own with a fixed name and retention. The run and the brief differ only in what
 * they are given here.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { allowRedundantRoleDependency, handlerCode, LAMBDA_ARCHITECTURE, LAMBDA_RUNTIME, type HandlerName } from './lambda-bundling.ts';

export const DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;

export interface CanaryFunctionProps extends Omit<
  NodejsFunctionProps,
  'entry' | 'handler' | 'code' | 'runtime' | 'architecture' | 'bundling' | 'projectRoot' | 'depsLockFilePath' | 'logGroup'
> {
  /** Which of our handlers it runs. */
  readonly handlerName: HandlerName;
  /** An existing log group (several run functions of a region share one), or a name for a new one. */
  readonly logGroup: LogGroup | { readonly logGroupName: string; readonly retention?: RetentionDays };
}

export class CanaryFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: CanaryFunctionProps) {
    const { handlerName, logGroup, ...rest } = props;
    super(scope, id, {
      ...handlerCode(handlerName),
      runtime: LAMBDA_RUNTIME,
      architecture: LAMBDA_ARCHITECTURE,
      logGroup: logGroup instanceof LogGroup ? logGroup : canaryLogGroup(scope, `${id}Logs`, logGroup.logGroupName, logGroup.retention),
      ...rest,
    });
    allowRedundantRoleDependency(this);
  }
}

/**
 * A log group with a fixed name (the brief reads the run logs by name in every region), deleted with its
 * stack: a retained group of that name would block the next deploy.
 */
export function canaryLogGroup(
  scope: Construct,
  id: string,
  logGroupName: string,
  retention: RetentionDays = DEFAULT_LOG_RETENTION,
): LogGroup {
  return new LogGroup(scope, id, { logGroupName, retention, removalPolicy: RemovalPolicy.DESTROY });
}
