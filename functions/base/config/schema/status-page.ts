/**
 * The status page's settings, and the one payload its scheduled function reads. Off unless the fleet
 * has `statusPage`:
 *
 *   statusPage: { title: 'Acme MCP status', public: true },
 *   targets: [{ name: 'search-prod', url: '…', status: { name: 'Search tools' } }, { name: 'internal-x', url: '…', status: { hidden: true } }]
 *
 * What the page may show is decided here, once: the payload carries display names, counts of regions and
 * maintenance times, and nothing else of the config (no URL, header, account or window name), so neither
 * the function nor the page can leak what they were never given. A hidden target is not in it. The probe
 * regions' names go along for one job, reading failure classes from the run logs, and the snapshot never
 * copies them (functions/lambdas/status/snapshot.ts builds the page from display names and counts only).
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { refineBy } from '../words/words.ts';

/** Days of history the page shows as bars (the issue's 90). */
export const STATUS_DAYS = 90;
/** The page is rewritten this often (why: infra/constructs/status-stack.ts); the page says so. */
export const STATUS_EVERY_MINUTES = 5;
/** How far ahead maintenance windows are listed as upcoming. */
export const STATUS_UPCOMING_DAYS = 14;

/**
 * Control characters and the bidirectional controls (U+202A–U+202E, U+2066–U+2069, the marks U+200E/F,
 * U+061C): the page puts a name inside its sentences, and an override there reverses the rest of the
 * sentence for every reader ("…rof gniliaf si"), a line break splits it. Plain text only.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
export function shownTextProblem(text: string): string | null {
  const at = text.search(UNSHOWABLE);
  if (at < 0) return null;
  const code = text.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
  return `has a control or text-direction character (U+${code} at position ${at + 1}), which would garble the page's sentences: write it as plain text`;
}

const hostname = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

/** CloudFront takes its certificate from ACM in us-east-1 only. */
export function certificateArnProblem(arn: string): string | null {
  if (/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/.test(arn)) return null;
  return 'must be an ACM certificate ARN in us-east-1 (CloudFront reads certificates only there), e.g. arn:aws:acm:us-east-1:123456789012:certificate/…';
}

export const StatusPage = z
  .object({
    /** The page's heading and title. @default - "<fleet> status" */
    title: z
      .string()
      .trim()
      .min(1, 'is empty: give the page a title, or leave it out')
      .max(120, 'must be at most 120 characters')
      .superRefine(refineBy(shownTextProblem))
      .optional()
      .meta({
        description: "The page's heading and title: at most 120 characters, plain text (no control or text-direction character)",
        defaultText: '`<fleet> status`',
      }),
    /** Served to anyone through CloudFront. @default false - the page stays in a private bucket */
    public: z.boolean().default(false).meta({
      description: 'Served to anyone through CloudFront (Origin Access Control, strict security headers); the bucket itself stays private',
    }),
    /** A custom domain for the public page; needs `certificateArn` and `public: true`. */
    domainName: z.string().regex(hostname, 'must be a lowercase host name, e.g. status.example.com').optional().meta({
      description: 'A custom domain for the public page; needs `certificateArn` and `public: true`',
      defaultText: "none: CloudFront's own name",
    }),
    certificateArn: z.string().superRefine(refineBy(certificateArnProblem)).optional().meta({
      description: 'The ACM certificate of `domainName`, in us-east-1 (CloudFront reads certificates only there)',
      defaultText: 'none',
    }),
  })
  .strict()
  .superRefine((p, ctx) => {
    if ((p.domainName === undefined) !== (p.certificateArn === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [p.domainName === undefined ? 'domainName' : 'certificateArn'],
        message: 'is needed with the other: a custom domain takes both domainName and certificateArn',
      });
    if (p.domainName !== undefined && !p.public)
      ctx.addIssue({ code: 'custom', path: ['public'], message: 'must be true for a custom domain: only a public page is served on one' });
  });
export type StatusPage = z.output<typeof StatusPage>;

/** A target's place on the page. */
export const TargetStatusSetting = z
  .object({
    /** Shown instead of the target's name, e.g. "Search tools". @default - the target's name */
    name: z
      .string()
      .trim()
      .min(1, 'is empty: give a display name, or leave it out')
      .max(80, 'must be at most 80 characters')
      .superRefine(refineBy(shownTextProblem))
      .optional()
      .meta({
        description:
          'Shown instead of the target\'s name, e.g. `"Search tools"`: at most 80 characters, plain text; two shown targets may not share one',
        defaultText: "the target's `name`",
      }),
    /** Never on the page, nor in its JSON. */
    hidden: z.boolean().default(false).meta({ description: 'Never on the page, nor in its JSON' }),
  })
  .strict();

