/**
 * zod's issues in the project's words: every message zod would write itself ("Too small: expected number
 * to be >=1") is written here instead from the issue's code and data: what the field must be, what was
 * given (when it cannot be a secret), and the fix. A schema's own message (`.min(1, 'needs a target')`)
 * still wins: zod asks this map only when the schema has none. The field's name is added by the caller
 * (issues.ts), so every sentence here follows a field name: "… must be at most 10, got 12".
 */
import type * as z from 'zod';
import { closest, didYouMean } from './did-you-mean.ts';

/** zod's own English, as its locale writes it: no message the user sees may match this. */
export const ZOD_STOCK_PHRASES =
  /\bInvalid (input|option|string|number|key|value|discriminator|element|[A-Z]{2,}|email|url|date|uuid|ISO)|Too (big|small)|Unrecognized key|expected [a-z]+, received|expected one of|expected [a-z]+ to (be|have)/;

/** A required field left out. */
export const MISSING = 'is required: add it';

/** Issues as the error map sees them (with input and schema) or as `safeParse` returns them. */
type Issue = (z.core.$ZodIssue | z.core.$ZodRawIssue) & { readonly inst?: unknown; readonly input?: unknown };

interface SchemaLike {
  readonly _zod?: { readonly def?: { readonly type?: string; readonly shape?: object; readonly options?: readonly SchemaLike[] } };
}

/** Fields whose values may be secrets (header values, URLs with keys, tool arguments): never echoed. */
const SECRET_FIELDS = new Set([
  'headers',
  'url',
  'healthUrl',
  'tokenUrl',
  'resource',
  'issuer',
  'arguments',
  'auth',
  'expectText',
  'expectJson',
]);

