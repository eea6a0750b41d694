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
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { oneLine } from '../../base/common/redact.ts';
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
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.name }), {
        abortSignal: AbortSignal.timeout(GRANT_CALL_TIMEOUT_MS),
      });
      if (out.SecretString === undefined || !out.VersionId) return null;
      return { grant: parseGrant(out.SecretString, this.label), version: out.VersionId };
    } catch (e) {
      if (named(e, 'ResourceNotFoundException')) return null;
      throw awsError(this.label, 'cannot be read', e);
    }
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
      // Someone else swapped from this version first (or created the secret): not ours to write.
      if (named(e, 'ResourceExistsException')) return false;
      throw awsError(this.label, 'cannot be written', e);
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
    if (!named(e, 'ResourceNotFoundException')) throw awsError(`Secrets Manager secret ${JSON.stringify(name)}`, 'cannot be written', e);
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
    if (named(e, 'ResourceNotFoundException') || e instanceof SyntaxError) return null;
    throw awsError(`Secrets Manager secret ${JSON.stringify(name)}`, 'cannot be read', e);
  }
}

function named(e: unknown, name: string): boolean {
  return e instanceof Error && e.name === name;
}

/** Names the secret and the AWS error code, never a value. */
function awsError(label: string, what: string, e: unknown): Error {
  const name = e instanceof Error ? e.name : 'Error';
  const fix = /AccessDenied/.test(name) ? ' Grant secretsmanager:GetSecretValue and PutSecretValue on it.' : '';
  return new Error(`${label} ${what} (${name}${e instanceof Error && e.message ? `: ${oneLine(e.message, 160)}` : ''}).${fix}`, {
    cause: e,
  });
}
