/**
 * A delegated grant in Secrets Manager, with the caller's AWS identity (the refresher's role, or the
 * person running `mcp-canary login`):
 * - the grant itself (refresh token, client) in one secret in the home region, read and written by the
 *   login and the refresher only;
 * - the access token published in `<name>/access` in every probe region, where the probe runs read
 *   it by name like any other `mcp-canary/` secret (no cross-region read on the run's path: a probe
 *   region keeps judging while the home region is unreachable).
 *
 * The compare-and-swap (rotate.ts needs one): Secrets Manager has no conditional put, but it has an
 * idempotency token. PutSecretValue with a ClientRequestToken that a version already carries, and a
 * different value, fails with ResourceExistsException ("you cannot modify an existing secret version").
 * Every writer derives its token from the version it read, so of all writers that read version V, the
 * first one's put wins and the others fail: exactly a swap from V.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  type GetSecretValueCommandOutput,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { AwsErrorKind, awsFailure, awsWords } from '../../base/common/aws-errors.ts';
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import {
  accessSecretName,
  parseGrant,
  PublishedAccess,
  type GrantStore,
  type GrantVersion,
  type StoredGrant,
} from '../../base/config/schema/oauth-delegated.ts';

/** Every Secrets Manager call here ends within this. */
export const GRANT_CALL_TIMEOUT_MS = 5_000;

export class SecretsManagerGrantStore implements GrantStore {
  readonly label: string;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly name: string,
    region: string,
  ) {
    this.label = `Secrets Manager secret ${JSON.stringify(name)} in ${region}`;
  }

  async read(): Promise<GrantVersion | null> {
    let out: GetSecretValueCommandOutput;
    try {
      out = await this.client.send(new GetSecretValueCommand({ SecretId: this.name }), {
        abortSignal: AbortSignal.timeout(GRANT_CALL_TIMEOUT_MS),
      });
    } catch (e) {
      if (awsFailure(e).kind === AwsErrorKind.notFound) return null;
      throw storeError(this.label, 'unreadable', e);
    }
    if (out.SecretString === undefined || !out.VersionId) return null;
    // Outside the AWS call's catch: a value that is not a grant is its own error (GRANT_STORE not_a_grant), not a failed read.
    return { grant: parseGrant(out.SecretString, this.label), version: out.VersionId };
  }

  async swap(expected: string | null, grant: StoredGrant): Promise<string | false> {
    const SecretString = JSON.stringify(grant);
    const abortSignal = AbortSignal.timeout(GRANT_CALL_TIMEOUT_MS);
    try {
      if (expected === null) {
        const out = await this.client.send(
          new CreateSecretCommand({
            Name: this.name,
            SecretString,
            ClientRequestToken: randomUUID(),
            Description: 'mcp-canary delegated OAuth grant (refresh token): written by mcp-canary login and the refresher only',
          }),
          { abortSignal },
        );
        return out.VersionId ?? false;
      }
      const out = await this.client.send(
        new PutSecretValueCommand({ SecretId: this.name, SecretString, ClientRequestToken: tokenAfter(expected) }),
        { abortSignal },
      );
      return out.VersionId ?? false;
    } catch (e) {
      // Someone else swapped from this version first (or created the secret): not ours to write. The
      // compare-and-swap's own answer, by its exact code (a 4xx to the boundary, and to no other caller a swap).
      if (awsFailure(e).name === 'ResourceExistsException') return false;
      throw storeError(this.label, 'unwritable', e);
    }
  }
}

/** The ClientRequestToken of the one write allowed after version `v`: a UUID made from it. */
export function tokenAfter(v: string): string {
  const h = createHash('sha256').update(`mcp-canary/grant-after/${v}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Publishes the access token in one region (creating `<name>/access` there the first time). */
export async function publishAccess(client: SecretsManagerClient, grantSecret: string, access: PublishedAccess): Promise<void> {
  const name = accessSecretName(grantSecret);
  const SecretString = JSON.stringify(access);
  const abortSignal = AbortSignal.timeout(GRANT_CALL_TIMEOUT_MS);
  try {
    await client.send(new PutSecretValueCommand({ SecretId: name, SecretString }), { abortSignal });
  } catch (e) {
    if (awsFailure(e).kind !== AwsErrorKind.notFound) throw storeError(`Secrets Manager secret ${JSON.stringify(name)}`, 'unwritable', e);
    await client.send(
      new CreateSecretCommand({
        Name: name,
        SecretString,
        Description: 'mcp-canary delegated OAuth access token, published by the refresher for the probe runs',
      }),
      { abortSignal },
    );
  }
}

/** The published access token of a grant in one region, or null when none was published there. */
export async function readAccess(client: SecretsManagerClient, grantSecret: string): Promise<PublishedAccess | null> {
  const name = accessSecretName(grantSecret);
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: name }), {
      abortSignal: AbortSignal.timeout(GRANT_CALL_TIMEOUT_MS),
    });
    const parsed = PublishedAccess.safeParse(JSON.parse(out.SecretString ?? 'null'));
    return parsed.success ? parsed.data : null;
  } catch (e) {
    if (e instanceof SyntaxError || awsFailure(e).kind === AwsErrorKind.notFound) return null;
    throw storeError(`Secrets Manager secret ${JSON.stringify(name)}`, 'unreadable', e);
  }
}

/** A failed Secrets Manager call, by the AWS error boundary: names the secret and the AWS error code, never a value. */
function storeError(label: string, problem: 'unreadable' | 'unwritable', e: unknown): CanaryError<'GRANT_STORE'> {
  const failure = awsFailure(e);
  const what = problem === 'unreadable' ? 'cannot be read' : 'cannot be written';
  const fix = failure.kind === AwsErrorKind.denied ? ' Grant secretsmanager:GetSecretValue and PutSecretValue on it.' : '';
  return new CanaryError(
    CanaryErrorCode.grantStore,
    `${label} ${what} (${awsWords(failure, 160)}).${fix}`,
    { store: label, problem, aws: failure.kind },
    { cause: e },
  );
}
