/**
 * The rehearsal: a synthesized cloud assembly deployed into moto_server as `cdk deploy --all` and
 * CloudFormation would — bootstrap, assets, then every stack in dependency order, each in its region,
 * with CreateStack — and after each stack, every template resource accounted for: created by moto's
 * CloudFormation and read back through its service's API, created by the rehearsal through that API
 * with its references resolved, or listed as impossible with the test that checks it instead.
 */
import { DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { readAssembly, RehearsalError, type AssemblyStack } from './assembly.ts';
import { Aws } from './aws.ts';
import { bootstrap, publishAssets, substitutePlaceholders } from './bootstrap.ts';
import { Deployment, type DeployedStack } from './deployment.ts';
import { condition, resolve, type Scope } from './intrinsics.ts';
import { checkLinks } from './links.ts';
import { creationLevels, referencedResources, templateForMoto } from './order.ts';
import { Findings, normalize, Props } from './properties.ts';
import { stackParameters, stackScope } from './scope.ts';
import { createStackAndWait } from './stack-status.ts';
import { HANDLERS, type Handler, type ResourceContext } from './types/index.ts';

/**
 * CloudFormation quotas that CreateStack itself enforces (and moto does not): template body 51,200 bytes
 * inline, 1 MB from S3; 500 resources, 200 parameters, 200 outputs per stack.
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html
 */
export const CFN_LIMITS = { inlineBodyBytes: 51_200, s3BodyBytes: 1_000_000, resources: 500, parameters: 200, outputs: 200 } as const;

export interface RehearsalOptions {
  /** Which stacks of the assembly to deploy (`cdk deploy 'Fleet-*'`). @default - every stack */
  readonly stacks?: (stackName: string) => boolean;
}

/** Deploys the stacks of the assembly in `dir` into the moto_server at `endpoint`, in dependency order. */
export async function rehearse(dir: string, endpoint: string, options: RehearsalOptions = {}): Promise<Deployment> {
  const deployment = new Deployment(new Aws(endpoint));
  const step = async (what: string, work: () => Promise<void>): Promise<void> => {
    const started = performance.now();
    await work();
    deployment.timings.push({ step: what, ms: Math.round(performance.now() - started) });
  };
  try {
    const stacks = readAssembly(dir).filter((s) => options.stacks?.(s.stackName) ?? true);
    if (stacks.length === 0) throw new RehearsalError(`no stack of the assembly in ${dir} is selected.`);
    await step('bootstrap', () => bootstrap(deployment.aws, stacks));
    for (const s of stacks) {
      await step(`assets ${s.stackName}`, () => publishAssets(deployment.aws, s));
      await step(`deploy ${s.stackName}`, () => deployStack(deployment, s));
    }
    await step('links', () => checkLinks(deployment));
    return deployment;
  } catch (e) {
    deployment.aws.destroy();
    throw e;
  }
}

function handlerOf(s: AssemblyStack, id: string, type: string): Handler {
  const h = HANDLERS[type];
  if (!h) {
    throw new RehearsalError(
      `${s.stackName}/${id}: nobody rehearses ${type}. Add a handler in test/helpers/infra/rehearsal/types/: verified if moto's CloudFormation creates it, created through its API if not, or listed as impossible with the test that checks it.`,
    );
  }
  return h;
}

async function deployStack(d: Deployment, s: AssemblyStack): Promise<void> {
  const aws = d.aws.at(s.region);
  const { template } = s;
  checkQuotas(s);
  const deployed: DeployedStack = { stackName: s.stackName, region: s.region, resources: new Map(), outputs: new Map() };
  d.stacks.set(s.stackName, deployed);
  const pseudo: Record<string, unknown> = {};
  const parameters = await stackParameters(aws, s);
  const scope = stackScope(d, s, deployed, parameters, pseudo);
  const motoScope = stackScope(d, s, deployed, parameters, pseudo, 'moto');
  await checkRules(s, scope);
  const findings = new Findings();
  const later: Array<{ where: string; work: () => Promise<void> }> = [];
  const handlers = new Map<string, Handler>();
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Condition === undefined || (await condition(r.Condition, scope, `${s.stackName}/${id}/Condition`)))
      handlers.set(id, handlerOf(s, id, r.Type));
  }
  const each = (id: string, physicalId?: string) => {
    const h = handlers.get(id)!;
    return rehearseResource(d, s, h.by === 'moto' ? motoScope : scope, { findings, later }, id, h, physicalId);
  };

  // Resources kept from moto that others read come first, so their values can stand in the template.
  const hidden = new Set([...handlers].filter(([, h]) => h.by === 'api' && h.hiddenFromMoto).map(([id]) => id));
  const visible = Object.entries(template.Resources).filter(([id]) => !hidden.has(id));
  const readByOthers = [...referencedResources([visible.map(([, r]) => r), template.Outputs ?? {}], hidden)];
  for (const level of creationLevels(template, readByOthers)) await Promise.all(level.map((id) => each(id)));

  // moto 5.2's CreateStack answers HTTP 500 to an output that reads an attribute (Fn::GetAtt) of a type it
  // has no model for (a CloudFront distribution's DomainName): such outputs are kept from moto, resolved
  // by the rehearsal against what it created, and not compared with moto's answer.
  const withheld = new Set(
    Object.entries(template.Outputs ?? {})
      .filter(([, o]) => getAttTargets(o.Value).some((id) => handlers.get(id)?.by !== 'moto'))
      .map(([key]) => key),
  );
  const forMoto = templateForMoto(template, hidden, deployed.resources);
  const outputs = Object.fromEntries(Object.entries(forMoto.Outputs ?? {}).filter(([key]) => !withheld.has(key)));
  const body = JSON.stringify({ ...forMoto, ...(forMoto.Outputs ? { Outputs: outputs } : {}) });
  const stack = await createStackAndWait(aws.cloudFormation, {
    StackName: s.stackName,
    ...(await templateSource(d, s, body)),
    Capabilities: ['CAPABILITY_IAM', 'CAPABILITY_NAMED_IAM', 'CAPABILITY_AUTO_EXPAND'],
  });
  pseudo['AWS::StackId'] = stack.StackId;

  // What moto made of it, against what the table says it makes: a change in moto shows here first.
  const listed = new Map<string, string | undefined>();
  for (const r of (await aws.cloudFormation.send(new DescribeStackResourcesCommand({ StackName: s.stackName }))).StackResources ?? []) {
    if (r.LogicalResourceId) listed.set(r.LogicalResourceId, r.PhysicalResourceId);
  }
  for (const id of listed.keys()) {
    if (!handlers.has(id))
      throw new RehearsalError(`${s.stackName}/${id}: moto's CloudFormation created it although its condition is false.`);
  }
  for (const [id, h] of handlers) {
    const type = template.Resources[id]!.Type;
    if (h.by === 'moto' && !listed.has(id))
      throw new RehearsalError(
        `${s.stackName}/${id}: moto's CloudFormation skipped ${type}, which the rehearsal expects it to create; rehearse ${type} through its API instead.`,
      );
    if (h.by !== 'moto' && listed.has(id))
      throw new RehearsalError(
        `${s.stackName}/${id}: moto's CloudFormation now creates ${type}; rehearse it as moto-created (verify it) instead.`,
      );
  }
  const rest = [...handlers.keys()].filter((id) => !deployed.resources.has(id));
  for (const level of creationLevels(template, rest, new Set(deployed.resources.keys()))) {
    await Promise.all(level.map((id) => each(id, listed.get(id))));
  }
  for (const { where, work } of later) {
    await work().catch((e: Error) => {
      throw new RehearsalError(`${where}: ${e.name}: ${e.message}`, { cause: e });
    });
  }
  await compareOutputs(d, s, scope, deployed, stack.Outputs ?? [], findings, withheld);
  if (findings.list.length > 0)
    throw new RehearsalError(`${s.stackName}: what was deployed differs from the template:\n  ${findings.list.join('\n  ')}`);
}

