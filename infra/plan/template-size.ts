/**
 * How big a stack's template will be, estimated before any construct exists, so placement can split
 * stacks by size (placement.ts). CloudFormation counts the template file as uploaded: CDK writes it with
 * one-space indentation, and those bytes count. An estimate is the JSON-escaped bytes of every text the
 * resource carries (names, descriptions, the schedule input) plus a fixed structure per resource type,
 * measured on synthesized templates with room to spare; test/unit/infra/template-size.test.ts holds every
 * estimate above the bytes it stands for, on fleets built to be large (long names and URLs, non-ASCII
 * runbooks, ten regions).
 */
import { AlarmKind, alarmKinds, describeAlarm } from '../../functions/base/common/alarm-words.ts';
import type { FleetNames } from './names.ts';

/** CloudFormation: resources per stack. */
export const CLOUDFORMATION_MAX_RESOURCES = 500;
/** CloudFormation: template body from S3 (how CDK deploys a template over 51,200 bytes). 1 MB, counted as 1,000,000 bytes. */
export const CLOUDFORMATION_MAX_TEMPLATE_BYTES = 1_000_000;

/**
 * What placement fills a stack to: 90% of the resources (a main probe stack's fixed part is counted,
 * not measured) and 80% of the bytes (estimates, and a margin for what later releases add).
 */
export const STACK_BUDGET = { resources: 450, bytes: 800_000 } as const;

/** The text of a string as a template holds it: JSON-escaped, with its quotes. */
export function jsonBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s), 'utf8');
}

/** One alarm resource, all but its texts (metrics, actions as `Fn::Sub` ARNs, thresholds, indentation). */
const ALARM_STRUCTURE_BYTES = 1_500;

export interface AlarmFactsOfTarget {
  readonly name: string;
  readonly gateway?: string | undefined;
  readonly url: string;
  readonly regions: readonly string[];
  readonly quorum: number;
  readonly periodSeconds: number;
  readonly runbookUrl: string | undefined;
}

/** The three alarms of a target (critical, warning, dead-man), as an alarm stack's template holds them. */
export function targetAlarmsBytes(names: FleetNames, namespace: string, failureThreshold: number, t: AlarmFactsOfTarget): number {
  let bytes = 0;
  for (const kind of alarmKinds) {
    const description = describeAlarm({
      kind,
      target: t.name,
      gateway: t.gateway,
      url: t.url,
      regions: t.regions,
      quorum: t.quorum,
      failureThreshold: kind === AlarmKind.deadMan ? Math.max(2, failureThreshold) : failureThreshold,
      periodSeconds: t.periodSeconds,
      runbookUrl: t.runbookUrl,
      runLogGroup: names.runLogGroup,
    });
    // The target name is in the logical id and in each metric's dimension (twice for metric math),
    // the namespace in each metric, the fleet name in every topic ARN (up to three actions).
    bytes +=
      jsonBytes(description) +
      jsonBytes(names.alarm(t.name, kind)) +
      3 * jsonBytes(t.name) +
      2 * jsonBytes(namespace) +
      3 * jsonBytes(names.topic('canary-owner')) +
      ALARM_STRUCTURE_BYTES;
  }
  return bytes;
}

/** One schedule resource, all but its texts (target, retry policy, role and ARNs, indentation). */
const SCHEDULE_STRUCTURE_BYTES = 1_300;

export function scheduleBytes(name: string, description: string, input: string): number {
  return jsonBytes(name) + jsonBytes(description) + jsonBytes(input) + SCHEDULE_STRUCTURE_BYTES;
}

/**
 * A probe region's main stack without its schedules: log group, roles, queues, topic, schedule group
 * and owner alarms (counted generously), plus per rate a function, its async config and errors alarm.
 */
export function mainProbeStackFixed(rates: number, canaryOwnerSubscriptions: number): { resources: number; bytes: number } {
  return { resources: 40 + canaryOwnerSubscriptions + 4 * rates, bytes: 60_000 + 1_000 * canaryOwnerSubscriptions + 8_000 * rates };
}

/** An overflow schedule stack's own part: the Scheduler role and its policy. */
export const OVERFLOW_STACK_FIXED = { resources: 2, bytes: 4_000 } as const;

/** One mute rule, all but its alarm names (schedule, duration, description, indentation). */
const MUTE_RULE_STRUCTURE_BYTES = 1_000;
/** One alarm a rule names, all but the name: its line's indentation and comma. */
const MUTED_ALARM_STRUCTURE_BYTES = 16;

export function muteRuleBytes(ruleName: string, description: string, alarmNames: readonly string[]): number {
  return (
    jsonBytes(ruleName) +
    jsonBytes(description) +
    alarmNames.reduce((n, a) => n + jsonBytes(a) + MUTED_ALARM_STRUCTURE_BYTES, 0) +
    MUTE_RULE_STRUCTURE_BYTES
  );
}
