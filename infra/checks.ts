/**
 * What `cdk synth` refuses, beyond the fleet schema: things that are valid for the CLI but cannot be
 * deployed as asked. Every message names the target (index and name) and the field, and says what to do.
 */
import { localOnlyRefs } from '../functions/auth/secrets.ts';
import { lambdaTimeoutSeconds } from '../functions/run/budget.ts';
import { MAX_PROBE_REGIONS, type Fleet, type FleetInput } from '../functions/config/fleet.ts';
import { parseFleet } from '../functions/config/load.ts';
import { CanaryError, configError } from '../functions/errors.ts';
import { resolveTarget } from './resolve.ts';

/** CloudWatch: evaluation periods × period must not exceed one day. */
export const MAX_ALARM_WINDOW_SECONDS = 86_400;

/** Parses the fleet and applies the deploy-time rules; throws `CanaryError` (CONFIG) naming target and field. */
export function checkFleet(raw: FleetInput): Fleet {
  let fleet: Fleet;
  try {
    fleet = parseFleet(raw, 'mcp-canary fleet config');
  } catch (e) {
    if (e instanceof CanaryError) throw configError(nameTargets(e.message, raw), e);
    throw e;
  }
  fleet.targets.forEach((t, i) => {
    const headers = Object.keys(t.headers);
    if (headers.length > 0) {
      throw fleetError(
        i,
        t.name,
        `headers.${headers[0]}`,
        `is a static header value, which would be written into the CloudFormation template in clear text. Move it to headerSecrets, e.g. headerSecrets: { ${JSON.stringify(headers[0])}: { secretsManager: "mcp/${t.name}", prefix: "Bearer " } }`,
      );
    }
    const local = localOnlyRefs(t.auth?.oauth)[0];
    if (local) {
      throw fleetError(
        i,
        t.name,
        local,
        'is an { env } or { file } reference, which only the CLI can read: the deployed run reads { secretsManager: "<name or ARN>" } or { ssmParameter: "<name>" }',
      );
    }
    const { regions, regionField, quorum, schedule, scheduleField, periodSeconds: period } = resolveTarget(fleet, t);
    if (regions.length > MAX_PROBE_REGIONS) {
      throw fleetError(
        i,
        t.name,
        regionField,
        `lists ${regions.length} regions; probe each target from at most ${MAX_PROBE_REGIONS} regions (the alarms count regions in one metric whose ticket weight stays below one failure only up to ${MAX_PROBE_REGIONS})`,
      );
    }
    if (new Set(regions).size !== regions.length) {
      throw fleetError(i, t.name, regionField, `lists a region twice (${regions.join(', ')}): list each region once`);
    }
    if (quorum > regions.length) {
      throw fleetError(
        i,
        t.name,
        'probeRegions',
        `has ${regions.length} region(s) but the fleet quorum is ${quorum}: it could never page. Add regions or lower quorum`,
      );
    }
    const timeout = lambdaTimeoutSeconds(t.budgetMs);
    if (timeout >= period) {
      throw fleetError(
        i,
        t.name,
        'budgetMs',
        `(${t.budgetMs} ms) needs a ${timeout} s function timeout, which is not shorter than its schedule ${schedule}: runs would overlap. Lower budgetMs or use a slower schedule`,
      );
    }
    if (fleet.failureThreshold * period > MAX_ALARM_WINDOW_SECONDS) {
      throw fleetError(
        i,
        t.name,
        scheduleField,
        `${schedule} × failureThreshold ${fleet.failureThreshold} spans more than one day, the longest window a CloudWatch alarm evaluates. Use a faster schedule or a lower failureThreshold`,
      );
    }
  });
  return fleet;
}

/** `targets[2] ("rates-prod").budgetMs (90000 ms) …`: the config path a user would look for, and the name. */
export function fleetError(index: number, name: string, field: string, message: string): CanaryError {
  return configError(`mcp-canary fleet config: targets[${index}] (${JSON.stringify(name)}).${field} ${message}.`);
}

/** Adds each target's name after `targets[i]` in a schema message, so the user finds it by name. */
function nameTargets(message: string, raw: unknown): string {
  const targets = (raw as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return message;
  // Only the fleet's own `targets[i]`, not a list of target names inside another field (maintenance[0].targets[0]).
  return message.replace(/(?<![.\w])targets\[(\d+)\](?! \()/g, (whole, i: string) => {
    const name = (targets[Number(i)] as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name ? `${whole} (${JSON.stringify(name)})` : whole;
  });
}
