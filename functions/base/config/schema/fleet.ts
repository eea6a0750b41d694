/**
 * The fleet config: every target, where it is probed from, and who is told. The same file drives
 * `mcp-canary check --config`, the scheduled run and `cdk synth`.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used (zod's locales alone are 264 KB).
import * as z from 'zod';
import { arnProblem, LAMBDA_FUNCTION_ARN, SQS_QUEUE_ARN } from '../aws/arns.ts';
import { fleetNameProblem, namespaceProblem } from '../aws/aws-names.ts';
import { checkMaintenance, MaintenanceWindow } from './maintenance.ts';
import { checkPartition } from '../aws/partition.ts';
import { checkProxyRegions, ProxySetting } from './proxy.ts';
import { regionProblem } from '../aws/regions.ts';
import { checkSlo, SloOverride, SloSetting } from './slo.ts';
import { canaryScheduleProblem, rateFor, rateSeconds, schedulerProblem } from '../aws/schedule.ts';
import { checkStatusNames, StatusPage, TargetStatusSetting } from './status-page.ts';
import { checkTarget, TargetFields } from './target.ts';
import { probeRegionsOf } from './target-rule.ts';
import { Telemetry } from './telemetry.ts';
import { refineBy, unionError } from '../words/words.ts';

export const DEFAULT_SCHEDULE = 'rate(1 minute)';
/** Failed runs in a row before a page (Gatus' failure-threshold). */
export const DEFAULT_FAILURE_THRESHOLD = 3;
export const DEFAULT_NAMESPACE = 'McpCanary';
/**
 * At most this many probe regions per target (checked at synth, infra/plan/checks.ts): the `Verdict` metric's
 * places (common/run-record.ts) stay apart only up to this many regions: the inconclusive runs of an hour's
 * point that history reads (10 regions × 60 runs) fit below one failed region.
 */
export const MAX_PROBE_REGIONS = 10;

const region = z.string().superRefine(refineBy(regionProblem));
/**
 * Valid for EventBridge Scheduler first (its own rules), then usable by the canary (a rate); written the
 * one way per period (`rate(60 minutes)` → `rate(1 hour)`), since the stacks name a function per period.
 */
const schedule = z
  .string()
  .superRefine(refineBy((s) => schedulerProblem(s) ?? canaryScheduleProblem(s)))
  .transform((s) => {
    const seconds = rateSeconds(s);
    return seconds === null ? s : rateFor(seconds);
  });

export const Subscription = z.union(
  [
    z.object({ email: z.email('is not an email address') }).strict(),
    z.object({ url: z.url({ protocol: /^https$/, error: 'must be an https URL (e.g. a PagerDuty CloudWatch integration URL)' }) }).strict(),
    z.object({ sqsQueueArn: z.string().superRefine(refineBy((s) => arnProblem(s, SQS_QUEUE_ARN))) }).strict(),
    z.object({ lambdaArn: z.string().superRefine(refineBy((s) => arnProblem(s, LAMBDA_FUNCTION_ARN))) }).strict(),
  ],
  { error: unionError('must be one of { email }, { url }, { sqsQueueArn }, { lambdaArn }') },
);
export type Subscription = z.infer<typeof Subscription>;

export const FleetTarget = TargetFields.extend({
  /** Overrides the fleet's schedule for this target. */
  schedule: schedule.optional().meta({ description: "Overrides the fleet's `schedule` for this target", defaultText: "the fleet's" }),
  /** Overrides the fleet's probe regions for this target. */
  probeRegions: z
    .array(region)
    .min(1)
    .optional()
    .meta({ description: "Overrides the fleet's probe regions for this target (at most 10)", defaultText: "the fleet's" }),
  runbookUrl: z.url().optional().meta({ description: "Overrides the fleet's `runbookUrl`", defaultText: "the fleet's" }),
  /** Its place on the status page: a display name, or hidden (functions/base/config/schema/status-page.ts). */
  status: TargetStatusSetting.optional().meta({
    description: 'Its place on the status page: a display name, or hidden',
    defaultText: 'shown, under its `name`',
  }),
  /** Overrides the fleet's SLO, field by field (functions/base/config/schema/slo.ts). */
  slo: SloOverride.optional().meta({
    description: "Overrides the fleet's `slo`, field by field; an objective must be set here or in the fleet",
    defaultText: "the fleet's",
  }),
}).superRefine(checkTarget);

