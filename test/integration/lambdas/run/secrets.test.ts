/**
 * Credentials by reference: Secrets Manager and SSM over moto's real wire; the failure shapes moto
 * cannot produce (AccessDenied) through aws-sdk-client-mock on one client instance.
 */
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { Target, type TargetInput } from '../../../../functions/base/config/schema/target.ts';
import { CanaryError } from '../../../../functions/base/common/errors.ts';
import { SecretReader } from '../../../../functions/io/secrets/reader.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoSecretClients, PROBE_REGION, rejectionOf, startHangingServer } from '../../../helpers/run/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

/** Every suite here needs moto_server: in CI its absence fails with the install line, elsewhere it skips by name. */
const describe = describeNeeding(['moto_server']);

let moto: Moto;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
beforeEach(async () => {
  await moto.reset();
});

const target = (headerSecrets: TargetInput['headerSecrets'], headers: Record<string, string> = {}) =>
  Target.parse({ name: 'rates', url: 'https://mcp.example.com/mcp', headers, headerSecrets });
const createSecret = (name: string, value: string, region = PROBE_REGION) =>
  motoSecretClients(moto.endpoint)
    .secretsManager(region)
    .send(new CreateSecretCommand({ Name: name, SecretString: value }));
const reader = (opts: { now?: () => number } = {}) =>
  new SecretReader(motoSecretClients(moto.endpoint), { defaultRegion: PROBE_REGION, ...opts });

