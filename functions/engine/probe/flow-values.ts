/**
 * Pure: a flow step's answer as the assertions and extractions read it, the values it gives later steps,
 * and a later step's templates filled with them. One view per answer, so `expectText`, `expectJson` and
 * `extract` read the same thing: a tool's text content and `structuredContent`; a resource's text
 * contents and the result; a prompt's message texts and the result; a list's URIs or names, one a line,
 * and the result.
 */
import type {
  CallToolResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ReadResourceResult,
} from '@modelcontextprotocol/client';
import { showJson } from '../../base/common/exact-json.ts';
import { oneLine } from '../../base/common/redact.ts';
import { parseReference, REFERENCE, type Extraction } from '../../base/config/schema/flow.ts';
import { lookup, textOf } from './expect.ts';

/** What a step's assertions and extractions read. */
export interface AnswerView {
  readonly text: string;
  readonly json: unknown;
}

export type Values = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

export function toolView(result: CallToolResult, structured: unknown): AnswerView {
  return { text: textOf(result), json: structured };
}

export function resourcesListView(r: ListResourcesResult): AnswerView {
  return { text: r.resources.map((x) => x.uri).join('\n'), json: r };
}

export function resourceReadView(r: ReadResourceResult): AnswerView {
  const texts = r.contents.flatMap((c) => ('text' in c && typeof c.text === 'string' ? [c.text] : []));
  return { text: texts.join('\n'), json: r };
}

export function promptsListView(r: ListPromptsResult): AnswerView {
  return { text: r.prompts.map((p) => p.name).join('\n'), json: r };
}

export function promptView(r: GetPromptResult): AnswerView {
  const texts = r.messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : []));
  return { text: texts.join('\n'), json: r };
}

/** The step's values, or the first extraction that matched nothing (a failed condition, Gatus' style). */
export function extractValues(
  extract: Readonly<Record<string, Extraction>>,
  view: AnswerView,
): { readonly values: Record<string, unknown> } | { readonly problem: string } {
  const values: Record<string, unknown> = {};
  for (const [name, how] of Object.entries(extract)) {
    if ('path' in how) {
      const got = lookup(view.json, how.path);
      if (!got.found) return { problem: `extract ${name}: the path ${how.path} matches nothing in the answer` };
      values[name] = got.value;
    } else {
      const m = new RegExp(how.regex).exec(view.text);
      const value = m?.[how.group];
      if (value === undefined)
        return {
          problem: `extract ${name}: /${how.regex}/ ${m ? `has no group ${how.group}` : 'matches nothing'} in the text ${JSON.stringify(oneLine(view.text, 120))}`,
        };
      values[name] = value;
    }
  }
  return { values };
}

/**
 * A template with its references filled: a string that is exactly one reference takes the value as it is
 * (any JSON type); a reference inside a longer string takes the value's text, and an object or array
 * there is a problem — the earlier step answered another type than this one needs.
 */
export function fill(template: unknown, values: Values): { readonly value: unknown } | { readonly problem: string } {
  if (typeof template === 'string') return fillString(template, values);
  if (Array.isArray(template)) {
    const out: unknown[] = [];
    for (const x of template) {
      const r = fill(x, values);
      if ('problem' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(template)) {
      const r = fill(x, values);
      if ('problem' in r) return r;
      out[k] = r.value;
    }
    return { value: out };
  }
  return { value: template };
}

function fillString(s: string, values: Values): { readonly value: unknown } | { readonly problem: string } {
  const whole = /^\$\{([^}]*)\}$/.exec(s);
  if (whole) {
    const got = valueOf(whole[1]!, values);
    return 'problem' in got ? got : { value: got.value };
  }
  let problem: string | null = null;
  const value = s.replace(REFERENCE, (_all, text: string) => {
    const got = valueOf(text, values);
    if ('problem' in got) {
      problem ??= got.problem;
      return '';
    }
    const v = got.value;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
    problem ??= `\${${text}} is ${v === null ? 'null' : Array.isArray(v) ? 'an array' : 'an object'} (${oneLine(showJson(v), 80)}), which cannot be part of the text "${oneLine(s, 80)}"`;
    return '';
  });
  return problem ? { problem } : { value };
}

function valueOf(text: string, values: Values): { readonly value: unknown } | { readonly problem: string } {
  const ref = parseReference(text);
  // The config check refuses these before a run; a flow built in code may still hold one.
  if (!ref || !values.get(ref.id) || !Object.hasOwn(values.get(ref.id)!, ref.name))
    return { problem: `\${${text}} names no value an earlier step extracted` };
  return { value: values.get(ref.id)![ref.name] };
}

/** A filled value that must be a string (a resource URI): its type named when it is not. */
export function asText(field: string, v: unknown): { readonly value: string } | { readonly problem: string } {
  if (typeof v === 'string') return { value: v };
  const type = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
  return { problem: `${field} must be a string, and the value given is ${type} (${oneLine(showJson(v), 80)})` };
}
