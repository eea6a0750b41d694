/**
 * A resource's template properties as its handler reads them: each one resolved on first use, and every
 * one accounted for. A property no handler took or skipped with a reason fails the rehearsal, so a
 * property added to a template later is rehearsed (or said not to be) before it is trusted.
 */
import { isDeepStrictEqual } from 'node:util';
import { RehearsalError } from './assembly.ts';

export class Props {
  private readonly accounted = new Map<string, string | null>();
  private readonly values = new Map<string, unknown>();

  constructor(
    private readonly raw: Readonly<Record<string, unknown>>,
    private readonly resolveAt: (value: unknown, path: string) => Promise<unknown>,
    /** `stack/logicalId (Type)`, for messages. */
    readonly where: string,
  ) {}

  has(name: string): boolean {
    return name in this.raw;
  }

  /** The resolved property, or undefined when the template leaves it out. */
  async get<T = unknown>(name: string): Promise<T | undefined> {
    this.accounted.set(name, null);
    if (!(name in this.raw)) return undefined;
    if (!this.values.has(name)) this.values.set(name, await this.resolveAt(this.raw[name], `${this.where}/Properties/${name}`));
    return this.values.get(name) as T;
  }

  async need<T = unknown>(name: string): Promise<T> {
    const v = await this.get<T>(name);
    if (v === undefined) throw new RehearsalError(`${this.where}: property ${name} is required here and missing.`);
    return v;
  }

  /** A property this handler does not pass on or compare, and why (moto drops it; another test checks it). */
  skip(name: string, why: string): void {
    this.accounted.set(name, why);
  }

  /** Properties present in the template that nobody took or skipped. */
  unaccounted(): string[] {
    return Object.keys(this.raw).filter((k) => !this.accounted.has(k));
  }

  /** Every property resolved so far: what the rehearsal sent, or expected to read back. */
  resolved(): Record<string, unknown> {
    return Object.fromEntries(this.values);
  }
}

/** Differences between what the template says and what the service reports, collected per stack. */
export class Findings {
  readonly list: string[] = [];

  /** `actual` (the service's answer) must equal `expected` (the resolved template), scalars compared as text. */
  same(where: string, actual: unknown, expected: unknown): void {
    if (!isDeepStrictEqual(normalize(actual), normalize(expected))) {
      this.list.push(`${where}: the service has ${JSON.stringify(actual)}, the template says ${JSON.stringify(expected)}`);
    }
  }

  add(message: string): void {
    this.list.push(message);
  }
}

/** Numbers and booleans as text, object keys sorted, `undefined` members dropped: APIs echo types loosely. */
export function normalize(v: unknown): unknown {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, normalize((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** A JSON text from an API (policies, patterns, redrive settings; IAM's URL-encoded), or the value itself. */
export function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const text = v.startsWith('%7B') ? decodeURIComponent(v) : v;
  // moto 5.2 bug: a role's inline `Policies` created by its CloudFormation are stored as the Python dict
  // and GetRolePolicy answers its repr ({'Version': '2012-10-17', ...}), not JSON. Read that too.
  return JSON.parse(text.startsWith("{'") ? pythonReprToJson(text) : text);
}

/** Python's repr of dicts, lists, strings, numbers, True/False/None → JSON text. */
function pythonReprToJson(repr: string): string {
  let out = '';
  for (let i = 0; i < repr.length; i++) {
    const c = repr[i]!;
    if (c === "'" || c === '"') {
      let value = '';
      for (i++; repr[i] !== c; i++) {
        if (repr[i] === '\\') {
          const next = repr[++i]!;
          value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
        } else value += repr[i];
      }
      out += JSON.stringify(value);
    } else if (repr.startsWith('True', i)) [out, i] = [out + 'true', i + 3];
    else if (repr.startsWith('False', i)) [out, i] = [out + 'false', i + 4];
    else if (repr.startsWith('None', i)) [out, i] = [out + 'null', i + 3];
    else out += c;
  }
  return out;
}