async function rehearseResource(
  d: Deployment,
  s: AssemblyStack,
  scope: Scope,
  { findings, later }: { findings: Findings; later: Array<{ where: string; work: () => Promise<void> }> },
  id: string,
  h: Handler,
  physicalId?: string,
): Promise<void> {
  const type = s.template.Resources[id]!.Type;
  const where = `${s.stackName}/${id} (${type})`;
  const props = new Props(s.template.Resources[id]!.Properties ?? {}, (v, p) => resolve(v, scope, p), where);
  const ctx: ResourceContext = {
    aws: d.aws.at(s.region),
    all: d.aws,
    stackName: s.stackName,
    logicalId: id,
    props,
    findings,
    where,
    later: (work) => later.push({ where, work }),
  };
  let ref: string | undefined;
  let attributes: Readonly<Record<string, string>> = {};
  try {
    if (h.by === 'moto') {
      ref = physicalId;
      await h.verify(ctx, physicalId ?? '');
    } else if (h.by === 'api') ({ ref, attributes = {} } = await h.create(ctx));
    else if (h.by === 'impossible') ({ ref, attributes = {} } = (await h.check(ctx)) ?? {});
  } catch (e) {
    if (e instanceof RehearsalError) throw e;
    const api = h.by === 'api' ? h.api : `reading it back (${h.by})`;
    throw new RehearsalError(`${where}: ${api} failed: ${(e as Error).name}: ${(e as Error).message}`, { cause: e });
  }
  const left = h.by === 'nothing' ? [] : props.unaccounted();
  if (left.length > 0) {
    throw new RehearsalError(
      `${where}: ${left.join(', ')} neither rehearsed nor skipped with a reason; handle ${left.length > 1 ? 'them' : 'it'} in test/helpers/infra/rehearsal/types/.`,
    );
  }
  d.stacks.get(s.stackName)!.resources.set(id, {
    stackName: s.stackName,
    region: s.region,
    logicalId: id,
    type,
    by: h.by,
    ref,
    attributes,
    resolved: props.resolved(),
  });
}

