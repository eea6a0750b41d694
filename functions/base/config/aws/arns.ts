/**
 * The shape of each ARN and resource name the fleet config holds, checked the way its service checks
 * it, so a malformed one fails at `cdk synth` (naming the field) instead of reaching IAM or SNS:
 *
 * - ARNs: `arn:<partition>:<service>:<region>:<12-digit account>:<resource>` (IAM User Guide, "Identify
 *   AWS resources with Amazon Resource Names").
 * - Secrets Manager secret names: up to 512 of `A-Z a-z 0-9 / _ + = . @ -` (Secrets Manager API,
 *   CreateSecret `Name`); the ARN's resource is `secret:<name>` plus the 6-character suffix AWS adds.
 * - SSM parameter names: `a-zA-Z0-9_.-` and `/` between levels, no spaces, a leading `/` in a hierarchy,
 *   at most 15 levels, not prefixed with "aws" or "ssm", and at most 1,011 characters together with the
 *   ARN before the name (SSM API, PutParameter `Name`).
 * - SQS queue names: up to 80 of `A-Z a-z 0-9 - _`, `.fifo` at the end for a FIFO queue (SQS API,
 *   CreateQueue `QueueName`); Lambda function names up to 64 of `A-Z a-z 0-9 - _`, with an optional
 *   version or alias qualifier (Lambda API, `FunctionName`).
 *
 * Every function returns why the value is wrong, phrased to follow a field name, or null.
 */
import { didYouMean } from '../words/did-you-mean.ts';
import { ALL_REGIONS, partitionOf } from './regions.ts';

export interface Arn {
  readonly partition: string;
  readonly service: string;
  readonly region: string;
  readonly account: string;
  readonly resource: string;
}

/** The six parts of an ARN (the resource may hold further colons), or null when it has fewer. */
export function parseArn(s: string): Arn | null {
  const parts = s.split(':');
  if (parts.length < 6 || parts[0] !== 'arn') return null;
  const [, partition, service, region, account, ...resource] = parts as [string, string, string, string, string, ...string[]];
  return { partition, service, region, account, resource: resource.join(':') };
}

const SERVICE_WORDS: Record<string, string> = {
  s3: 'an S3',
  sqs: 'an SQS',
  sns: 'an SNS',
  lambda: 'a Lambda',
  ssm: 'an SSM',
  secretsmanager: 'a Secrets Manager',
  kms: 'a KMS',
  iam: 'an IAM',
  dynamodb: 'a DynamoDB',
};

interface ArnKind {
  /** "a Secrets Manager secret ARN": what the field holds. */
  readonly what: string;
  readonly service: string;
  /** A well-formed example in the given partition and region. */
  example(partition: string, region: string): string;
  /** What is wrong with the resource part, or null. */
  resource(resource: string): string | null;
  /** Advice when the ARN is of another service: where that ARN belongs instead. */
  elsewhere?: Record<string, string>;
}

const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const QUALIFIER = /^(\$LATEST|[A-Za-z0-9_-]{1,128})$/;

export const SECRET_ARN: ArnKind = {
  what: 'a Secrets Manager secret ARN',
  service: 'secretsmanager',
  example: (p, r) => `arn:${p}:secretsmanager:${r}:111122223333:secret:mcp-canary/my-target`,
  resource: (res) => {
    if (!res.startsWith('secret:')) return `has resource ${JSON.stringify(res)}; a secret's is "secret:<name>"`;
    return secretNameProblem(res.slice('secret:'.length));
  },
  elsewhere: { ssm: 'an SSM parameter belongs in { ssmParameter: "<name>" }' },
};

export const SSM_PARAMETER_ARN: ArnKind = {
  what: 'an SSM parameter ARN',
  service: 'ssm',
  example: (p, r) => `arn:${p}:ssm:${r}:111122223333:parameter/mcp-canary/my-target/api-key`,
  resource: (res) => {
    if (!res.startsWith('parameter/')) return `has resource ${JSON.stringify(res)}; a parameter's is "parameter/<name>"`;
    const name = res.slice('parameter'.length);
    return ssmNameProblem(name.split('/').length > 2 ? name : name.slice(1));
  },
  elsewhere: { secretsmanager: 'a secret belongs in { secretsManager: "<name or ARN>" }' },
};

export const SQS_QUEUE_ARN: ArnKind = {
  what: 'an SQS queue ARN',
  service: 'sqs',
  example: (p, r) => `arn:${p}:sqs:${r}:111122223333:mcp-canary-pages`,
  resource: (res) => {
    if (res.endsWith('.fifo') && QUEUE_NAME.test(res.slice(0, -5)) && res.length <= 80) {
      return `names a FIFO queue (${JSON.stringify(res)}): the canary's topics are standard SNS topics (CloudWatch alarms publish only to those), and a standard topic cannot deliver to a FIFO queue. Subscribe a standard queue`;
    }
    return QUEUE_NAME.test(res) ? null : `has queue name ${JSON.stringify(res)}; a queue name is 1–80 letters, digits, "-" or "_"`;
  },
};

export const LAMBDA_FUNCTION_ARN: ArnKind = {
  what: 'a Lambda function ARN',
  service: 'lambda',
  example: (p, r) => `arn:${p}:lambda:${r}:111122223333:function:mcp-canary-pager`,
  resource: (res) => {
    const [kind, name, qualifier, ...more] = res.split(':');
    if (kind !== 'function' || name === undefined) return `has resource ${JSON.stringify(res)}; a function's is "function:<name>"`;
    if (!FUNCTION_NAME.test(name)) return `has function name ${JSON.stringify(name)}; a function name is 1–64 letters, digits, "-" or "_"`;
    if (more.length > 0 || (qualifier !== undefined && !QUALIFIER.test(qualifier)))
      return `has qualifier ${JSON.stringify(res.slice(`function:${name}:`.length))}; a qualifier is a version number, $LATEST or an alias name`;
    return null;
  },
};

