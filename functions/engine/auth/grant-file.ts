/**
 * A grant kept in a file, for the CLI (`store: { file }`): mode 0600, written whole (a temporary file
 * renamed over it, so a crash never leaves half a grant), and swapped under a lock file so two local
 * runs (two terminals, a cron job beside a person) cannot both use one refresh token. The version is
 * the hash of the file's bytes: a swap writes only when the file still holds what was read.
 *
 * Hand-written: Node has no file lock, and the lock libraries on npm (proper-lockfile) are this same
 * `mkdir`/`open wx` dance with more options than one short critical section needs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CanaryError, CanaryErrorCode } from '../../base/common/errors.ts';
import { parseGrant, type GrantStore, type GrantVersion, type StoredGrant } from '../../base/config/schema/oauth-delegated.ts';

/** A lock older than this was left by a crashed run: it is broken. */
export const STALE_LOCK_MS = 30_000;
/** How long a swap waits for the lock. */
export const LOCK_WAIT_MS = 10_000;

export class FileGrantStore implements GrantStore {
  readonly label: string;

  constructor(private readonly path: string) {
    this.label = `grant file ${JSON.stringify(path)}`;
  }

  async read(): Promise<GrantVersion | null> {
    let raw: string;
    try {
      raw = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw new CanaryError(
        CanaryErrorCode.grantStore,
        `${this.label} cannot be read (${(e as { code?: string }).code ?? 'error'}). Check the path and its permissions.`,
        { store: this.label, problem: 'unreadable' },
        { cause: e },
      );
    }
    return { grant: parseGrant(raw, this.label), version: hash(raw) };
  }

  async swap(expected: string | null, grant: StoredGrant): Promise<string | false> {
    return this.locked(async () => {
      let current: string | null = null;
      try {
        current = hash(await readFile(this.path, 'utf8'));
      } catch (e) {
        if ((e as { code?: string }).code !== 'ENOENT') throw e;
      }
      if (current !== expected) return false;
      const text = `${JSON.stringify(grant, null, 2)}\n`;
      const tmp = `${this.path}.${randomUUID()}.tmp`;
      await writeFile(tmp, text, { mode: 0o600 });
      await chmod(tmp, 0o600);
      await rename(tmp, this.path);
      return hash(text);
    });
  }

  private async locked<T>(work: () => Promise<T>): Promise<T> {
    const lock = `${this.path}.lock`;
    await mkdir(dirname(this.path), { recursive: true });
    const until = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const fh = await open(lock, 'wx', 0o600);
        await fh.close();
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== 'EEXIST') throw e;
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
        else if (Date.now() > until)
          throw new CanaryError(
            CanaryErrorCode.grantStore,
            `${this.label} is locked by another run (${lock}). If none is running, delete the lock file.`,
            { store: this.label, problem: 'locked' },
            { cause: e },
          );
        else await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
      }
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }
}

function hash(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}
