/**
 * One scheduled run, as Scheduler and Lambda would make it from what the rehearsal deployed: the
 * schedule's own `Input` (read back with GetSchedule) with Scheduler's context keywords filled in, handed
 * to the code Lambda holds for the schedule's target (the asset zip whose sha256 GetFunctionConfiguration
 * reports, unzipped) in a fresh Node process with the function's deployed environment and handler
 * setting, killed at the function's timeout — and every AWS call pointed at moto.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetScheduleCommand, type GetScheduleCommandOutput } from '@aws-sdk/client-scheduler';
import { unzipSync } from 'fflate';
import { motoCredentials } from '../../moto.ts';
import { runToEnd } from '../../child.ts';
import { RehearsalError } from './assembly.ts';
import type { Deployment } from './deployment.ts';
import { codeObject, functionConfiguration } from './types/lambda.ts';

export interface DeployedSchedule {
  readonly region: string;
  readonly groupName: string | undefined;
  readonly name: string;
}

export interface Invocation {
  readonly schedule: DeployedSchedule;
  /** `<aws.scheduler.scheduled-time>` as filled in. */
  readonly scheduledTime: string;
  readonly functionName: string;
  /** What the handler returned (undefined when it threw or was killed). */
  readonly result: unknown;
  /** Each JSON line the function wrote to stdout: what Lambda would send to its log group. */
  readonly logLines: ReadonlyArray<Record<string, unknown>>;
  readonly stderr: string;
  readonly exitCode: number | null;
}

/** The running Node: the suite's (engines ≥ 22.18), Node 24 in CI (.ci/run) as on the Lambda. */
const NODE = process.execPath;

const CHILD = `
const { handler: name, module: file, deadline, context } = JSON.parse(process.env.REHEARSAL_INVOKE);
const mod = await import(file);
const fn = mod[name];
if (typeof fn !== 'function') throw new Error('the handler export ' + name + ' is not a function');
const result = await fn(JSON.parse(process.env.REHEARSAL_EVENT), { ...context, getRemainingTimeInMillis: () => deadline - Date.now() });
process.stdout.write('\\nREHEARSAL_RESULT ' + JSON.stringify(result ?? null) + '\\n');
`;

/** Scheduler's keywords in a target input, filled in as it does at each invocation. */
export function fillContext(input: string, scheduleArn: string, scheduledTime: string): string {
  return input
    .replaceAll('<aws.scheduler.scheduled-time>', scheduledTime)
    .replaceAll('<aws.scheduler.schedule-arn>', scheduleArn)
    .replaceAll('<aws.scheduler.execution-id>', randomBytes(8).toString('hex'))
    .replaceAll('<aws.scheduler.attempt-number>', '1');
}

/** A `rate(…)` expression's interval in seconds; undefined for cron and at expressions. */
export function rateSeconds(expression: string): number | undefined {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  return m ? Number(m[1]) * { minute: 60, hour: 3600, day: 86400 }[m[2]!.replace(/s$/, '') as 'minute'] : undefined;
}

/**
 * When a `rate(…)` schedule fires inside its interval from `periodStart`: every interval from its start
 * date (its creation, when it has none), the time written as Scheduler writes it (`2022-03-22T18:59:43Z`).
 */
export function firingIn(schedule: GetScheduleCommandOutput, periodStart: Date): string {
  const seconds = rateSeconds(schedule.ScheduleExpression ?? '');
  if (seconds === undefined) {
    throw new RehearsalError(
      `${schedule.Name}: the rehearsal computes firings of rate() schedules only, not ${schedule.ScheduleExpression}.`,
    );
  }
  const interval = seconds * 1000;
  const from = Math.floor((schedule.StartDate ?? schedule.CreationDate!).getTime() / 1000) * 1000;
  const at = from + Math.max(0, Math.ceil((periodStart.getTime() - from) / interval)) * interval;
  if (at >= periodStart.getTime() + interval)
    throw new RehearsalError(`${schedule.Name} does not fire in the period from ${periodStart.toISOString()}.`);
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Invokes deployed schedules' targets; keeps each function's unzipped code until `close()`. */
export class Invoker {
  private readonly unzipped = new Map<string, string>();

  constructor(private readonly d: Deployment) {}

  /** Runs the schedule's target once, for its firing in the interval from `periodStart`. */
  run(s: DeployedSchedule, periodStart: Date): Promise<Invocation> {
    return invokeSchedule(this.d, s, periodStart, (sha, zip) => this.codeDirectory(sha, zip));
  }

  close(): void {
    for (const dir of this.unzipped.values()) rmSync(dir, { recursive: true, force: true });
    this.unzipped.clear();
  }

  private codeDirectory(sha256: string, zip: Uint8Array): string {
    let dir = this.unzipped.get(sha256);
    if (!dir) {
      dir = mkdtempSync(join(tmpdir(), 'mcp-canary-rehearsal-code-'));
      for (const [name, bytes] of Object.entries(unzipSync(zip))) {
        if (name.endsWith('/')) continue;
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), bytes);
      }
      this.unzipped.set(sha256, dir);
    }
    return dir;
  }
}

