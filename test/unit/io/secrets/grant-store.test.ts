/**
 * The grant stores' failures in the error family: CanaryError GRANT_STORE with the store and the problem
 * as data (and, for Secrets Manager, the AWS error boundary's kind), the messages naming the store and the
 * fix. Secrets Manager's answers through aws-sdk-client-mock on one client instance; the file store on a
 * temporary folder.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CanaryErrorCode, isCanaryError } from '../../../../functions/base/common/errors.ts';
import { FileGrantStore } from '../../../../functions/engine/auth/grant-file.ts';
import { readAccess, SecretsManagerGrantStore } from '../../../../functions/io/secrets/grant-store.ts';
import type { StoredGrant } from '../../../../functions/base/config/schema/oauth-delegated.ts';

const client = new SecretsManagerClient({ region: 'eu-west-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
const sm = mockClient(client);
const store = new SecretsManagerGrantStore(client, 'mcp-canary/x/grant', 'eu-west-1');
const LABEL = 'Secrets Manager secret "mcp-canary/x/grant" in eu-west-1';
const denied = () =>
  new SecretsManagerServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: 'User: arn:aws:iam::123456789012:role/r is not authorized to perform: secretsmanager:GetSecretValue',
  });

beforeEach(() => sm.reset());

/** What a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.unreachable('it resolved'),
    (e: unknown) => e,
  );
}

describe('a grant in Secrets Manager', () => {
  it('a refused read is GRANT_STORE unreadable, with the kind the boundary read and the grant to give', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).rejects(denied());

    // Act
    const e = await rejection(store.read());

    // Assess
    expect(isCanaryError(e, CanaryErrorCode.grantStore) && e.data).toEqual({ store: LABEL, problem: 'unreadable', aws: 'denied' });
    expect((e as Error).message).toBe(
      `${LABEL} cannot be read (AccessDeniedException: User: arn:aws:iam::123456789012:role/r is not authorized to perform: secretsmanager:GetSecretValue). Grant secretsmanager:GetSecretValue and PutSecretValue on it.`,
    );
  });

  it('a secret that does not exist is no grant (null), and a secret holding something else is GRANT_STORE not_a_grant', async () => {
    sm.on(GetSecretValueCommand).rejectsOnce(new ResourceNotFoundException({ message: 'not here', $metadata: {} }));
    expect(await store.read()).toBeNull();

    sm.on(GetSecretValueCommand).resolves({ SecretString: 'not json', VersionId: 'v1' });
    const e = await rejection(store.read());
    expect(isCanaryError(e, CanaryErrorCode.grantStore) && e.data).toEqual({ store: LABEL, problem: 'not_a_grant' });
    expect((e as Error).message).toBe(`${LABEL} does not hold a grant (not JSON). Run \`mcp-canary login <url>\` to store one.`);
  });

  it('a lost swap (ResourceExistsException) answers false; any other failed write is GRANT_STORE unwritable', async () => {
    const grant = { generation: 1 } as unknown as StoredGrant;
    sm.on(PutSecretValueCommand).rejectsOnce(new ResourceExistsException({ message: 'version exists', $metadata: {} }));
    expect(await store.swap('v1', grant)).toBe(false);

    sm.on(PutSecretValueCommand).rejects(
      new SecretsManagerServiceException({
        name: 'InternalServiceError',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
        message: 'oops',
      }),
    );
    const e = await rejection(store.swap('v1', grant));
    expect(isCanaryError(e, CanaryErrorCode.grantStore) && e.data).toEqual({ store: LABEL, problem: 'unwritable', aws: 'server' });
    expect((e as Error).message).toBe(`${LABEL} cannot be written (InternalServiceError: oops).`);
  });

  it('a published access token that cannot be read is GRANT_STORE unreadable; none published is null', async () => {
    sm.on(GetSecretValueCommand).rejectsOnce(new ResourceNotFoundException({ message: 'not here', $metadata: {} }));
    expect(await readAccess(client, 'mcp-canary/x/grant')).toBeNull();

    sm.on(GetSecretValueCommand).rejects(denied());
    const e = await rejection(readAccess(client, 'mcp-canary/x/grant'));
    expect(isCanaryError(e, CanaryErrorCode.grantStore) && e.data).toMatchObject({ problem: 'unreadable', aws: 'denied' });
  });
});

describe('a grant in a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'grant-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a path that cannot be read is GRANT_STORE unreadable, naming the errno and the fix', async () => {
    // Prepare: a folder where the file should be.
    const path = join(dir, 'a-folder');
    mkdirSync(path);

    // Act
    const e = await rejection(new FileGrantStore(path).read());

    // Assess
    expect(isCanaryError(e, CanaryErrorCode.grantStore) && e.data).toEqual({
      store: `grant file ${JSON.stringify(path)}`,
      problem: 'unreadable',
    });
    expect((e as Error).message).toBe(`grant file ${JSON.stringify(path)} cannot be read (EISDIR). Check the path and its permissions.`);
  });
});