describe('Secrets Manager', () => {
  it('puts the secret, after its prefix, into the header and keeps the static headers', async () => {
    // Prepare
    await createSecret('rates/token', 'tok-2b7e151628aed2a6\n');
    // Act
    const resolved = await reader().resolve(
      target({ Authorization: { secretsManager: 'rates/token', prefix: 'Bearer ' } }, { 'x-team': 'payments' }),
    );
    // Assess
    expect(resolved.headers).toEqual({ 'x-team': 'payments', Authorization: 'Bearer tok-2b7e151628aed2a6' });
    expect(resolved.secretValues).toEqual(['tok-2b7e151628aed2a6']);
  });

  it('reads one key of a JSON secret', async () => {
    // Prepare
    await createSecret('rates/json', JSON.stringify({ apiKey: 'k-abcdef123456', other: 'x' }));
    // Act
    const resolved = await reader().resolve(target({ 'x-api-key': { secretsManager: 'rates/json', jsonKey: 'apiKey' } }));
    // Assess
    expect(resolved.headers['x-api-key']).toBe('k-abcdef123456');
  });

  it("reads a secret referenced by ARN in the ARN's region, not the probe region", async () => {
    // Prepare
    const { ARN } = await createSecret('rates/home-token', 'tok-in-us-west-2', 'us-west-2');
    // Act
    const resolved = await reader().resolve(target({ Authorization: { secretsManager: ARN! } }));
    // Assess
    expect(ARN).toContain(':us-west-2:');
    expect(resolved.headers.Authorization).toBe('tok-in-us-west-2');
  });

  it('reuses a value for the TTL, then serves it once more while it reads the rotated one behind the run', async () => {
    // Prepare
    await createSecret('rates/rotating', 'tok-old-0001');
    let now = 1_000_000;
    const r = reader({ now: () => now });
    const t = target({ Authorization: { secretsManager: 'rates/rotating' } });
    await r.resolve(t);
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new PutSecretValueCommand({ SecretId: 'rates/rotating', SecretString: 'tok-new-0002' }));
    // Act
    now += 3 * 60_000;
    const cached = await r.resolve(t);
    now += 3 * 60_000;
    const stale = await r.resolve(t);
    await vi.waitFor(async () => expect((await r.resolve(t)).headers.Authorization).toBe('tok-new-0002'));
    // Assess: past the TTL the run does not wait for the read; the next one has the rotated value
    expect(cached.headers.Authorization).toBe('tok-old-0001');
    expect(stale.headers.Authorization).toBe('tok-old-0001');
    expect(r.calls).toEqual({ calls: 2, names: 2 });
  });

  it('does not keep a failed read: the next run tries again', async () => {
    // Prepare
    const r = reader();
    const t = target({ Authorization: { secretsManager: 'rates/late' } });
    await expect(r.resolve(t)).rejects.toThrow(/ResourceNotFoundException/);
    await createSecret('rates/late', 'tok-arrived-1234');
    // Act
    const resolved = await r.resolve(t);
    // Assess
    expect(resolved.headers.Authorization).toBe('tok-arrived-1234');
  });

  it('names the header, the secret and the fix when it does not exist', async () => {
    // Act
    const error = await rejectionOf<CanaryError>(reader().resolve(target({ Authorization: { secretsManager: 'rates/nope' } })));
    // Assess
    expect(error).toBeInstanceOf(CanaryError);
    expect(error).toMatchObject({ code: 'SECRET' });
    expect(error.message).toMatch(
      /^headerSecrets\.Authorization: Secrets Manager secret "rates\/nope" in eu-west-1 cannot be read \(ResourceNotFoundException.*\)\. Create it in eu-west-1, or reference it by ARN\.$/,
    );
  });

  it('adds query secrets to the url as written, in the config order, and names the parameter when one cannot be read', async () => {
    // Prepare
    await createSecret('rates/q', JSON.stringify({ key: 'qv 9c1e/44+b0' }));
    await createSecret('rates/sig', 'sig-7f0a');
    const withQuery = (querySecrets: TargetInput['querySecrets']) =>
      Target.parse({ name: 'rates', url: 'https://mcp.example.com/mcp?read_only&a=%20b', querySecrets });
    // Act
    const resolved = await reader().resolve(
      withQuery({ token: { secretsManager: 'rates/q', jsonKey: 'key' }, sig: { secretsManager: 'rates/sig', prefix: 'v1.' } }),
    );
    const error = await rejectionOf<CanaryError>(reader().resolve(withQuery({ token: { secretsManager: 'rates/none' } })));
    // Assess: the url's own query untouched (a bare flag stays bare), each value encoded, both learned as secrets.
    expect(resolved.url).toBe('https://mcp.example.com/mcp?read_only&a=%20b&token=qv%209c1e%2F44%2Bb0&sig=v1.sig-7f0a');
    expect(resolved.secretValues).toEqual(expect.arrayContaining(['qv 9c1e/44+b0', 'sig-7f0a']));
    expect(error.message).toMatch(/^querySecrets\.token: Secrets Manager secret "rates\/none" in eu-west-1 cannot be read/);
  });

  it('says a JSON key is missing without quoting the secret', async () => {
    // Prepare
    await createSecret('rates/json', JSON.stringify({ other: 's3cr3t-value-99' }));
    // Act
    const error = await rejectionOf(reader().resolve(target({ 'x-api-key': { secretsManager: 'rates/json', jsonKey: 'apiKey' } })));
    // Assess
    expect(error.message).toMatch(/has no string key "apiKey"\. Fix jsonKey/);
    expect(error.message).not.toContain('s3cr3t');
  });

  it('tells which permission to grant when access is denied', async () => {
    // Prepare
    const denied = new SecretsManagerClient({ region: PROBE_REGION, credentials: motoCredentials });
    mockClient(denied)
      .on(GetSecretValueCommand)
      .rejects(
        Object.assign(
          new Error('User: arn:aws:sts::123456789012:assumed-role/canary is not authorized to perform: secretsmanager:GetSecretValue'),
          { name: 'AccessDeniedException' },
        ),
      );
    const r = new SecretReader(
      {
        secretsManager: () => denied,
        ssm: () => {
          throw new Error('not used');
        },
      },
      { defaultRegion: PROBE_REGION },
    );
    // Act
    const error = await rejectionOf<CanaryError>(r.resolve(target({ Authorization: { secretsManager: 'rates/token' } })));
    // Assess
    expect(error.code).toBe('SECRET');
    expect(error.message).toMatch(
      /cannot be read \(AccessDeniedException: User: .* is not authorized.*\)\. Grant the function secretsmanager:GetSecretValue \(and kms:Decrypt on its key\) on it\./,
    );
    expect(error.cause).toMatchObject({ name: 'AccessDeniedException' });
  });

  it('gives up on a Secrets Manager that never answers after the read timeout', async () => {
    // Prepare
    const hanging = await startHangingServer();
    const clients = {
      secretsManager: (region: string) =>
        new SecretsManagerClient({ region, endpoint: hanging.url.replace('/mcp', ''), credentials: motoCredentials, maxAttempts: 1 }),
      ssm: (region: string) => new SSMClient({ region }),
    };
    try {
      // Act
      const error = await rejectionOf<CanaryError>(
        new SecretReader(clients, { defaultRegion: PROBE_REGION, readTimeoutMs: 300 }).resolve(
          target({ Authorization: { secretsManager: 'rates/token' } }),
        ),
      );
      // Assess
      expect(error.message).toMatch(/"rates\/token" in eu-west-1 did not answer within 300 ms\. Check the function's network path/);
    } finally {
      await hanging.close();
    }
  });
});

describe('SSM Parameter Store', () => {
  it('reads and decrypts a SecureString parameter', async () => {
    // Prepare
    await motoSecretClients(moto.endpoint)
      .ssm(PROBE_REGION)
      .send(new PutParameterCommand({ Name: '/rates/api-key', Value: 'p-5e884898da28', Type: 'SecureString' }));
    // Act
    const resolved = await reader().resolve(target({ 'x-api-key': { ssmParameter: '/rates/api-key' } }));
    // Assess
    expect(resolved.headers['x-api-key']).toBe('p-5e884898da28');
  });

  it('names the parameter and the fix when it does not exist', async () => {
    // Act
    const error = await rejectionOf(reader().resolve(target({ 'x-api-key': { ssmParameter: '/rates/missing' } })));
    // Assess
    expect(error.message).toMatch(
      /^headerSecrets\.x-api-key: SSM parameter "\/rates\/missing" in eu-west-1 cannot be read \(ParameterNotFound.*Create it in eu-west-1/,
    );
  });
});
