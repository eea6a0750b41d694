/**
 * CloudFormation's intrinsic functions, resolved the way CloudFormation does against what is deployed:
 * Ref (resources, parameters, pseudo parameters), Fn::GetAtt, Fn::Sub, Fn::Join, Fn::Select, Fn::Split,
 * Fn::ImportValue, Fn::If and the condition functions, Fn::FindInMap, Fn::Base64, Fn::GetAZs,
 * Fn::ToJsonString / Fn::Length, and `{{resolve:ssm:…}}` dynamic references. Pure: every lookup goes
 * through the `Scope`. Hand-written because no library resolves templates against live resources;
 * an intrinsic it does not know fails loudly with the path of the value, never passes through.
 */
import { RehearsalError, type Template } from './assembly.ts';

/** `Ref: AWS::NoValue`: the property (or list item) is removed. */
export const NO_VALUE = Symbol('AWS::NoValue');

export interface Scope {
  readonly template: Template;
  /** `AWS::Region`, `AWS::AccountId`, … */
  readonly pseudo: Readonly<Record<string, unknown>>;
  readonly parameters: Readonly<Record<string, unknown>>;
  ref(logicalId: string, path: string): Promise<unknown>;
  getAtt(logicalId: string, attribute: string, path: string): Promise<unknown>;
  importValue(exportName: string, path: string): Promise<unknown>;
  /** `{{resolve:ssm:name}}`. */
  ssmParameter(name: string, path: string): Promise<string>;
}

export async function resolve(value: unknown, scope: Scope, path: string): Promise<unknown> {
  if (typeof value === 'string') return dynamicReferences(value, scope, path);
  if (Array.isArray(value)) {
    const items = await Promise.all(value.map((v, i) => resolve(v, scope, `${path}/${i}`)));
    return items.filter((v) => v !== NO_VALUE);
  }
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0] === 'Condition' || keys[0]!.startsWith('Fn::'))) {
    return intrinsic(keys[0]!, (value as Record<string, unknown>)[keys[0]!], scope, `${path}/${keys[0]}`);
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = await resolve((value as Record<string, unknown>)[k], scope, `${path}/${k}`);
    if (v !== NO_VALUE) out[k] = v;
  }
  return out;
}

/** A named condition of the template, evaluated. */
export async function condition(name: string, scope: Scope, path: string): Promise<boolean> {
  const c = scope.template.Conditions?.[name];
  if (c === undefined) throw new RehearsalError(`${path}: no condition ${name} in the template.`);
  return asBoolean(await resolve(c, scope, `Conditions/${name}`), path);
}

