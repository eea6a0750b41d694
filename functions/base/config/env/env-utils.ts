/**
 * Reading a Lambda's environment, the one way both functions do it (Powertools' envUtils): a missing or
 * malformed variable is a deploy mistake, so it throws a config error that names the variable and the fix.
 */
import { configError } from '../../common/errors.ts';

/** The variable's trimmed value; throws naming it and `what` to set it to when it is unset or blank. */
export function required(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name]?.trim();
  if (!value) throw configError(`Environment variable ${name} is required: set it to ${what}.`);
  return value;
}

/** `text` (the value of variable `name`) as a whole number ≥ 1; throws naming the variable otherwise. */
export function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw configError(`Environment variable ${name} must be a whole number ≥ 1, got ${JSON.stringify(text)}.`);
  return n;
}
