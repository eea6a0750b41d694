/**
 * The refresher: the one writer of every delegated grant with a Secrets Manager store. A small
 * scheduled function in the home region, the only code that ever sends a refresh token (rotate.ts
 * says why there must be exactly one). A duplicate or overlapping delivery loses the lease in the grant
 * (a compare-and-swap) before it sends anything: no reserved concurrency, which would fail the deploy on a
 * new account. Per grant, each run:
 * 1. keeps the grant fresh (renewed at half the access token's life; the rotated refresh token stored
 *    first, by compare-and-swap);
 * 2. publishes the access token to each probe region that does not hold this generation yet;
 * 3. says whose problem a failure is: a refused grant (`invalid_grant`) is the canary's own credential:
 *    metric `CanaryCredentialRefused` = 1 (the canary owner's alarm, never a page to the endpoint's
 *    owner) and a log line with the fix, `mcp-canary login <url>`; a token endpoint that does not answer
 *    is `CredentialRefreshFailed` = 1 and the probes judge it (auth/delegated.ts). A grant logged in to
 *    another server than the target's (`mismatch`, engine/auth/binding.ts) is the canary's own too: it is
 *    neither refreshed nor published for this target, `CanaryCredentialRefused` = 1, with the fix.
 */
import { PutMetricDataCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { keepFresh, type KeepFreshResult } from '../../engine/auth/rotate.ts';
import { withOAuthFetch } from '../../engine/auth/oauth-fetch.ts';
import { oneLine, Redactor } from '../../base/common/redact.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import { configError } from '../../base/common/errors.ts';
import {
  caRegion,
  CREDENTIAL_REFUSED_METRIC,
  publishedOf,
  REFRESH_FAILED_METRIC,
  RefreshEvent,
  type PublishedAccess,
} from '../../base/config/schema/oauth-delegated.ts';
import type { FetchLike } from '../../base/common/run-context.ts';
import { publishAccess, readAccess, SecretsManagerGrantStore } from '../../io/secrets/grant-store.ts';
import type { SecretReader } from '../../io/secrets/reader.ts';

export const REFRESH_LOG_MESSAGE = 'mcp-canary refresh';
/** Each token request of the refresher ends within this. */
export const REFRESH_REQUEST_TIMEOUT_MS = 10_000;

export interface RefresherDeps {
  readonly homeRegion: string;
  readonly namespace: string;
  readonly secretsManager: (region: string) => SecretsManagerClient;
  readonly cloudWatch: CloudWatchClient;
  /** Who holds a lease: the invocation's request id. */
  readonly holder: string;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default - one JSON line on stdout */
  readonly log?: (line: string) => void;
  /** Reads a grant's `ca` (the target's private CAs), plain names in the given region (caRegion). Required when a grant has one. */
  readonly secrets?: (region: string) => Pick<SecretReader, 'tlsReach'>;
  /** Tests: the fetch under the SSRF guard. @default - Node's, with DNS pinned */
  readonly fetch?: FetchLike;
}

export interface GrantReport {
  readonly target: string;
  readonly result: KeepFreshResult['kind'] | 'error';
  readonly generation?: number;
  readonly accessExpiresAt?: string;
  readonly published: readonly string[];
  readonly detail?: string;
  readonly fix?: string;
}

export async function refreshGrants(event: unknown, d: RefresherDeps): Promise<GrantReport[]> {
  const parsed = RefreshEvent.safeParse(event);
  if (!parsed.success)
    throw configError(
      `the refresher's schedule input is not { grants: [...] }: ${oneLine(parsed.error.message, 200)}. Redeploy the stack.`,
    );
  const now = d.now ?? Date.now;
  const log = d.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const reports = await Promise.all(
    parsed.data.grants.map(async (g): Promise<GrantReport> => {
      const secrets: string[] = [];
      const onSecret = (v: string) => secrets.push(v);
      let report: GrantReport;
      try {
        const store = new SecretsManagerGrantStore(d.secretsManager(d.homeRegion), g.secret, d.homeRegion);
        // The target's private CAs, trusted beside the public roots for its authorization server (as the runs and
        // `login --config` trust them); no proxy: this function runs outside any VPC.
        const reach = g.ca ? (await caReach(d, g.ca, caRegion(g, d.homeRegion))).reach : undefined;
        const result = await withOAuthFetch(
          {
            allowPrivateNetwork: g.allowPrivateNetwork,
            serverUrl: g.url,
            timeoutMs: REFRESH_REQUEST_TIMEOUT_MS,
            reach,
            ...(d.fetch ? { fetch: d.fetch } : {}),
          },
          (fetch) =>
            keepFresh(store, {
              fetch,
              now,
              onSecret,
              holder: d.holder,
              refreshTokenLifetimeDays: g.refreshTokenLifetimeDays,
              serverUrl: g.url,
            }),
        );
        if (result.kind === 'mismatch') {
          report = {
            target: g.target,
            result: 'mismatch',
            published: [],
            detail: `${result.detail}: neither refreshed nor published for this target`,
            fix: `mcp-canary login ${shownUrl(g.url)} --store-secret ${g.secret}`,
          };
        } else if (result.kind === 'missing') {
          report = {
            target: g.target,
            result: 'missing',
            published: [],
            detail: `${store.label} holds no grant`,
            fix: `mcp-canary login ${shownUrl(g.url)}`,
          };
        } else {
          const access = publishedOf(result.grant);
          const published = await publishWhereStale(d, g.secret, g.regions, access);
          report = {
            target: g.target,
            result: result.kind,
            generation: access.generation,
            accessExpiresAt: access.accessExpiresAt,
            published,
            ...(result.detail ? { detail: result.detail } : {}),
            ...(result.kind === 'refused' ? { fix: `mcp-canary login ${shownUrl(g.url)}` } : {}),
          };
        }
      } catch (e) {
        report = { target: g.target, result: 'error', published: [], detail: oneLine(e instanceof Error ? e.message : String(e), 300) };
      }
      // The report is the function's result too (the invocation's response, its destinations): redacted as the log line is.
      const shown = new Redactor(secrets).value(report);
      log(JSON.stringify({ message: REFRESH_LOG_MESSAGE, ...shown }));
      return shown;
    }),
  );
  await putMetrics(d, reports, now());
  return reports;
}

function caReach(d: RefresherDeps, ca: NonNullable<RefreshEvent['grants'][number]['ca']>, region: string) {
  if (!d.secrets)
    throw configError("the refresher's schedule input names a tls.ca but the function has no secret reader: redeploy the stack.");
  return d.secrets(region).tlsReach({ ca });
}

/** Writes only where the region's copy is another generation or state: a quiet run makes reads only. */
async function publishWhereStale(d: RefresherDeps, secret: string, regions: readonly string[], access: PublishedAccess): Promise<string[]> {
  const written: string[] = [];
  await Promise.all(
    regions.map(async (region) => {
      const client = d.secretsManager(region);
      const there = await readAccess(client, secret);
      if (there && JSON.stringify(there) === JSON.stringify(access)) return;
      await publishAccess(client, secret, access);
      written.push(region);
    }),
  );
  return written.sort();
}

async function putMetrics(d: RefresherDeps, reports: readonly GrantReport[], at: number): Promise<void> {
  if (reports.length === 0) return;
  const Timestamp = new Date(at);
  const datum = (MetricName: string, target: string, Value: number) => ({
    MetricName,
    Dimensions: [{ Name: 'Target', Value: target }],
    Value,
    Unit: 'Count' as const,
    Timestamp,
  });
  const MetricData = reports.flatMap((r) => [
    datum(CREDENTIAL_REFUSED_METRIC, r.target, r.result === 'refused' || r.result === 'missing' || r.result === 'mismatch' ? 1 : 0),
    datum(REFRESH_FAILED_METRIC, r.target, r.result === 'unavailable' || r.result === 'error' ? 1 : 0),
  ]);
  // 1,000 datums per call (CloudWatch's limit); two per grant.
  for (let i = 0; i < MetricData.length; i += 1000) {
    await d.cloudWatch.send(new PutMetricDataCommand({ Namespace: d.namespace, MetricData: MetricData.slice(i, i + 1000) }));
  }
}