async function intrinsic(fn: string, arg: unknown, scope: Scope, path: string): Promise<unknown> {
  const r = (v: unknown, p = path) => resolve(v, scope, p);
  switch (fn) {
    case 'Ref':
      return ref(await r(arg), scope, path);
    case 'Condition':
      return condition(String(arg), scope, path);
    case 'Fn::GetAtt': {
      const [id, ...attr] = typeof arg === 'string' ? arg.split('.') : (arg as unknown[]);
      return scope.getAtt(String(id), String(await r(attr.length === 1 ? attr[0] : attr.join('.'))), path);
    }
    case 'Fn::Sub': {
      const [text, vars] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [arg as string, {}];
      return sub(text, (await r(vars)) as Record<string, unknown>, scope, path);
    }
    case 'Fn::Join': {
      const [sep, list] = arg as [string, unknown];
      const parts = asList(await r(list), path);
      return parts.map((p, i) => scalar(p, `${path}/${i}`)).join(sep);
    }
    case 'Fn::Select': {
      const [index, list] = arg as [unknown, unknown];
      const items = asList(await r(list), path);
      const i = Number(await r(index));
      if (!Number.isInteger(i) || i < 0 || i >= items.length)
        throw new RehearsalError(`${path}: index ${i} is outside the list of ${items.length}.`);
      return items[i];
    }
    case 'Fn::Split': {
      const [sep, source] = arg as [string, unknown];
      return scalar(await r(source), path).split(sep);
    }
    case 'Fn::If': {
      const [name, yes, no] = arg as [string, unknown, unknown];
      return (await condition(name, scope, path)) ? r(yes) : r(no);
    }
    case 'Fn::Equals': {
      const [a, b] = (await r(arg)) as [unknown, unknown];
      return scalar(a, path) === scalar(b, path);
    }
    case 'Fn::And':
      return ((await r(arg)) as unknown[]).every((v) => asBoolean(v, path));
    case 'Fn::Or':
      return ((await r(arg)) as unknown[]).some((v) => asBoolean(v, path));
    case 'Fn::Not':
      return !asBoolean(((await r(arg)) as unknown[])[0], path);
    case 'Fn::Contains': {
      const [list, v] = (await r(arg)) as [unknown, unknown];
      return asList(list, path).some((x) => scalar(x, path) === scalar(v, path));
    }
    case 'Fn::FindInMap': {
      const [map, top, second] = ((await r(arg)) as unknown[]).map((x) => scalar(x, path));
      const found = scope.template.Mappings?.[map!]?.[top!]?.[second!];
      if (found === undefined) throw new RehearsalError(`${path}: no mapping ${map}.${top}.${second}.`);
      return found;
    }
    case 'Fn::Base64':
      return Buffer.from(scalar(await r(arg), path)).toString('base64');
    case 'Fn::GetAZs':
      return ['a', 'b', 'c'].map((z) => `${String(scope.pseudo['AWS::Region'])}${z}`);
    case 'Fn::ImportValue':
      return scope.importValue(scalar(await r(arg), path), path);
    case 'Fn::ToJsonString':
      return JSON.stringify(await r(arg));
    case 'Fn::Length':
      return asList(await r(arg), path).length;
    default:
      throw new RehearsalError(`${path}: the rehearsal does not resolve ${fn}; add it to test/helpers/infra/rehearsal/intrinsics.ts.`);
  }
}

async function ref(name: unknown, scope: Scope, path: string): Promise<unknown> {
  const id = String(name);
  if (id === 'AWS::NoValue') return NO_VALUE;
  if (id in scope.pseudo) return scope.pseudo[id];
  if (id.startsWith('AWS::')) throw new RehearsalError(`${path}: pseudo parameter ${id} is not rehearsed.`);
  if (id in scope.parameters) return scope.parameters[id];
  return scope.ref(id, path);
}

/** `${Name}`, `${Resource.Attribute}` and `${!Literal}`, as Fn::Sub reads them. */
async function sub(text: string, vars: Record<string, unknown>, scope: Scope, path: string): Promise<string> {
  let out = '';
  let rest = text;
  for (let m = /\$\{([^}]*)\}/.exec(rest); m; m = /\$\{([^}]*)\}/.exec(rest)) {
    out += rest.slice(0, m.index);
    rest = rest.slice(m.index + m[0].length);
    const name = m[1]!.trim();
    if (name.startsWith('!')) {
      out += `\${${name.slice(1)}}`;
      continue;
    }
    const dot = name.indexOf('.');
    const v =
      name in vars
        ? vars[name]
        : dot > 0 && !name.startsWith('AWS::')
          ? await scope.getAtt(name.slice(0, dot), name.slice(dot + 1), path)
          : await ref(name, scope, path);
    out += scalar(v, path);
  }
  return dynamicReferences(out + rest, scope, path);
}

async function dynamicReferences(s: string, scope: Scope, path: string): Promise<string> {
  if (!s.includes('{{resolve:')) return s;
  let out = s;
  for (const m of s.matchAll(/\{\{resolve:([a-z-]+):([^}]+)\}\}/g)) {
    if (m[1] !== 'ssm') throw new RehearsalError(`${path}: dynamic reference {{resolve:${m[1]}:…}} is not rehearsed (only ssm).`);
    const [name] = m[2]!.split(':');
    out = out.replace(m[0], await scope.ssmParameter(name!, path));
  }
  return out;
}

function asList(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new RehearsalError(`${path}: expected a list, got ${JSON.stringify(v)}.`);
  return v;
}

function scalar(v: unknown, path: string): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new RehearsalError(`${path}: expected a string, got ${JSON.stringify(v)}.`);
}

function asBoolean(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new RehearsalError(`${path}: expected a condition (true or false), got ${JSON.stringify(v)}.`);
}
