/**
 * `check` with a delegated grant in a file (`--grant-file`, or `store: { file }`): the CLI is its own
 * refresher here, through the same lease and compare-and-swap as the scheduled refresher, under the
 * file's lock, so two local runs never both send one refresh token (functions/engine/auth/rotate.ts).
 * A grant logged in to another server is a usage error (exit 2) before any request: its tokens go only
 * to the server they were issued for (functions/engine/auth/binding.ts).
 */
import { randomUUID } from 'node:crypto';
import { FileGrantStore } from '../engine/auth/grant-file.ts';
import { withOAuthFetch } from '../engine/auth/oauth-fetch.ts';
import { keepFresh } from '../engine/auth/rotate.ts';
import { publishedOf } from '../base/config/schema/oauth-delegated.ts';
import type { DelegatedAccess } from '../base/config/load/oauth-secrets.ts';
import type { Target } from '../base/config/schema/target.ts';
import type { Reach } from '../base/common/run-context.ts';
import { CanaryErrorCode, configError, isCanaryError } from '../base/common/errors.ts';
import { shownUrl } from '../base/common/shown-url.ts';

/** How long a check waits for another local run's refresh. */
export const LEASE_WAIT_MS = 15_000;

/** The access token for a file-stored grant, refreshed when due; undefined when the target has none. */
export async function localDelegated(
  target: Target,
  onSecret: (value: string) => void,
  reach?: Reach,
): Promise<DelegatedAccess | undefined> {
  const code = target.auth?.authorizationCode;
  if (!code || !('file' in code.store)) return undefined;
  const store = new FileGrantStore(code.store.file);
  try {
    const r = await withOAuthFetch(
      // The target's proxy (HTTPS_PROXY, or the fleet's) and private CAs: the refresh goes the way the run's requests go.
      { allowPrivateNetwork: code.allowPrivateNetwork, serverUrl: target.url, timeoutMs: target.timeoutMs, reach },
      (fetch) =>
        keepFresh(store, {
          fetch,
          now: Date.now,
          onSecret,
          holder: `cli-${process.pid}-${randomUUID()}`,
          refreshTokenLifetimeDays: code.refreshTokenLifetimeDays,
          serverUrl: target.url,
        }),
    );
    if (r.kind === 'mismatch')
      throw configError(
        `${r.detail}. Nothing was sent. Log in to this server for its own grant: mcp-canary login ${shownUrl(target.url)} --store-file ${code.store.file}`,
      );
    if (r.kind === 'missing') return { missing: `${store.label} holds no grant` };
    if (r.kind !== 'busy') return { access: publishedOf(r.grant) };
    // Another local run holds the lease and is refreshing: wait for what it stores, never refresh beside it.
    for (let waited = 0; waited < LEASE_WAIT_MS; waited += 100) {
      await new Promise((res) => setTimeout(res, 100));
      const now = await store.read();
      if (now && !now.grant.lease) return { access: publishedOf(now.grant) };
    }
    return { access: publishedOf(r.grant) };
  } catch (e) {
    if (isCanaryError(e, CanaryErrorCode.config)) throw e;
    return { missing: e instanceof Error ? e.message : String(e) };
  }
}
