/**
 * What `cdk synth` refuses, beyond the fleet schema: things that are valid for the CLI but cannot be
 * deployed as asked. Every message names the target (index and name) and the field, and says what to do.
 */
import { localOnlyRefs } from '../../functions/base/config/load/oauth-secrets.ts';
import { lambdaTimeoutSeconds } from '../../functions/base/config/schema/budget.ts';
import { MAX_PROBE_REGIONS, type Fleet, type FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { parseNamingTargets } from '../../functions/base/config/load/load.ts';
import { windowEnd } from '../../functions/base/config/schema/maintenance.ts';
import { deadManRuns } from '../../functions/base/common/alarm-words.ts';
import { CanaryError, configError } from '../../functions/base/common/errors.ts';
import { targetRule } from '../../functions/base/config/schema/target-rule.ts';
import { tlsRefs } from '../../functions/base/config/schema/tls.ts';
import { credentialInQuery } from '../../functions/base/common/shown-url.ts';

/**
 * CloudWatch (PutMetricAlarm, `Period`): "An alarm's total current evaluation period can be no longer
 * than seven days, so Period multiplied by EvaluationPeriods can't be more than 604,800 seconds. For
 * alarms with a period of less than one hour (3,600 seconds), the total evaluation period can't be
 * longer than one day (86,400 seconds)."
 */
export const MAX_ALARM_WINDOW_SECONDS = 86_400;
export const MAX_LONG_PERIOD_ALARM_WINDOW_SECONDS = 7 * 86_400;

/** The longest window an alarm with this period may evaluate. */
export function alarmWindowLimit(periodSeconds: number): number {
  return periodSeconds < 3600 ? MAX_ALARM_WINDOW_SECONDS : MAX_LONG_PERIOD_ALARM_WINDOW_SECONDS;
}

/**
 * Parses the fleet and applies the deploy-time rules; throws `CanaryError` (CONFIG) naming target and
 * field. `now` is when "in the past" is judged: a maintenance window that has ended by then is refused.
 */
export function checkFleet(raw: FleetInput, now: Date = new Date()): Fleet {
  const fleet = parseNamingTargets(raw, 'mcp-canary fleet config');
  fleet.targets.forEach((t, i) => {
    const headers = Object.keys(t.headers);
    if (headers.length > 0) {
      throw fleetError(
        i,
        t.name,
        `headers.${headers[0]}`,
        `is a static header value, which would be written into the CloudFormation template in clear text. Move it to headerSecrets, e.g. headerSecrets: { ${JSON.stringify(headers[0])}: { secretsManager: "mcp-canary/${t.name}", prefix: "Bearer " } }`,
      );
    }
    const inQuery = credentialInQuery(t.url);
    if (inQuery) {
      throw fleetError(
        i,
        t.name,
        'url',
        `has ?${inQuery}=…, a credential that would be written into the CloudFormation template in clear text. Move it to querySecrets and remove it from url, e.g. querySecrets: { ${JSON.stringify(inQuery)}: { secretsManager: "mcp-canary/${t.name}/${inQuery}" } }`,
      );
    }
    const local = localOnlyRefs(t.auth?.oauth, t.auth?.authorizationCode)[0];
    if (local) {
      throw fleetError(
        i,
        t.name,
        local,
        'is an { env } or { file } reference, which only the CLI can read: the deployed run reads { secretsManager: "<name or ARN>" } or { ssmParameter: "<name>" }',
      );
    }
    const file = tlsRefs(t.tls).find(([, ref]) => 'file' in ref);
    if (file) {
      throw fleetError(
        i,
        t.name,
        file[0],
        `is a file reference, which only the CLI can read: store the PEM in Secrets Manager as "mcp-canary/${t.name}/${file[0].slice(4)}" and reference { secretsManager: "mcp-canary/${t.name}/${file[0].slice(4)}" } (or { ssmParameter: "/mcp-canary/..." })`,
      );
    }
    const { regions, regionField, quorum, schedule, scheduleField, periodSeconds: period } = targetRule(fleet, t);
    if (regions.length > MAX_PROBE_REGIONS) {
      throw fleetError(
        i,
        t.name,
        regionField,
        `lists ${regions.length} regions; probe each target from at most ${MAX_PROBE_REGIONS} regions (the alarms count failed and inconclusive regions in one metric, in places that stay apart only up to ${MAX_PROBE_REGIONS})`,
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
    // The dead-man alarm reads the most periods of a target's alarms (target-alarms.ts): its
    // EvaluationPeriods, deadManRuns(N), times the period is what CloudWatch bounds (PutMetricAlarm).
    const periods = deadManRuns(fleet.failureThreshold);
    const limit = alarmWindowLimit(period);
    if (periods * period > limit) {
      throw fleetError(
        i,
        t.name,
        scheduleField,
        `${schedule} × ${periods} periods (the dead-man alarm's, for failureThreshold ${fleet.failureThreshold}) spans ${days(periods * period)}, more than the ${days(limit)} a CloudWatch alarm with this period can evaluate. Use a faster schedule or a lower failureThreshold`,
      );
    }
  });
  fleet.maintenance.forEach((w, i) => {
    const end = windowEnd(w);
    if (end && end.getTime() <= now.getTime()) {
      throw configError(
        `mcp-canary fleet config: maintenance[${i}] (${JSON.stringify(w.name)}).schedule ${w.schedule.trim()} ${w.timezone ? `(${w.timezone}) ` : ''}ended at ${end.toISOString().slice(0, 16).replace('T', ' ')} UTC, before this synth: a mute rule for the past mutes nothing. Remove the window, or give it a date to come.`,
      );
    }
  });
  return fleet;
}

function days(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} day(s)` : `${Math.round((seconds / 3600) * 10) / 10} hours`;
}

/** `targets[2] ("rates-prod").budgetMs (90000 ms) …`: the config path a user would look for, and the name. */
export function fleetError(index: number, name: string, field: string, message: string): CanaryError {
  return configError(`mcp-canary fleet config: targets[${index}] (${JSON.stringify(name)}).${field} ${message}.`);
}
