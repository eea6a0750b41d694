/** Turns zod issues into one line each that names the field and says what to do (words.ts writes the sentences). */
import type { z } from 'zod';
import { configError, type CanaryError } from '../errors.ts';
import { inOurWords, ourErrorMap, ZOD_STOCK_PHRASES } from './words.ts';

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
  const field = typeof root === 'function' ? root(issue.path) : fieldPath(issue.path, root);
  // A parse that did not go through parseOrThrow (the run's event) still gets the project's words.
  const message = ZOD_STOCK_PHRASES.test(issue.message) ? inOurWords(issue) : issue.message;
  return `${field} ${message}`;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, root: string | FieldNamer = ''): z.output<S> {
  const result = schema.safeParse(input, { error: ourErrorMap });
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => describeIssue(i, root));
  throw configError(`${what}: ${lines.join('; ')}`) as CanaryError;
}
