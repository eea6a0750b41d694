/**
 * The products lane's precondition, named: what namespaceProblem() says when `unshare` is missing,
 * refused, or cannot run `ip`. (The lane itself, test/release/engine/judge/products/products.test.ts, uses the real one.)
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namespaceProblem } from '../../../../helpers/products/namespace.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A directory holding one fake `unshare` that prints `stderr` and exits with `code`. */
function fakeUnshare(stderr: string, code: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-unshare-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'unshare'), `#!/bin/sh\necho '${stderr}' >&2\nexit ${code}\n`);
  chmodSync(join(dir, 'unshare'), 0o755);
  return dir;
}

describe('namespaceProblem', () => {
  it('names util-linux when there is no unshare on the PATH', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-unshare-'));
    dirs.push(empty);
    expect(namespaceProblem(empty)).toBe('`unshare` is not installed (util-linux)');
  });

  it('names the missing right when the kernel refuses the namespace', () => {
    const dir = fakeUnshare('unshare: unshare failed: Operation not permitted', 1);
    expect(namespaceProblem(`${dir}:/usr/bin:/bin`)).toMatch(
      /^`unshare --net --pid` is not permitted \(needs root or CAP_SYS_ADMIN\): .*Operation not permitted$/,
    );
  });

  it('names iproute2 when ip cannot be run inside', () => {
    const dir = fakeUnshare('unshare: failed to execute ip: No such file or directory', 127);
    expect(namespaceProblem(`${dir}:/usr/bin:/bin`)).toBe('`ip` is not installed (iproute2)');
  });
});
