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
 * ticket weight (common/run-record.ts) stays below one failed region only up to this many regions.
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
  schedule: schedule.optional(),
  /** Overrides the fleet's probe regions for this target. */
  probeRegions: z.array(region).min(1).optional(),
  runbookUrl: z.url().optional(),
  /** Its place on the status page: a display name, or hidden (functions/base/config/schema/status-page.ts). */
  status: TargetStatusSetting.optional(),
  /** Overrides the fleet's SLO, field by field (functions/base/config/schema/slo.ts). */
  slo: SloOverride.optional(),
}).superRefine(checkTarget);

export const Fleet = z
  .object({
    /** Prefixes every stack, alarm, topic and function (`cdk synth`; the default app's is McpCanary). */
    name: z.string().superRefine(refineBy(fleetNameProblem)).optional(),
    /** The region that holds metrics, alarms, topics and the dashboard. */
    homeRegion: region,
    /** The regions every target is probed from (default: the home region alone). */
    probeRegions: z.array(region).min(1, 'needs at least one region').optional(),
    schedule: schedule.default(DEFAULT_SCHEDULE),
    failureThreshold: z.number().int().min(1).max(10, 'must be at most 10').default(DEFAULT_FAILURE_THRESHOLD),
    /** Regions that must fail at once before a page. Default: more than half of the probe regions. */
    quorum: z.number().int().min(1).optional(),
    namespace: z.string().superRefine(refineBy(namespaceProblem)).default(DEFAULT_NAMESPACE),
    runbookUrl: z.url().optional(),
    notify: z
      .object({
        /** Pages: critical alarms, ALARM and OK. */
        pages: z.array(Subscription).default([]),
        /** Tickets: degraded, one region failing, inconclusive runs. */
        tickets: z.array(Subscription).default([]),
        /** The canary's own health: dead-man, Lambda errors, schedule DLQ. */
        canaryOwner: z.array(Subscription).default([]),
        /** Briefs: a readable summary of every alarm change (chat channels, email); never the page itself. */
        briefs: z.array(Subscription).default([]),
      })
      .strict()
      .default({ pages: [], tickets: [], canaryOwner: [], briefs: [] }),
    targets: z.array(FleetTarget).min(1, 'needs at least one target'),
    /** The egress proxy the run functions reach endpoints through, and the VPC they run in (functions/base/config/schema/proxy.ts). */
    proxy: ProxySetting.optional(),
    /** Windows that mute the paging and ticket alarms of some targets (alarm mute rules). */
    maintenance: z.array(MaintenanceWindow).default([]),
    /** A static status page in S3, public behind CloudFront when it says so. @default - none */
    statusPage: StatusPage.optional(),
    /** The objective `mcp-canary report` and the SLO burn alarms measure against (functions/base/config/schema/slo.ts). */
    slo: SloSetting.optional(),
    /** The runs as OpenTelemetry traces and metrics over OTLP/HTTP (telemetry.ts). Off when absent. */
    telemetry: Telemetry.optional(),
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