/** One shown target: `metric` keys its history (the metric's Target dimension), `name` is all the page shows. */
const PayloadTarget = z
  .object({
    metric: z.string().min(1),
    name: z.string().min(1),
    regions: z.number().int().min(1),
    quorum: z.number().int().min(1),
    periodSeconds: z.number().int().min(60),
    /**
     * The probe regions' names, only for reading the failure class of an incident from their run log
     * groups (functions/lambdas/status/causes.ts); never on the page or in its JSON. @default - no failure class
     */
    probeRegions: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

/** A maintenance window as the page needs it: its schedule and the display names of the shown targets it covers. */
const PayloadWindow = z
  .object({ schedule: z.string(), duration: z.string(), timezone: z.string().optional(), targets: z.array(z.string()).min(1) })
  .strict();

/** The scheduled function's input (the schedule's `Input`): everything it may show, nothing it may not. */
export const StatusPayload = z
  .object({
    title: z.string().min(1),
    fleet: z.string().min(1),
    namespace: z.string().min(1),
    failureThreshold: z.number().int().min(1),
    days: z.number().int().min(1).max(STATUS_DAYS),
    targets: z.array(PayloadTarget),
    maintenance: z.array(PayloadWindow),
  })
  .strict();
export type StatusPayload = z.output<typeof StatusPayload>;

interface PayloadSource {
  readonly statusPage?: StatusPage;
  readonly namespace: string;
  readonly failureThreshold: number;
  readonly maintenance: ReadonlyArray<{ schedule: string; duration: string; timezone?: string; targets?: readonly string[] }>;
}
interface PlannedTarget {
  readonly name: string;
  readonly regions: readonly string[];
  readonly quorum: number;
  readonly periodSeconds: number;
  readonly status?: { readonly name?: string; readonly hidden: boolean };
  /** A gateway's backend (`name` is `<gateway>/<backend>`): `status` is the gateway's, shown or hidden with it. */
  readonly gateway?: string;
}

/**
 * The payload for a fleet with a status page (infra/plan calls it): shown targets only, display names only.
 * A gateway's backend is shown as `<the gateway's display name> / <backend>`, and a maintenance window of
 * the gateway covers it, as it mutes its alarms.
 */
export function statusPayload(fleet: PayloadSource, fleetName: string, targets: readonly PlannedTarget[]): StatusPayload {
  const shown = targets.filter((t) => !t.status?.hidden);
  const displayOf = (t: PlannedTarget) => {
    const own = t.status?.name ?? t.gateway ?? t.name;
    return t.gateway ? `${own} / ${t.name.slice(t.gateway.length + 1)}` : own;
  };
  const display = new Map(shown.map((t) => [t.name, displayOf(t)]));
  const backendsOf = (name: string) => shown.filter((t) => t.gateway === name).map((t) => t.name);
  return {
    title: fleet.statusPage?.title ?? `${fleetName} status`,
    fleet: fleetName,
    namespace: fleet.namespace,
    failureThreshold: fleet.failureThreshold,
    days: STATUS_DAYS,
    targets: shown.map((t) => ({
      metric: t.name,
      name: display.get(t.name)!,
      regions: t.regions.length,
      quorum: t.quorum,
      periodSeconds: t.periodSeconds,
      probeRegions: [...t.regions],
    })),
    maintenance: fleet.maintenance.flatMap((w) => {
      const named = w.targets ? w.targets.flatMap((name) => [name, ...backendsOf(name)]) : targets.map((t) => t.name);
      const covered = named.flatMap((name) => (display.has(name) ? [display.get(name)!] : []));
      if (covered.length === 0) return [];
      return [{ schedule: w.schedule.trim(), duration: w.duration, ...(w.timezone ? { timezone: w.timezone } : {}), targets: covered }];
    }),
  };
}

/** Two shown targets with one display name would read as one service: refuse it, naming both. */
export function checkStatusNames(
  f: { statusPage?: unknown; targets: ReadonlyArray<{ name: string; status?: { name?: string; hidden: boolean } }> },
  ctx: z.RefinementCtx,
): void {
  if (f.statusPage === undefined) return;
  const seen = new Map<string, number>();
  f.targets.forEach((t, i) => {
    if (t.status?.hidden) return;
    const shown = t.status?.name ?? t.name;
    const first = seen.get(shown);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['targets', i, 'status', 'name'],
        message: `"${shown}" is already the status-page name of targets[${first}]: give each shown target its own status.name`,
      });
    seen.set(shown, i);
  });
}

/** The status function's environment (the CDK stack sets it). */
export const StatusEnvVar = {
  /** The bucket the page is written to. */
  bucket: 'MCP_CANARY_STATUS_BUCKET',
} as const;
