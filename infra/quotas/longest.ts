/**
 * A template's values as AWS will see them after CloudFormation resolves them, at their longest: every
 * intrinsic (`Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::Join`, `Fn::ImportValue`, …) becomes the longest
 * string it can resolve to. A stack whose environment is known resolves its region, partition and
 * account exactly; an environment-agnostic one gets the longest region, partition and a 12-digit account.
 * Hand-written: CloudFormation resolves these only at deploy, and no library models their lengths.
 */
import { physicalAttribute, physicalRef } from './physical.ts';
import { filler, type CfnResource, type CfnTemplate, type Resolver } from './template.ts';

export interface StackScope {
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** Undefined when the stack is environment-agnostic. */
  readonly region?: string;
  readonly account?: string;
}

/** The longest of each pseudo parameter across AWS's partitions (for environment-agnostic stacks). */
export const LONGEST = {
  region: 'us-isof-south-1',
  partition: 'aws-us-gov',
  urlSuffix: 'amazonaws.com.cn',
  account: '123456789012',
} as const;
/** A parameter value is at most 4,096 bytes (CloudFormation quotas); an import has no documented bound. */
const PARAMETER_VALUE = 4_096;
const IMPORT_VALUE = 2_048;

const PARTITIONS: ReadonlyArray<[prefix: string, partition: string, urlSuffix: string]> = [
  ['cn-', 'aws-cn', 'amazonaws.com.cn'],
  ['us-gov-', 'aws-us-gov', 'amazonaws.com'],
  ['us-isob-', 'aws-iso-b', 'sc2s.sgov.gov'],
  ['us-isof-', 'aws-iso-f', 'csp.hci.ic.gov'],
  ['us-iso-', 'aws-iso', 'c2s.ic.gov'],
  ['eu-isoe-', 'aws-iso-e', 'cloud.adc-e.uk'],
  ['eusc-', 'aws-eusc', 'amazonaws.eu'],
];

/** `AWS::NoValue`: the property is removed. */
export const NO_VALUE = Symbol('AWS::NoValue');

export class Longest implements Resolver {
  readonly region: string;
  readonly account: string;
  readonly partition: string;
  readonly urlSuffix: string;
  private readonly resolving = new Set<string>();

  constructor(readonly scope: StackScope) {
    this.region = scope.region ?? LONGEST.region;
    this.account = scope.account ?? LONGEST.account;
    const known = scope.region ? PARTITIONS.find(([prefix]) => scope.region!.startsWith(prefix)) : undefined;
    this.partition = scope.region ? (known?.[1] ?? 'aws') : LONGEST.partition;
    this.urlSuffix = scope.region ? (known?.[2] ?? 'amazonaws.com') : LONGEST.urlSuffix;
  }

  arn(service: string, resource: string, region = this.region): string {
    return `arn:${this.partition}:${service}:${region}:${this.account}:${resource}`;
  }

