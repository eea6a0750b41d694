/**
 * The refresher against an authorization server whose certificate comes from a private CA (made with
 * openssl here): the target's `tls.ca`, carried in the grant's schedule entry and stored in Secrets
 * Manager (moto) or SSM, is trusted for the token request, as the runs trust it. Without it the refresh
 * is a certificate error, `CredentialRefreshFailed`, and the grant goes stale.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoredGrant } from '../../../../functions/base/config/schema/oauth-delegated.ts';
import { refreshGrants, type RefresherDeps } from '../../../../functions/lambdas/refresh/refresh.ts';
import { readAccess, SecretsManagerGrantStore } from '../../../../functions/io/secrets/grant-store.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { makePki, type Pki } from '../../../helpers/net/pki.ts';
import { cloudWatchAt } from '../../../helpers/run/readback.ts';
import { describeWithTools } from '../../../helpers/tools.ts';

const HOME = 'us-east-1';
const PROBE = 'eu-west-1';
const CA_SECRET = 'mcp-canary/corp/ca';
const CA_PARAMETER = '/mcp-canary/corp/ca';

describeWithTools(['moto_server', 'openssl'], 'the refresher and an authorization server with a private CA', () => {
  let moto: Moto;
  let pki: Pki;
  let tokenServer: Server;
  let issuer: string;
  let refreshes = 0;
  const sm = (region: string) => new SecretsManagerClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
  const ssm = (region: string) => new SSMClient({ region, endpoint: moto.endpoint, credentials: motoCredentials });
  const lines: string[] = [];
  const deps = (): RefresherDeps => ({
    homeRegion: HOME,
    namespace: 'McpCanaryPrivateCa',
    secretsManager: sm,
    cloudWatch: cloudWatchAt(moto.endpoint, HOME),
    secrets: (region) => new SecretReader({ secretsManager: sm, ssm }, { defaultRegion: region }),
    holder: `private-ca-${lines.length}`,
    log: (l) => lines.push(l),
  });
  // An access token issued two hours ago that lived one: due, so the run sends the refresh token.
  const storeGrant = async (secret: string) => {
    const issued = Date.now() - 2 * 3_600_000;
    const grant: StoredGrant = {
      v: 1,
      serverUrl: 'https://127.0.0.1/mcp',
      issuer,
      metadata: {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
      },
      client: { client_id: 'canary', token_endpoint_auth_method: 'none' },
      refreshToken: 'rt-0',
      accessToken: 'at-0',
      accessIssuedAt: new Date(issued).toISOString(),
      accessExpiresAt: new Date(issued + 3_600_000).toISOString(),
      generation: 0,
      status: 'ok',
    };
    expect(await new SecretsManagerGrantStore(sm(HOME), secret, HOME).swap(null, grant)).not.toBe(false);
  };
  const grantEntry = (secret: string, ca?: object, regions = [HOME]) => ({
    target: 'corp',
    url: 'https://127.0.0.1/mcp',
    secret,
    regions,
    allowPrivateNetwork: false,
    ...(ca ? { ca } : {}),
  });

  beforeAll(async () => {
    pki = makePki();
    moto = await startMoto();
    // A token endpoint that rotates: each refresh answers a new access and refresh token.
    tokenServer = createServer({ cert: pki.server.cert, key: pki.server.key }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (req.url !== '/token' || form.get('grant_type') !== 'refresh_token') {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_request"}');
          return;
        }
        refreshes += 1;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ access_token: `at-${refreshes}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `rt-${refreshes}` }),
          );
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    issuer = `https://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
    await sm(HOME).send(new CreateSecretCommand({ Name: CA_SECRET, SecretString: pki.caPem }));
    await ssm(HOME).send(new PutParameterCommand({ Name: CA_PARAMETER, Value: pki.caPem, Type: 'String' }));
    // Only where the runs of a target probed from eu-west-1 alone read it: the home region has no such secret.
    await sm(PROBE).send(new CreateSecretCommand({ Name: 'mcp-canary/corp/probe-only-ca', SecretString: pki.caPem }));
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => tokenServer?.close(resolve));
    await moto?.stop();
    pki?.cleanup();
  });

  it('without the CA: a certificate error, the grant not renewed', async () => {
    await storeGrant('mcp-canary/corp-no-ca/grant');
    const before = refreshes;
    const [report] = await refreshGrants({ grants: [grantEntry('mcp-canary/corp-no-ca/grant')] }, deps());
    expect(report!.result).toBe('unavailable');
    expect(report!.detail).toMatch(/TLS handshake failed \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
    expect(refreshes).toBe(before);
  });

  it.each([
    ['a Secrets Manager secret', 'mcp-canary/corp-sm/grant', { secretsManager: CA_SECRET }],
    ['an SSM parameter', 'mcp-canary/corp-ssm/grant', { ssmParameter: CA_PARAMETER }],
  ])('with the target’s tls.ca in %s: refreshed and published', async (_, secret, ca) => {
    await storeGrant(secret);
    const before = refreshes;
    const [report] = await refreshGrants({ grants: [grantEntry(secret, ca)] }, deps());
    expect(report).toMatchObject({ result: 'refreshed', generation: 1, published: [HOME] });
    expect(refreshes).toBe(before + 1);
    expect((await readAccess(sm(HOME), secret))?.accessToken).toBe(`at-${before + 1}`);
    // The tokens never reach the log line.
    expect(lines.join('\n')).not.toMatch(/\bat-\d|\brt-\d/);
  });

  it('a CA that cannot be read: the field, the secret and its region named, the refresh token not sent', async () => {
    const secret = 'mcp-canary/corp-missing/grant';
    await storeGrant(secret);
    const before = refreshes;
    const [report] = await refreshGrants({ grants: [grantEntry(secret, { secretsManager: 'mcp-canary/corp/nowhere' })] }, deps());
    expect(report!.result).toBe('error');
    expect(report!.detail).toMatch(/tls\.ca.*mcp-canary\/corp\/nowhere.*us-east-1/);
    expect(refreshes).toBe(before);
  });

  it('reads a CA given by plain name where the target’s runs read it: a probe region that is not the home region', async () => {
    const secret = 'mcp-canary/corp-probe/grant';
    await storeGrant(secret);
    const before = refreshes;
    const [report] = await refreshGrants(
      { grants: [grantEntry(secret, { secretsManager: 'mcp-canary/corp/probe-only-ca' }, [PROBE])] },
      deps(),
    );
    expect(report).toMatchObject({ result: 'refreshed', generation: 1, published: [PROBE] });
    expect(refreshes).toBe(before + 1);
  });
});
