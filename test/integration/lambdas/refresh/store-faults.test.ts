/**
 * The refresher against Secrets Manager's documented failures, modelled by a fault proxy in front of
 * moto, with a real authorization server that rotates refresh tokens and revokes the whole grant when
 * a rotated one is sent again (oidc-provider): a throttled store of the rotated refresh token (more
 * ThrottlingExceptions than the SDK's own retries absorb), and a store whose answer is lost after the
 * write landed, or before it; a lease whose answer was lost. After each, the next rotations still work: the rotated refresh token was
 * never lost, no refresh token was sent twice, no invalid_grant.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { login } from '../../../../functions/engine/auth/login.ts';
import { refreshGrants, type GrantReport } from '../../../../functions/lambdas/refresh/refresh.ts';
import { SecretsManagerGrantStore } from '../../../../functions/io/secrets/grant-store.ts';
import { consent, startDelegatedAuthServer, type DelegatedAuthServer } from '../../../helpers/auth/delegated.ts';
import { startProtectedMcp, type ProtectedMcp } from '../../../helpers/auth/servers.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { startSecretsFaultProxy, type SecretsFault, type SecretsFaultProxy } from '../../../helpers/refresh/secrets-fault-proxy.ts';
import { describeWithTools } from '../../../helpers/tools.ts';

const HOME = 'us-east-1';
const SECRET = 'mcp-canary/faults/grant';
const NAMESPACE = 'McpCanaryStoreFaults';

describeWithTools(['moto_server'], 'the refresher when Secrets Manager throttles or loses an answer', () => {
  let moto: Moto;
  let faults: SecretsFaultProxy;
  let as: DelegatedAuthServer;
  let mcp: ProtectedMcp;
  const resources: string[] = [];
  let clock = Date.now();
  const sm = (region: string) => new SecretsManagerClient({ region, endpoint: faults.endpoint, credentials: motoCredentials });
  const writer = (holder: string) =>
    refreshGrants(
      { grants: [{ target: 'faults', url: mcp.url, secret: SECRET, regions: [HOME], allowPrivateNetwork: false }] },
      {
        homeRegion: HOME,
        namespace: NAMESPACE,
        secretsManager: sm,
        cloudWatch: cloudWatchAt(moto.endpoint, HOME),
        holder,
        now: () => clock,
        log: () => {},
      },
    ).then((r) => r[0] as GrantReport);

  beforeAll(async () => {
    moto = await startMoto();
    faults = await startSecretsFaultProxy(moto.endpoint);
    as = await startDelegatedAuthServer({ resources: () => resources, accessTtlSeconds: 3600, refreshExpiresIn: 20 * 86_400 });
    mcp = await startProtectedMcp({ issuer: as.issuer });
    resources.push(mcp.url);
    let answered: Promise<unknown> | undefined;
    const grant = await login({
      serverUrl: mcp.url,
      settings: { allowPrivateNetwork: false },
      onAuthorizationUrl: (u) => void (answered = consent(u)),
      onSecret: () => {},
      now: () => clock,
    });
    await answered;
    expect(await new SecretsManagerGrantStore(sm(HOME), SECRET, HOME).swap(null, grant)).not.toBe(false);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await as?.close();
    await faults?.close();
    await moto?.stop();
  });

  // The grant's first PutSecretValue of a rotation takes the lease; the second stores the rotated refresh token.
  it.each<[string, SecretsFault[]]>([
    ['throttled past the SDK’s own retries', ['pass', 'throttle', 'throttle', 'throttle', 'throttle', 'throttle']],
    ['its answer lost after the write landed', ['pass', 'land-then-drop', 'land-then-drop', 'land-then-drop']],
    ['its answer lost before the write landed', ['pass', 'drop', 'drop', 'drop']],
  ])('the rotated refresh token’s store %s: kept, and the next rotation works', async (_, plan) => {
    clock += 31 * 60_000; // past half the access token's hour: due
    const before = as.refreshes();
    faults.plan('PutSecretValue', SECRET, plan);
    const report = await writer(`faulty-${before}`);
    expect(as.refreshes() - before).toBe(1);
    expect(report.result).toBe('refreshed');
    // The next rotation sends the refresh token stored above: the server accepts it (a lost one would be a reuse, revoking the grant).
    clock += 31 * 60_000;
    const next = await writer(`next-${before}`);
    expect(next.result).toBe('refreshed');
    expect(as.refreshes() - before).toBe(2);
    expect(as.tokenErrors).toEqual([]);
  });

  it('the lease’s answer lost after it landed: no refresh this run, none twice; the lease runs out and the next run refreshes once', async () => {
    clock += 31 * 60_000;
    const before = as.refreshes();
    faults.plan('PutSecretValue', SECRET, ['land-then-drop', 'land-then-drop', 'land-then-drop']);
    expect((await writer('lost-lease')).result).toBe('error');
    expect(as.refreshes()).toBe(before);
    // Another invocation within the lease: it waits, it does not send the refresh token.
    expect((await writer('within-lease')).result).toBe('busy');
    expect(as.refreshes()).toBe(before);
    clock += 61_000;
    expect((await writer('after-lease')).result).toBe('refreshed');
    expect(as.refreshes() - before).toBe(1);
    expect(as.tokenErrors).toEqual([]);
  });
});