/** The resources a value reads an attribute of. */
function getAttTargets(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(getAttTargets);
  if (v === null || typeof v !== 'object') return [];
  const getAtt = (v as Record<string, unknown>)['Fn::GetAtt'];
  const own = Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? [getAtt[0]] : [];
  return [...own, ...Object.values(v).flatMap(getAttTargets)];
}

async function checkRules(s: AssemblyStack, scope: Scope): Promise<void> {
  for (const [name, rule] of Object.entries(s.template.Rules ?? {})) {
    if (rule.RuleCondition !== undefined && !(await resolve(rule.RuleCondition, scope, `Rules/${name}/RuleCondition`))) continue;
    for (const [i, a] of rule.Assertions.entries()) {
      if ((await resolve(a.Assert, scope, `Rules/${name}/Assertions/${i}`)) !== true) {
        throw new RehearsalError(`CloudFormation refuses ${s.stackName}: rule ${name}: ${a.AssertDescription ?? 'assertion failed'}`);
      }
    }
  }
}

function checkQuotas(s: AssemblyStack): void {
  const count = (o?: object) => Object.keys(o ?? {}).length;
  const over = [
    count(s.template.Resources) > CFN_LIMITS.resources && `${count(s.template.Resources)} resources (at most ${CFN_LIMITS.resources})`,
    count(s.template.Parameters) > CFN_LIMITS.parameters && `${count(s.template.Parameters)} parameters (at most ${CFN_LIMITS.parameters})`,
    count(s.template.Outputs) > CFN_LIMITS.outputs && `${count(s.template.Outputs)} outputs (at most ${CFN_LIMITS.outputs})`,
  ].filter(Boolean);
  if (over.length) throw new RehearsalError(`CloudFormation refuses ${s.stackName}: ${over.join(', ')}.`);
}

/** Inline when it fits, else from the assets bucket by URL, as the CDK CLI does. */
async function templateSource(d: Deployment, s: AssemblyStack, body: string): Promise<{ TemplateBody: string } | { TemplateURL: string }> {
  const bytes = Buffer.byteLength(body);
  if (bytes <= CFN_LIMITS.inlineBodyBytes) return { TemplateBody: body };
  if (bytes > CFN_LIMITS.s3BodyBytes)
    throw new RehearsalError(
      `CloudFormation refuses ${s.stackName}: its template is ${bytes} bytes (at most ${CFN_LIMITS.s3BodyBytes} from S3).`,
    );
  if (!s.templateUrl)
    throw new RehearsalError(
      `${s.stackName}: a ${bytes}-byte template needs the template asset (stackTemplateAssetObjectUrl), and there is none.`,
    );
  const url = /^s3:\/\/([^/]+)\/(.+)$/.exec(
    substitutePlaceholders(s.templateUrl, { account: d.aws.account, partition: d.aws.partition, region: s.region }),
  )!;
  const [bucket, key] = [url[1]!, `rehearsal/${s.stackName}.json`];
  await d.aws.at(s.region).s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  return { TemplateURL: `https://s3.${s.region}.amazonaws.com/${bucket}/${key}` };
}

async function compareOutputs(
  d: Deployment,
  s: AssemblyStack,
  scope: Scope,
  deployed: DeployedStack,
  moto: ReadonlyArray<{ OutputKey?: string; OutputValue?: string }>,
  findings: Findings,
  withheld: ReadonlySet<string>,
): Promise<void> {
  for (const [key, o] of Object.entries(s.template.Outputs ?? {})) {
    if (o.Condition !== undefined && !(await condition(o.Condition, scope, `Outputs/${key}`))) continue;
    const value = await resolve(o.Value, scope, `${s.stackName}/Outputs/${key}`);
    deployed.outputs.set(key, value);
    const text = Array.isArray(value) ? value.join(',') : value;
    if (!withheld.has(key))
      findings.same(`${s.stackName} output ${key}`, moto.find((m) => m.OutputKey === key)?.OutputValue, normalize(text));
    if (o.Export) {
      const name = String(await resolve(o.Export.Name, scope, `${s.stackName}/Outputs/${key}/Export`));
      const exports = d.exports.get(s.region) ?? new Map<string, unknown>();
      if (exports.has(name))
        throw new RehearsalError(`CloudFormation refuses ${s.stackName}: export ${name} already exists in ${s.region}.`);
      d.exports.set(s.region, exports.set(name, text));
    }
  }
}
