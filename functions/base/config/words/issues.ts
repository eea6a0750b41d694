/** Turns zod issues into one line each that names the field and says what to do (words.ts writes the sentences). */
import type { z } from 'zod';
import { configError, type CanaryError } from '../../common/errors.ts';
import { closest } from './did-you-mean.ts';
import { inOurWords, MISSING, ourErrorMap, ZOD_STOCK_PHRASES } from './words.ts';

/** `targets[2].url`, `headers["Bad Name"]`: the path as a user would type it in the config file. */
function fieldPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (!/^[A-Za-z_$][\w$-]*$/.test(String(key))) out += `[${JSON.stringify(String(key))}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(the config)';
}

/** How a field is named in messages: a config path by default, a CLI flag for the CLI. */
export type FieldNamer = (path: readonly PropertyKey[]) => string;

export function describeIssue(issue: z.core.$ZodIssue, root: string | FieldNamer = ''): string {
  const chosen = issue.code === 'invalid_union' ? theOptionMeant(issue.errors) : null;
  if (chosen) return chosen.map((i) => describeIssue({ ...i, path: [...issue.path, ...i.path] }, root)).join('; ');
  const field = typeof root === 'function' ? root(issue.path) : fieldPath(issue.path, root);
  // A parse that did not go through parseOrThrow (the run's event) still gets the project's words.
  const message = ZOD_STOCK_PHRASES.test(issue.message) ? inOurWords(issue) : issue.message;
  return `${field} ${message}`;
}

/** The issues one config error lists before "and N more". */
export const MAX_ISSUES_SHOWN = 10;

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, root: string | FieldNamer = ''): z.output<S> {
  // reportInput: the issues keep what was given, so a left-out key is told from a wrong one (never printed).
  const result = schema.safeParse(input, { error: ourErrorMap, reportInput: true });
  if (result.success) return result.data;
  const lines = withoutExplained(result.error.issues).map((i) => describeIssue(i, root));
  // One line stays readable: a fleet generated wrong (5,000 targets, the same mistake in each) says the first few.
  const shown =
    lines.length > MAX_ISSUES_SHOWN ? [...lines.slice(0, MAX_ISSUES_SHOWN), `and ${lines.length - MAX_ISSUES_SHOWN} more`] : lines;
  throw configError(`${what}: ${shown.join('; ')}`) as CanaryError;
}

/**
 * When no form of a union fits, the form the user meant, if one stands out: the one with a misspelt key
 * (`{ secretManager }` → "did you mean secretsManager?"), else the one whose keys the value has (every
 * other lacks one of its keys, has keys it does not know, or is not even an object). Its own issues then
 * say what is wrong inside it (`notify.pages[0].url must be text`) instead of "must be one of …". When
 * several fit the keys, the one the value got furthest into.
 */
function theOptionMeant(options: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | null {
  const missing = (i: z.core.$ZodIssue) => i.code === 'invalid_type' && isMissing(i);
  const unknownAtTop = (i: z.core.$ZodIssue) => i.code === 'unrecognized_keys' && i.path.length === 0;
  const misspelt = options.filter(
    (issues) => issues.some((i) => unknownAtTop(i) && 'meant' in i) && issues.every((i) => unknownAtTop(i) || missing(i)),
  );
  if (misspelt.length === 1) return misspelt[0]!.filter(unknownAtTop);
  const shaped = options.filter(
    (issues) => !issues.some((i) => unknownAtTop(i) || missing(i) || (i.code === 'invalid_type' && i.path.length === 0)),
  );
  if (shaped.length === 1) return shaped[0]!.length > 0 ? shaped[0]! : null;
  // Several forms fit the keys: the one the value got furthest into (its first issue lies deepest).
  const depth = (issues: readonly z.core.$ZodIssue[]) => Math.min(...issues.map((i) => i.path.length));
  const deepest = [...shaped].sort((a, b) => depth(b) - depth(a));
  return deepest.length > 1 && depth(deepest[0]!) > depth(deepest[1]!) ? deepest[0]! : null;
}

/** `tokenUrll` misspelt is also `tokenUrl` missing: the "did you mean" says both, so the second goes. */
function withoutExplained(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const at = (path: readonly PropertyKey[]) => path.map(String).join('\u0000');
  const meant = new Set<string>();
  for (const i of issues) {
    if (i.code !== 'unrecognized_keys') continue;
    const siblings = issues.filter((j) => leftOut(j) && at(j.path.slice(0, -1)) === at(i.path)).map((j) => String(j.path.at(-1)));
    for (const key of i.keys) for (const near of closest(key, siblings)) meant.add(at([...i.path, near]));
  }
  return issues.filter((i) => !(leftOut(i) && meant.has(at(i.path))));
}

/**
 * A sibling key reported as absent, whatever its schema says about it ("must be a number: the percentage…",
 * "must be a reference…"): the issue reports no input for it.
 */
function leftOut(i: z.core.$ZodIssue): boolean {
  return 'input' in i ? i.input === undefined : i.message === MISSING;
}

/** A key left out: known by the input the issue reports, or by the words zod or we wrote for it. */
function isMissing(i: z.core.$ZodIssue): boolean {
  if (i.code !== 'invalid_type') return false;
  if ('input' in i) return i.input === undefined;
  return i.message === MISSING || /received undefined/.test(i.message);
}