/** What is wrong with `s` as an ARN of `kind`, or null. */
export function arnProblem(s: string, kind: ArnKind): string | null {
  const arn = parseArn(s);
  const eg = (p = 'aws', r = 'us-east-1') => `, e.g. ${kind.example(p, r)}`;
  const written = /^\s*arn:/i.exec(s);
  if (written && !s.startsWith('arn:'))
    return `is an ARN written ${JSON.stringify(written[0])}: an ARN starts with "arn:" exactly (lower case, no space before it): write ${JSON.stringify(`arn:${s.slice(written[0].length)}`.trim())}`;
  if (!s.startsWith('arn:')) return `is not an ARN: give ${kind.what}${eg()}`;
  if (!arn) return `is not a complete ARN (it needs arn:<partition>:<service>:<region>:<account>:<resource>): give ${kind.what}${eg()}`;
  const region = partitionOf(arn.region) ? arn.region : 'us-east-1';
  if (arn.service !== kind.service) {
    const words = SERVICE_WORDS[arn.service] ?? `a "${arn.service}"`;
    const instead = kind.elsewhere?.[arn.service];
    return `is ${words} ARN, not ${kind.what}${instead ? ` (${instead})` : ''}: give ${kind.what}${eg(arn.partition, region)}`;
  }
  if (!partitionOf(arn.region)) {
    return `names region ${JSON.stringify(arn.region)}, which is not an AWS region the canary supports${didYouMean(arn.region, ALL_REGIONS)}${eg(arn.partition)}`;
  }
  const partition = partitionOf(arn.region)!.id;
  if (arn.partition !== partition)
    return `has partition ${JSON.stringify(arn.partition)}, but its region ${arn.region} is in ${partition}: write arn:${partition}:…`;
  if (!/^\d{12}$/.test(arn.account))
    return `has account ${JSON.stringify(arn.account)}; an AWS account ID is 12 digits${eg(partition, arn.region)}`;
  return kind.resource(arn.resource);
}

/** A Secrets Manager reference: the secret's name (read in the probe region) or its ARN. */
export function secretRefProblem(ref: string): string | null {
  return /^\s*arn:/i.test(ref) ? arnProblem(ref, SECRET_ARN) : secretNameProblem(ref);
}

/** An SSM reference: the parameter's name (read in the probe region) or its ARN. */
export function ssmRefProblem(ref: string): string | null {
  return /^\s*arn:/i.test(ref) ? arnProblem(ref, SSM_PARAMETER_ARN) : ssmNameProblem(ref);
}

function secretNameProblem(name: string): string | null {
  if (name === '' || SECRET_NAME.test(name)) return null; // empty: the schema says so itself
  if (name.length > 512) return `is a secret name of ${name.length} characters; Secrets Manager allows 512`;
  return `has ${badCharacter(name, /[A-Za-z0-9/_+=.@-]/)} in the secret name; a name is letters, digits and / _ + = . @ -`;
}

/** SSM's name rules, except the length (it depends on the region: see `ssmNameLengthProblem`). */
function ssmNameProblem(name: string): string | null {
  if (name === '') return null; // empty: the schema says so itself
  if (!/^[A-Za-z0-9_./-]+$/.test(name))
    return `has ${badCharacter(name, /[A-Za-z0-9_./-]/)} in the parameter name; SSM allows letters, digits, "_", ".", "-" and "/" between levels`;
  const secretRef = /^\/aws\/reference\/secretsmanager\/(.+)$/.exec(name);
  if (secretRef)
    return `reads a Secrets Manager secret through SSM; reference it directly: { secretsManager: ${JSON.stringify(secretRef[1])} }`;
  if (/^\/?(aws|ssm)/i.test(name)) return 'starts with "aws" or "ssm", which SSM reserves for its own parameters: rename the parameter';
  if (name.includes('/')) {
    if (!name.startsWith('/')) return `is in a hierarchy but does not start with "/": write "/${name}"`;
    if (name.endsWith('/') || name.includes('//')) return 'has an empty level ("//" or a "/" at the end): write "/level/level/name"';
    const levels = name.split('/').length - 1;
    if (levels > 15) return `has ${levels} levels; SSM allows at most 15`;
  }
  return null;
}

/** SSM counts the ARN before a name in its 1,011 characters: `arn:aws:ssm:us-east-1:111122223333:parameter/`. */
export const SSM_NAME_WITH_ARN_MAX = 1011;

export function ssmNameLengthProblem(name: string, partition: string, region: string): string | null {
  if (name.startsWith('arn:'))
    return name.length > SSM_NAME_WITH_ARN_MAX ? `is ${name.length} characters; SSM allows ${SSM_NAME_WITH_ARN_MAX}` : null;
  const prefix = `arn:${partition}:ssm:${region}:111122223333:parameter${name.startsWith('/') ? '' : '/'}`.length;
  const max = SSM_NAME_WITH_ARN_MAX - prefix;
  return name.length > max
    ? `is ${name.length} characters; in ${region} SSM allows ${max} (${SSM_NAME_WITH_ARN_MAX} including the ${prefix}-character ARN before the name)`
    : null;
}

/** `a space at character 4`, `the character "#" at character 7`: the first character outside `allowed`. */
function badCharacter(s: string, allowed: RegExp): string {
  const i = [...s].findIndex((c) => !allowed.test(c));
  const c = [...s][i]!;
  const what = c === ' ' ? 'a space' : /\s/.test(c) ? 'a line break or tab' : `the character ${JSON.stringify(c)}`;
  return `${what} at character ${i + 1}`;
}
