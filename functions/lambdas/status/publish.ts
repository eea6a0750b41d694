/**
 * One status run: the payload checked, each shown target's history gathered, the snapshot built, the page
 * and its JSON rendered and written. Everything the page says comes from the payload and the history;
 * nothing else of the config ever reaches this function.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { S3Client } from '@aws-sdk/client-s3';
import { configError } from '../../base/common/errors.ts';
import { STATUS_EVERY_MINUTES, STATUS_UPCOMING_DAYS, StatusPayload } from '../../base/config/schema/status-page.ts';
import type { MetricCost } from '../../io/history/metrics-reader.ts';
import { withCauses, type CauseCache, type CauseDeps } from './causes.ts';
import { gatherHistories, type TierCache } from './gather.ts';
import { renderPage } from './html.ts';
import { buildSnapshot } from './snapshot.ts';
import { JSON_KEY, writeStatus } from './write.ts';

/** Tries per object, the SDK's standard backoff between them. */
export const WRITE_ATTEMPTS = 5;
/** The schedule's rate, in the page's words. */
export const STATUS_EVERY = `${STATUS_EVERY_MINUTES} minutes`;

export interface StatusDeps {
  readonly s3: S3Client;
  readonly cloudwatch: CloudWatchClient;
  readonly bucket: string;
  readonly now: number;
  /** The older history tiers, kept by a warm function (gather.ts). */
  readonly cache?: TierCache;
  /** A CloudWatch Logs client per probe region, for failure classes (causes.ts). @default - no failure class is read */
  readonly logs?: CauseDeps['logs'];
  /** The failure classes already found, kept by a warm function. */
  readonly causes?: CauseCache;
}

export interface StatusResult {
  readonly written: readonly string[];
  readonly targets: number;
  /** GetMetricData calls and metrics requested (billed per 1,000), and FilterLogEvents calls, by this run. */
  readonly cost: MetricCost & { logCalls: number };
}

export async function publishStatus(event: unknown, deps: StatusDeps): Promise<StatusResult> {
  const parsed = StatusPayload.safeParse(event);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw configError(
      `The status function's input is not a status payload: ${first.path.join('.') || '(root)'} ${first.message}. Redeploy the fleet.`,
    );
  }
  const payload = parsed.data;
  const gathered = await gatherHistories(payload, { cloudwatch: deps.cloudwatch, now: deps.now, cache: deps.cache });
  const cost = { ...gathered.cost, logCalls: 0 };
  const histories = deps.logs
    ? await withCauses(payload, gathered.histories, { logs: deps.logs, now: deps.now, cache: deps.causes }, cost)
    : gathered.histories;
  const snapshot = buildSnapshot(payload, histories, { now: deps.now, upcomingDays: STATUS_UPCOMING_DAYS });
  const html = renderPage(snapshot, { every: STATUS_EVERY, jsonHref: JSON_KEY });
  const { keys } = await writeStatus(deps.s3, deps.bucket, { html, json: safeJson(snapshot) });
  return { written: keys, targets: snapshot.targets.length, cost };
}

/**
 * The snapshot as JSON with every "<" as \u003c: the same value to any JSON parser, and a display name
 * such as "</script>…" stays inert even where someone inlines status.json into a page of their own.
 */
export function safeJson(snapshot: unknown): string {
  return `${JSON.stringify(snapshot, null, 1).replace(/</g, '\\u003c')}\n`;
}
