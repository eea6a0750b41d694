/**
 * The service-level objective a target is held to: what `mcp-canary report` measures the error budget
 * against, and (with `burnAlarms`) what the SLO burn alarms watch. Set once for the fleet, overridden
 * field by field per target:
 *
 *   slo: { objective: 99.9, windowDays: 30, burnAlarms: true },
 *   targets: [{ name: 'docs', url: '…', slo: { objective: 99.5 } }]
 *
 * Availability is measured by the rule that pages (functions/io/history/timeline.ts): a minute is down when
 * the paging alarm counts it so, maintenance windows left out.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';

export const DEFAULT_SLO_WINDOW_DAYS = 30;
/** `mcp-canary report` reads at most 90 days; a window longer than what it can show would be unmeasurable. */
export const MAX_SLO_WINDOW_DAYS = 90;

const objective = z
  .number({ error: 'must be a number: the percentage of time the target should be up, e.g. 99.9' })
  .gt(0, 'must be more than 0 and less than 100 (a percentage, e.g. 99.9)')
  .lt(100, 'must be less than 100: 100 % leaves no error budget at all. Write e.g. 99.9 or 99.95');
const windowDays = z
  .number({ error: 'must be a whole number of days from 1 to 90, e.g. 30' })
  .int('must be a whole number of days, e.g. 30')
  .min(1, 'must be at least 1 day')
  .max(MAX_SLO_WINDOW_DAYS, `must be at most ${MAX_SLO_WINDOW_DAYS} days (what \`mcp-canary report\` can read back)`);
const burnAlarms = z.boolean({ error: 'must be true or false' });

/** The fleet's default: an objective is required once `slo` is written. */
export const SloSetting = z
  .object({
    /** Percent of judged time up, in (0, 100): 99.9 allows 43.2 minutes down in 30 days. */
    objective: objective.meta({ description: 'Percent of judged time up, in (0, 100): 99.9 allows 43.2 minutes down in 30 days' }),
    /** The rolling window the objective is over, and the SLO burn alarms' budget period. @default 30 */
    windowDays: windowDays.optional().meta({
      description: "The rolling window the objective is over, and the SLO burn alarms' budget period",
      defaultText: `\`${DEFAULT_SLO_WINDOW_DAYS}\``,
    }),
    /** Multi-window, multi-burn-rate alarms: fast burn pages, slow burn tickets. @default false */
    burnAlarms: burnAlarms
      .optional()
      .meta({ description: 'Multi-window, multi-burn-rate alarms: a fast burn pages, a slow one tickets', defaultText: '`false`' }),
  })
  .strict();
export type SloSetting = z.output<typeof SloSetting>;

/** A target's override: any field of the fleet's, the rest inherited. */
export const SloOverride = z
  .object({
    objective: objective.optional().meta({ description: "The target's own objective", defaultText: "the fleet's" }),
    windowDays: windowDays
      .optional()
      .meta({ description: "The target's own window", defaultText: `the fleet's, else \`${DEFAULT_SLO_WINDOW_DAYS}\`` }),
    burnAlarms: burnAlarms
      .optional()
      .meta({ description: 'Burn alarms for this target, or not', defaultText: "the fleet's, else `false`" }),
  })
  .strict();
export type SloOverride = z.output<typeof SloOverride>;

export interface Slo {
  readonly objective: number;
  readonly windowDays: number;
  readonly burnAlarms: boolean;
}

/** The SLO a target is held to, or null when neither it nor the fleet sets an objective. */
export function sloOf(fleet: { slo?: SloSetting | undefined }, target: { slo?: SloOverride | undefined }): Slo | null {
  const objective = target.slo?.objective ?? fleet.slo?.objective;
  if (objective === undefined) return null;
  return {
    objective,
    windowDays: target.slo?.windowDays ?? fleet.slo?.windowDays ?? DEFAULT_SLO_WINDOW_DAYS,
    burnAlarms: target.slo?.burnAlarms ?? fleet.slo?.burnAlarms ?? false,
  };
}

/** A target that turns burn alarms on must have an objective to burn (its own or the fleet's). */
export function checkSlo(
  f: { slo?: SloSetting | undefined; targets: ReadonlyArray<{ slo?: SloOverride | undefined }> },
  ctx: z.RefinementCtx,
): void {
  f.targets.forEach((t, i) => {
    if (t.slo && t.slo.objective === undefined && f.slo === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['targets', i, 'slo', 'objective'],
        message: 'is missing: give the target an objective (e.g. slo: { objective: 99.9 }) or set slo: { objective } for the fleet',
      });
  });
}
