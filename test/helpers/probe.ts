/** Shared bits of the probe tests: a target with test-friendly defaults, and the rates servers. */
import { Target, type TargetInput } from '../../functions/base/config/schema/target.ts';

export const SECRET = 'Bearer sk-live-7f3a9c2e5b1d';

export function target(url: string, over: Partial<TargetInput> = {}): Target {
  return Target.parse({
    name: 'rates',
    url,
    headers: { Authorization: SECRET },
    tool: { name: 'get_rate', arguments: { pair: 'EURUSD' } },
    timeoutMs: 2_000,
    budgetMs: 8_000,
    ...over,
  });
}
