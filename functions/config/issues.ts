/** Turns zod issues into one line that names the field and says what to do. */
import type { z } from 'zod';
import { configError, type CanaryError } from '../errors.ts';

/** `targets[2].url`: the path as a user would type it in the config file. */
function fieldPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

/** How a field is named in messages: a config path by default, a CLI flag for the CLI. */
export type FieldNamer = (path: readonly PropertyKey[]) => string;

export function describeIssue(issue: z.core.$ZodIssue, root: string | FieldNamer = ''): string {
  const field = typeof root === 'function' ? root(issue.path) : fieldPath(issue.path, root);
  if (issue.code === 'unrecognized_keys') {
    return `${field} has unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: remove them or check the spelling`;
  }
  if (issue.code === 'invalid_type') {
    // zod keeps the input out of issues by default; its message names what it received.
    const received = /received (\w+)/.exec(issue.message)?.[1];
    if (received === 'undefined') return `${field} is required`;
    return `${field} must be ${article(issue.expected)}${received ? `, got ${article(received)}` : ''}`;
  }
  return `${field} ${issue.message}`;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, root: string | FieldNamer = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => describeIssue(i, root));
  throw configError(`${what}: ${lines.join('; ')}`) as CanaryError;
}

function article(type: string): string {
  return type === 'null' || type === 'undefined' ? type : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
