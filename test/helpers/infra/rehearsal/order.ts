/**
 * The order CloudFormation creates a template's resources in — every Ref, Fn::GetAtt, Fn::Sub name and
 * DependsOn is an edge — as levels whose members can be created at once; and the template moto is
 * given, without the resources the rehearsal keeps from it.
 */
import { RehearsalError, type Template, type TemplateResource } from './assembly.ts';

/** Logical ids of this template's resources that `value` refers to. */
export function referencedResources(value: unknown, ids: ReadonlySet<string>, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') return out;
  if (Array.isArray(value)) {
    for (const v of value) referencedResources(v, ids, out);
    return out;
  }
  if (value === null || typeof value !== 'object') return out;
  const o = value as Record<string, unknown>;
  if (typeof o.Ref === 'string' && ids.has(o.Ref)) out.add(o.Ref);
  const getAtt = o['Fn::GetAtt'];
  if (getAtt !== undefined) {
    const id = typeof getAtt === 'string' ? getAtt.split('.')[0]! : String((getAtt as unknown[])[0]);
    if (ids.has(id)) out.add(id);
  }
  const sub = o['Fn::Sub'];
  if (sub !== undefined) {
    const text = typeof sub === 'string' ? sub : String((sub as unknown[])[0]);
    for (const m of text.matchAll(/\$\{([^!}][^}.]*)(\.[^}]*)?\}/g)) if (ids.has(m[1]!.trim())) out.add(m[1]!.trim());
  }
  for (const v of Object.values(o)) referencedResources(v, ids, out);
  return out;
}

function dependsOn(r: TemplateResource): string[] {
  return r.DependsOn === undefined ? [] : typeof r.DependsOn === 'string' ? [r.DependsOn] : [...r.DependsOn];
}

/** The given resources in creation levels: each level depends only on earlier levels (or on `done`). */
export function creationLevels(template: Template, ids: readonly string[], done: ReadonlySet<string> = new Set()): string[][] {
  const all = new Set(Object.keys(template.Resources));
  const pending = new Map(
    ids.map((id) => {
      const r = template.Resources[id]!;
      const deps = new Set([...referencedResources(r.Properties ?? {}, all), ...dependsOn(r)]);
      deps.delete(id);
      return [id, [...deps].filter((d) => !done.has(d))];
    }),
  );
  const levels: string[][] = [];
  const placed = new Set<string>();
  while (pending.size > 0) {
    const level = [...pending].filter(([, deps]) => deps.every((d) => placed.has(d) || !pending.has(d))).map(([id]) => id);
    if (level.length === 0)
      throw new RehearsalError(`circular references between ${[...pending.keys()].join(', ')}: CloudFormation refuses the template.`);
    for (const id of level) {
      pending.delete(id);
      placed.add(id);
    }
    levels.push(level);
  }
  return levels;
}

/**
 * The template without `hidden` resources: references to them replaced by the values the rehearsal
 * created them with (`values`), and DependsOn on them dropped.
 */
export function templateForMoto(
  template: Template,
  hidden: ReadonlySet<string>,
  values: ReadonlyMap<string, { ref?: string; attributes?: Readonly<Record<string, string>> }>,
): Template {
  if (hidden.size === 0) return template;
  const substitute = (v: unknown, path: string): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => substitute(x, `${path}/${i}`));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const refs = referencedResources(o, hidden);
    if (refs.size === 0) return v;
    if (typeof o.Ref === 'string' && hidden.has(o.Ref)) return created(o.Ref, path).ref;
    const getAtt = o['Fn::GetAtt'] as [string, string] | undefined;
    if (Array.isArray(getAtt) && hidden.has(getAtt[0])) {
      const value = created(getAtt[0], path).attributes?.[getAtt[1]];
      if (value === undefined) throw new RehearsalError(`${path}: ${getAtt[0]} has no attribute ${getAtt[1]}.`);
      return value;
    }
    if ('Fn::Sub' in o)
      throw new RehearsalError(`${path}: Fn::Sub names ${[...refs].join(', ')}, which moto never sees; write it as Fn::GetAtt.`);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, substitute(x, `${path}/${k}`)]));
  };
  const created = (id: string, path: string) => {
    const c = values.get(id);
    if (!c) throw new RehearsalError(`${path}: refers to ${id}, which the rehearsal creates only after the stack.`);
    return c;
  };
  const resources: Record<string, TemplateResource> = {};
  for (const [id, r] of Object.entries(template.Resources)) {
    if (hidden.has(id)) continue;
    const deps = dependsOn(r).filter((d) => !hidden.has(d));
    resources[id] = {
      ...r,
      ...(r.Properties ? { Properties: substitute(r.Properties, `Resources/${id}`) as Record<string, unknown> } : {}),
      ...(r.DependsOn !== undefined ? { DependsOn: deps } : {}),
    };
  }
  return {
    ...template,
    Resources: resources,
    ...(template.Outputs ? { Outputs: substitute(template.Outputs, 'Outputs') as Template['Outputs'] } : {}),
  };
}