/** ` (got "x")`, or `''` when the value might be a secret or says nothing (a whole object). */
function given(issue: Issue): string {
  if (!('input' in issue)) return '';
  const v = issue.input;
  if (v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return `, got ${String(v)}`;
  if (typeof v === 'string') {
    if ((issue.path ?? []).some((k) => SECRET_FIELDS.has(String(k)))) return `, got a string of ${v.length} characters (not shown)`;
    return `, got ${JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}…` : v)}`;
  }
  return `, got ${typeName(v)}`;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'text';
  return `a ${typeof v}`;
}

const EXPECTED: Record<string, string> = {
  string: 'text (a string in quotes)',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object { … }',
  record: 'an object { … }',
  array: 'a list [ … ]',
  tuple: 'a list [ … ]',
  null: 'null',
};

/** The keys an object schema knows, for "did you mean". */
function keysOf(schema: unknown): string[] {
  const def = (schema as SchemaLike | undefined)?._zod?.def;
  if (def?.shape) return Object.keys(def.shape);
  return (def?.options ?? []).flatMap(keysOf);
}

/** `{ secretsManager }`, `true or false`: the forms a union takes, for its message. */
function formOf(schema: SchemaLike): string {
  const def = schema._zod?.def;
  if (def?.shape) {
    const required = Object.entries(def.shape as Record<string, SchemaLike & { _zod?: { optin?: string } }>)
      .filter(([, s]) => s._zod?.optin === undefined)
      .map(([k]) => k);
    return `{ ${required.join(', ')} }`;
  }
  return EXPECTED[def?.type ?? ''] ?? String(def?.type ?? 'a value');
}

function unknownKeys(issue: Issue & { keys: string[] }): string {
  const known = keysOf(issue.inst);
  const one = issue.keys.length === 1;
  const list = issue.keys.map((k) => JSON.stringify(k)).join(', ');
  const hints = issue.keys.map((k) => ({ k, near: closest(k, known) })).filter((h) => h.near.length > 0);
  if (hints.length > 0) {
    // Carried on the issue as data (zod copies an issue's own fields into the one it reports), so
    // issues.ts tells a misspelt key by the issue, never by these words.
    (issue as Issue & { meant?: Record<string, string[]> }).meant = Object.fromEntries(hints.map((h) => [h.k, h.near]));
    const said = hints.map(
      (h) => `${one ? '' : `${JSON.stringify(h.k)}: `}did you mean ${h.near.map((n) => JSON.stringify(n)).join(' or ')}?`,
    );
    return `has unknown field(s) ${list} (${said.join('; ')})`;
  }
  const allowed = known.length > 0 && known.length <= 16 ? ` Known fields: ${known.join(', ')}` : '';
  return `has unknown field(s) ${list}: remove ${one ? 'it' : 'them'} or check the spelling.${allowed}`;
}

function size(issue: Issue & { origin: string; minimum?: number | bigint; maximum?: number | bigint; inclusive?: boolean }): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  const v = issue.input;
  if (issue.origin === 'string') {
    const len = typeof v === 'string' ? `, got ${v.length}` : '';
    if (small && limit === 1) return 'is empty: give a value';
    return `must be ${small ? 'at least' : 'at most'} ${limit} characters long${len}`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    const count = Array.isArray(v) ? `, got ${v.length}` : '';
    if (small && limit === 1) return 'is empty: list at least one';
    return `must list ${small ? 'at least' : 'at most'} ${limit} item(s)${count}`;
  }
  const bound = issue.inclusive === false ? (small ? 'more than' : 'less than') : small ? 'at least' : 'at most';
  return `must be ${bound} ${limit}${given(issue)}`;
}

/**
 * `"5000"` where a number belongs, `"true"` where true or false does: the value is right and only its
 * quotes are wrong, so the fix is to drop them (a JSON config quotes everything by habit).
 */
function unquote(issue: Issue & { expected?: string }): string {
  const v = issue.input;
  if (typeof v !== 'string' || v.trim() !== v || v === '') return '';
  const number = ['number', 'int'].includes(issue.expected ?? '') && Number.isFinite(Number(v)) && /^-?\d/.test(v);
  const boolean = issue.expected === 'boolean' && (v === 'true' || v === 'false');
  if (!number && !boolean) return '';
  const secret = (issue.path ?? []).some((k) => SECRET_FIELDS.has(String(k)));
  return secret ? ': write it without the quotes' : `: write it without the quotes, ${v}`;
}

/** The sentence for one issue, to follow the field's name. */
export function inOurWords(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type': {
      // A finalized issue from a parse without this map has no input, but zod's words say it was missing.
      const missing = 'input' in issue ? issue.input === undefined : /received undefined/.test(issue.message ?? '');
      if (missing) return MISSING;
      const want = EXPECTED[issue.expected] ?? `a ${issue.expected}`;
      const plain = typeof issue.input === 'number' || typeof issue.input === 'string' || typeof issue.input === 'boolean';
      const got = 'input' in issue ? (plain ? given(issue) : `, got ${typeName(issue.input)}`) : '';
      return `must be ${want}${got}${unquote(issue)}`;
    }
    case 'too_small':
    case 'too_big':
      return size(issue);
    case 'invalid_format': {
      const f = issue as Issue & { format: string; pattern?: string; prefix?: string; suffix?: string; includes?: string };
      if (f.format === 'regex') return `does not have the expected form (it must match ${f.pattern})${given(issue)}`;
      if (f.format === 'starts_with') return `must start with ${JSON.stringify(f.prefix)}${given(issue)}`;
      if (f.format === 'ends_with') return `must end with ${JSON.stringify(f.suffix)}${given(issue)}`;
      if (f.format === 'includes') return `must contain ${JSON.stringify(f.includes)}${given(issue)}`;
      if (f.format === 'url') return `is not a URL${given(issue)}: give the full URL, e.g. https://example.com/page`;
      if (f.format === 'email') return `is not an email address${given(issue)}: write it as name@example.com`;
      return `is not a valid ${f.format}${given(issue)}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}${given(issue)}`;
    case 'unrecognized_keys':
      return unknownKeys(issue);
    case 'invalid_value': {
      const values = issue.values.map((v) => String(v));
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, values) : '';
      return `must be one of ${values.join(', ')}${given(issue)}${hint}`;
    }
    case 'invalid_key': {
      // The path ends in the key itself (`headers["Bad Name"]`): the key schema's own words follow it.
      const own = issue.issues.map((i) => (i.message && !ZOD_STOCK_PHRASES.test(i.message) ? i.message : null)).filter(Boolean);
      return own.length > 0 ? own.join('; ') : 'is not an allowed key here: rename it';
    }
    case 'invalid_element':
      return `has an item that is not allowed: ${issue.issues.map(inOurWords).join('; ')}`;
    case 'invalid_union': {
      const options = (issue.inst as SchemaLike | undefined)?._zod?.def?.options;
      const forms = options ? `: ${options.map(formOf).join(', or ')}` : '';
      return `does not take any of its allowed forms${forms}${unionHint(issue)}`;
    }
    default:
      return 'is not valid: check it against the config reference (docs/config.md)';
  }
}

/**
 * For a union's own message (`{ error: unionError('must be { email } or { url }') }`): the sentence, plus
 * "did you mean" when the object given has a key near one an option knows (`secretManager`).
 */
export function unionError(sentence: string): (issue: z.core.$ZodRawIssue) => string | undefined {
  return (issue) => (issue.code === 'invalid_union' ? `${sentence}${unionHint(issue as Issue)}` : undefined);
}

function unionHint(issue: Issue): string {
  const input = issue.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return '';
  const known = new Set(keysOf(issue.inst));
  for (const key of Object.keys(input)) {
    if (known.has(key)) continue;
    const near = closest(key, known);
    if (near.length > 0) return ` (${JSON.stringify(key)}: did you mean ${near.map((n) => JSON.stringify(n)).join(' or ')}?)`;
  }
  return '';
}

/** The per-parse error map (`safeParse(input, { error: ourErrorMap })`): asked only where a schema has no message. */
export const ourErrorMap: z.core.$ZodErrorMap = (issue) => inOurWords(issue as Issue);

/** A `superRefine` from a check that returns why a value is wrong (phrased to follow the field name), or null. */
export function refineBy(problem: (value: string) => string | null): (value: string, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    const why = problem(value);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  };
}