async function invokeSchedule(
  d: Deployment,
  s: DeployedSchedule,
  periodStart: Date,
  codeDirectory: (sha256: string, zip: Uint8Array) => string,
): Promise<Invocation> {
  const aws = d.aws.at(s.region);
  const schedule = await aws.scheduler.send(new GetScheduleCommand({ Name: s.name, GroupName: s.groupName }));
  const target = schedule.Target!;
  const fnName = /^arn:[^:]+:lambda:[^:]+:[^:]+:function:([^:]+)$/.exec(target.Arn ?? '')?.[1];
  if (!fnName)
    throw new RehearsalError(`${s.name}: its target ${target.Arn} is not a Lambda function; the rehearsal invokes functions only.`);
  const config = await functionConfiguration(aws, target.Arn!);
  const deployed = d.ofType('AWS::Lambda::Function').find((r) => r.region === s.region && r.ref === config.FunctionName);
  if (!deployed) throw new RehearsalError(`${s.name}: no stack deployed its target ${config.FunctionName} in ${s.region}.`);
  const code = await codeObject(aws, deployed.resolved.Code as { S3Bucket: string; S3Key: string });
  if (code.sha256 !== config.CodeSha256)
    throw new RehearsalError(`${config.FunctionName}: the asset in the bucket is not the code Lambda reports (CodeSha256).`);

  const root = codeDirectory(code.sha256, code.bytes);
  const [moduleName, exportName] = splitHandler(config.Handler!);
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(root, moduleName + ext)).find(existsSync);
  if (!file) throw new RehearsalError(`${config.FunctionName}: handler ${config.Handler} names no file in its code.`);
  const scheduledTime = firingIn(schedule, periodStart);
  const timeoutMs = (config.Timeout ?? 3) * 1000;
  const context = {
    functionName: config.FunctionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: config.FunctionArn,
    memoryLimitInMB: String(config.MemorySize),
    awsRequestId: randomUUID(),
    callbackWaitsForEmptyEventLoop: true,
  };
  const child = await runToEnd(NODE, ['--input-type=module', '-e', CHILD], {
    cwd: root,
    killAfterMs: timeoutMs,
    env: {
      PATH: process.env.PATH,
      ...config.Environment?.Variables,
      AWS_REGION: s.region,
      AWS_DEFAULT_REGION: s.region,
      AWS_LAMBDA_FUNCTION_NAME: config.FunctionName,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.MemorySize),
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_EXECUTION_ENV: `AWS_Lambda_${config.Runtime}`,
      LAMBDA_TASK_ROOT: root,
      TZ: ':UTC',
      AWS_ENDPOINT_URL: d.aws.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
      REHEARSAL_EVENT: fillContext(target.Input ?? '{}', schedule.Arn!, scheduledTime),
      REHEARSAL_INVOKE: JSON.stringify({
        handler: exportName,
        module: pathToFileURL(file).href,
        deadline: Date.now() + timeoutMs,
        context,
      }),
    },
  });
  const lines = child.stdout.split('\n').filter(Boolean);
  const resultLine = lines.find((l) => l.startsWith('REHEARSAL_RESULT '));
  return {
    schedule: s,
    scheduledTime,
    functionName: config.FunctionName!,
    result: resultLine === undefined ? undefined : JSON.parse(resultLine.slice('REHEARSAL_RESULT '.length)),
    logLines: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: child.stderr,
    exitCode: child.code,
  };
}

/** `index.handler` → module `index`, export `handler` (a path before the last dot, as Lambda reads it). */
function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return [handler.slice(0, dot), handler.slice(dot + 1)];
}
