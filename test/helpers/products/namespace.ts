/**
 * The products lane needs a loopback-only network namespace: `unshare` (util-linux) with the right to
 * create network and PID namespaces (root, or CAP_SYS_ADMIN), and `ip` (iproute2) to bring `lo` up.
 * Where that is missing the lane cannot prove anything: in CI (`CI` set) that is a failure naming what
 * to install or grant; on a workstation, a skip whose name says the same.
 */
import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

/** Why a loopback-only namespace cannot be made here, or `undefined` when it can. `path` is where to look for the tools. */
export function namespaceProblem(path = process.env.PATH ?? ''): string | undefined {
  const r = spawnSync('unshare', ['--net', '--pid', '--fork', '--kill-child=SIGKILL', 'ip', 'link', 'set', 'lo', 'up'], {
    encoding: 'utf8',
    env: { ...process.env, PATH: path },
    timeout: 10_000,
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return '`unshare` is not installed (util-linux)';
  if (r.error) return `\`unshare\` did not run: ${r.error.message}`;
  if (r.status === 0) return undefined;
  const said = r.stderr.trim().split('\n').pop() ?? '';
  if (/ip.*(No such file|not found)/i.test(said)) return '`ip` is not installed (iproute2)';
  if (/permission|not permitted/i.test(said)) return `\`unshare --net --pid\` is not permitted (needs root or CAP_SYS_ADMIN): ${said}`;
  return `\`unshare --net --pid --fork ip link set lo up\` failed (exit ${r.status}): ${said}`;
}

let checked: { problem: string | undefined } | undefined;

/** `describe` when a namespace can be made; otherwise a failing test in CI, a named skip elsewhere. */
export function describeInNamespace(title: string, body: () => void): void {
  checked ??= { problem: namespaceProblem() };
  const { problem } = checked;
  if (problem === undefined) {
    describe(title, body);
  } else if (process.env.CI) {
    describe(title, () => {
      it('has a loopback-only network namespace to run the product server in', () => {
        throw new Error(
          `the products lane cannot run: ${problem}. CI must run it as root (or with CAP_SYS_ADMIN) with util-linux and iproute2 installed`,
        );
      });
    });
  } else {
    describe.skip(`${title} — skipped: ${problem}`, body);
  }
}
