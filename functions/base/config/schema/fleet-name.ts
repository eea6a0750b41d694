/**
 * Which fleet a config names, for everything that reads a deployed fleet back by its names (alarms
 * `<name>/<target>/<kind>`, log groups `/mcp-canary/<name>/…`): the config's `name` when it has one, which
 * is what the stacks were deployed under; else the name its deployer gave (a CDK app's construct id, the
 * report's `--fleet`); else the default app's `McpCanary`. One answer, so the report, the plan (and the
 * status page's payload in it) never read a fleet other than the one the config names.
 */
import { configError } from '../../common/errors.ts';
import { DEFAULT_FLEET_NAME, fleetNameProblem } from '../aws/aws-names.ts';

export { DEFAULT_FLEET_NAME };

/** Where the name came from: the config's `name`, the deployer's (e.g. `--fleet`), or the default. */
export type FleetNameFrom = 'config' | 'given' | 'default';

/**
 * The fleet's name. `given` (with the flag or option that gave it, for the message) is refused when it
 * contradicts the config's `name`, as the McpCanaryFleet construct refuses a name option that does, and
 * when it is no fleet name at all.
 */
export function fleetNameOf(
  config: { readonly name?: string | undefined },
  given?: { readonly name: string; readonly by: string },
): { readonly name: string; readonly from: FleetNameFrom } {
  if (config.name !== undefined && given !== undefined && given.name !== config.name)
    throw configError(
      `${given.by} ${given.name}, but the config's name is ${JSON.stringify(config.name)}: the fleet is the one the config names. Drop ${given.by} (or change name in the config).`,
    );
  if (config.name !== undefined) return { name: config.name, from: 'config' };
  if (given !== undefined) {
    const problem = fleetNameProblem(given.name);
    if (problem) throw configError(`${given.by} ${problem}`);
    return { name: given.name, from: 'given' };
  }
  return { name: DEFAULT_FLEET_NAME, from: 'default' };
}