  /** Any template value with its intrinsics replaced by their longest resolution. */
  value(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.value(x)).filter((x) => x !== NO_VALUE);
    if (v === null || typeof v !== 'object') return v;
    const entries = Object.entries(v);
    if (entries.length === 1 && isIntrinsic(entries[0]![0])) return this.intrinsic(entries[0]![0], entries[0]![1]);
    const out: Record<string, unknown> = {};
    for (const [k, x] of entries) {
      const r = this.value(x);
      if (r !== NO_VALUE) out[k] = r;
    }
    return out;
  }

  /** A list or object in a string position counts as its JSON. */
  string(v: unknown): string {
    const r = this.value(v);
    return typeof r === 'string' ? r : r === undefined || r === NO_VALUE ? '' : JSON.stringify(r);
  }

  /** `Ref` of a pseudo parameter, a parameter or a resource. */
  ref(name: string): unknown {
    switch (name) {
      case 'AWS::Region':
        return this.region;
      case 'AWS::AccountId':
        return this.account;
      case 'AWS::Partition':
        return this.partition;
      case 'AWS::URLSuffix':
        return this.urlSuffix;
      case 'AWS::StackName':
        return this.scope.stackName;
      case 'AWS::StackId':
        return this.arn('cloudformation', `stack/${this.scope.stackName}/${'0'.repeat(36)}`);
      case 'AWS::NoValue':
        return NO_VALUE;
      case 'AWS::NotificationARNs':
        return [];
    }
    const parameter = this.scope.template.Parameters?.[name];
    if (parameter)
      return parameter.Type?.startsWith('AWS::SSM') || parameter.Default === undefined ? filler(PARAMETER_VALUE) : parameter.Default;
    return this.onResource(name, (r) => physicalRef(this, name, r));
  }

  getAtt(id: string, attribute: string): unknown {
    return this.onResource(id, (r) => physicalAttribute(this, id, r, attribute));
  }

  /** The resource's own properties are resolved too (a name built from a `Ref`); a cycle falls back to the longest. */
  private onResource(id: string, resolve: (r: CfnResource) => string): string {
    const resource = this.scope.template.Resources?.[id];
    if (!resource || this.resolving.has(id)) return resolve({ Type: resource?.Type ?? 'unknown' });
    this.resolving.add(id);
    try {
      return resolve(resource);
    } finally {
      this.resolving.delete(id);
    }
  }

  private intrinsic(fn: string, arg: unknown): unknown {
    const a = Array.isArray(arg) ? arg : [arg];
    switch (fn) {
      case 'Ref':
        return this.ref(String(arg));
      case 'Fn::GetAtt': {
        const [id, attribute] = typeof arg === 'string' ? splitOnce(arg, '.') : [String(a[0]), this.string(a[1])];
        return this.getAtt(id, attribute);
      }
      case 'Fn::Join': {
        const parts = this.value(a[1]);
        return (Array.isArray(parts) ? parts : [parts]).map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(this.string(a[0]));
      }
      case 'Fn::Sub':
        return this.sub(
          typeof arg === 'string' ? arg : String(a[0]),
          (Array.isArray(arg) ? a[1] : undefined) as Record<string, unknown> | undefined,
        );
      case 'Fn::Select': {
        const list = this.value(a[1]);
        const index = Number(this.value(a[0]));
        if (Array.isArray(list)) return list[index] ?? longestOf(list);
        return list;
      }
      case 'Fn::Split':
        return this.string(a[1]).split(this.string(a[0]));
      case 'Fn::If':
        return longestOf([this.value(a[1]), this.value(a[2])].filter((x) => x !== NO_VALUE));
      case 'Fn::FindInMap':
        return this.findInMap(a.map((x) => this.value(x)));
      case 'Fn::ImportValue':
        return filler(IMPORT_VALUE);
      case 'Fn::Base64':
        return filler(Math.ceil(Buffer.byteLength(this.string(arg)) / 3) * 4);
      case 'Fn::ToJsonString':
        return JSON.stringify(this.value(arg));
      case 'Fn::GetAZs':
        return [`${this.region}a`, `${this.region}b`, `${this.region}c`];
      case 'Fn::Length':
        return String(Array.isArray(this.value(arg)) ? (this.value(arg) as unknown[]).length : 0);
      default:
        // Conditions (Fn::Equals, Fn::Not, …), Fn::Cidr, Fn::Transform: short, and not where our quotas are.
        return JSON.stringify(arg);
    }
  }

  private sub(text: string, vars: Record<string, unknown> = {}): string {
    return text.replace(/\$\{(!?)([^}]*)\}/g, (_all, bang: string, name: string) => {
      if (bang) return `\${${name}}`;
      if (name in vars) return this.string(vars[name]);
      const [id, attribute] = splitOnce(name, '.');
      return attribute ? this.string(this.getAtt(id, attribute)) : this.string(this.ref(name));
    });
  }

  private findInMap([map, top, second]: unknown[]): unknown {
    const mapping = this.scope.template.Mappings?.[String(map)];
    if (!mapping) return filler(PARAMETER_VALUE);
    const exact = mapping[String(top)]?.[String(second)];
    if (exact !== undefined) return exact;
    return longestOf(Object.values(mapping).flatMap((m) => Object.values(m)));
  }
}

const isIntrinsic = (key: string) => key === 'Ref' || key.startsWith('Fn::');

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

function longestOf(values: unknown[]): unknown {
  let best: unknown = '';
  for (const v of values) if (JSON.stringify(v ?? '').length > JSON.stringify(best).length) best = v;
  return best;
}