export const Fleet = z
  .object({
    /** Prefixes every stack, alarm, topic and function (`cdk synth`; the default app's is McpCanary). */
    name: z.string().superRefine(refineBy(fleetNameProblem)).optional().meta({
      description:
        "Prefixes every stack, alarm, topic, function, table and log group: 1–32 letters, digits or `-`, starting with a letter (CloudFormation's stack-name rules, with room for the longest derived name). Two fleets in one account need two names; renaming a deployed fleet replaces all of its stacks",
      defaultText: '`McpCanary` in the default app; in your own CDK app, the construct id',
    }),
    /** The region that holds metrics, alarms, topics and the dashboard. */
    homeRegion: region.meta({
      description:
        'Where the metrics, alarms, topics, the brief and the dashboard live. Every region and ARN of the fleet must be in its partition (`aws`, `aws-cn`, `aws-us-gov` or `aws-eusc`; the ISO partitions are refused)',
    }),
    /** The regions every target is probed from (default: the home region alone). */
    probeRegions: z.array(region).min(1, 'needs at least one region').optional().meta({
      description: 'The regions every target is probed from (at most 10 per target); a target may override them',
      defaultText: '`[homeRegion]`',
    }),
    schedule: schedule.default(DEFAULT_SCHEDULE).meta({
      description:
        'How often each target runs: an EventBridge Scheduler `rate(…)` (`rate(1 minute)`, `rate(5 minutes)`); a `cron(…)` or `at(…)` is refused with the rate to write, since the alarms count runs in a row. A target may override it',
      defaultText: `\`${DEFAULT_SCHEDULE}\``,
    }),
    failureThreshold: z
      .number()
      .int()
      .min(1)
      .max(10, 'must be at most 10')
      .default(DEFAULT_FAILURE_THRESHOLD)
      .meta({ description: 'N: failed runs in a row before a page (and periods in a row for the ticket and dead-man alarms)' }),
    /** Regions that must fail at once before a page. Default: more than half of the probe regions. */
    quorum: z.number().int().min(1).optional().meta({
      description: 'Regions that must fail in the same run to page (at most the probe regions)',
      defaultText: "more than half of the target's regions",
    }),
    namespace: z
      .string()
      .superRefine(refineBy(namespaceProblem))
      .default(DEFAULT_NAMESPACE)
      .meta({ description: "CloudWatch namespace of the `Verdict` metric: 1–255 characters, no spaces, not in AWS's reserved `AWS/`" }),
    runbookUrl: z.url().optional().meta({ description: 'Put in every alarm description and brief; a target may override it' }),
    notify: z
      .object({
        /** Pages: critical alarms, ALARM and OK. */
        pages: z.array(Subscription).default([]).meta({
          description: 'Pages: the critical alarms, ALARM and OK (a pager opens one incident and resolves it under the same alarm name)',
        }),
        /** Tickets: degraded, one region failing, inconclusive runs. */
        tickets: z
          .array(Subscription)
          .default([])
          .meta({ description: 'Tickets: degraded runs, one region failing, inconclusive runs, warnings' }),
        /** The canary's own health: dead-man, Lambda errors, schedule DLQ. */
        canaryOwner: z.array(Subscription).default([]).meta({
          description:
            "The canary's own health: missed runs (dead-man), its errors, dead-lettered runs, undelivered pages. Alarms notify topics in their own region, so an email subscriber confirms once per probe region",
        }),
        /** Briefs: a readable summary of every alarm change (chat channels, email); never the page itself. */
        briefs: z.array(Subscription).default([]).meta({
          description:
            'Briefs: a readable summary of every alarm change, with the failing probes (chat channels, email); never the page itself',
        }),
      })
      .strict()
      .default({ pages: [], tickets: [], canaryOwner: [], briefs: [] })
      .meta({
        description:
          "Who is told, by subscriber: `{ email }` (confirmed from SNS's email), `{ url }` (HTTPS, e.g. a PagerDuty or JSM CloudWatch integration URL), `{ sqsQueueArn }` (its queue policy must let SNS send) or `{ lambdaArn }` (home region; the stack grants the invoke)",
      }),
    targets: z
      .array(FleetTarget)
      .min(1, 'needs at least one target')
      .meta({ description: 'The endpoints, each judged from every probe region on its schedule' }),
    /** The egress proxy the run functions reach endpoints through, and the VPC they run in (functions/base/config/schema/proxy.ts). */
    proxy: ProxySetting.optional().meta({
      description:
        'The egress proxy the run functions reach endpoints through, and the VPC they run in; `mcp-canary check --config` goes through it too',
      defaultText: 'none: direct',
    }),
    /** Windows that mute the paging and ticket alarms of some targets (alarm mute rules). */
    maintenance: z.array(MaintenanceWindow).default([]).meta({
      description:
        "Windows that mute the paging and ticket alarms of some targets (CloudWatch alarm mute rules); the canary owner's alarms are never muted",
    }),
    /** A static status page in S3, public behind CloudFront when it says so. @default - none */
    statusPage: StatusPage.optional().meta({
      description: 'A static status page written to a private S3 bucket every 5 minutes, public behind CloudFront when it says so',
      defaultText: 'none: no page',
    }),
    /** The objective `mcp-canary report` and the SLO burn alarms measure against (functions/base/config/schema/slo.ts). */
    slo: SloSetting.optional().meta({
      description: 'The objective `mcp-canary report` and the SLO burn alarms measure against; a target overrides it field by field',
      defaultText: 'none',
    }),
    /** The runs as OpenTelemetry traces and metrics over OTLP/HTTP (telemetry.ts). Off when absent. */
    telemetry: Telemetry.optional().meta({
      description: 'The scheduled runs as OpenTelemetry traces and metrics over OTLP/HTTP, to your own backend',
      defaultText: 'none: no export',
    }),
  })
  .strict()
  .superRefine((f, ctx) => {
    checkMaintenance(f, ctx);
    checkSlo(f, ctx);
    checkPartition(f, ctx, (t) => probeRegionsOf(f, t).regions);
    const fleetRegions = probeRegionsOf(f).regions;
    checkProxyRegions(f.proxy, new Set([...fleetRegions, ...f.targets.flatMap((t) => probeRegionsOf(f, t).regions)]), ctx);
    checkStatusNames(f, ctx);
    const seen = new Map<string, number>();
    f.targets.forEach((t, i) => {
      const first = seen.get(t.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['targets', i, 'name'],
          message: `"${t.name}" is already used by targets[${first}]: target names must be unique`,
        });
      }
      seen.set(t.name, i);
    });
    if (f.quorum !== undefined && f.quorum > fleetRegions.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['quorum'],
        message: `(${f.quorum}) is more than the ${fleetRegions.length} probe region(s): lower it`,
      });
    }
  });

export type FleetInput = z.input<typeof Fleet>;
export type Fleet = z.output<typeof Fleet>;
export type FleetTarget = z.output<typeof FleetTarget>;

/** Type helper for `mcp-canary.config.ts`: `export default defineFleet({ ... })`. */
export function defineFleet(input: FleetInput): FleetInput {
  return input;
}
