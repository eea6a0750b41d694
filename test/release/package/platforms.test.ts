/**
 * What another laptop's `npm ci` links: the lockfile installed for macOS on Apple silicon and for Linux
 * on arm64 (`--os`/`--cpu`, scripts off, as npm itself would pick the optional packages there) in a
 * scratch copy of package.json and package-lock.json, and nothing that only runs on one platform in
 * node_modules/.bin — where every npm script looks first. Needs the npm registry (or npm's cache).
 */
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformSpecificBins } from '../../helpers/platform-bins.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';

const ROOT = join(import.meta.dirname, '../../..');
const PLATFORMS = [
  { os: 'darwin', cpu: 'arm64' },
  { os: 'linux', cpu: 'arm64' },
] as const;
const INSTALL_MS = 240_000;

const dirs: string[] = [];
const installs = new Map<string, { dir: string; npm: Finished }>();

beforeAll(async () => {
  await Promise.all(
    PLATFORMS.map(async ({ os, cpu }) => {
      const dir = mkdtempSync(join(tmpdir(), `mcp-canary-${os}-${cpu}-`));
      dirs.push(dir);
      for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, f), join(dir, f));
      const npm = await runToEnd(
        'npm',
        ['ci', `--os=${os}`, `--cpu=${cpu}`, '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
        {
          cwd: dir,
          env: { ...process.env, npm_config_update_notifier: 'false' },
          killAfterMs: INSTALL_MS,
        },
      );
      installs.set(`${os}-${cpu}`, { dir, npm });
    }),
  );
}, INSTALL_MS + 10_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe.each(PLATFORMS)('npm ci --os=$os --cpu=$cpu', ({ os, cpu }) => {
  const install = () => installs.get(`${os}-${cpu}`)!;

  it('installs from the lockfile, with that platform’s optional packages', () => {
    const { dir, npm } = install();
    expect(npm.code, npm.stderr.slice(-2000)).toBe(0);
    // The flags took effect: esbuild's binary for that platform is there, this machine's is not.
    expect(existsSync(join(dir, `node_modules/@esbuild/${os}-${cpu}`))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/@esbuild/linux-x64'))).toBe(false);
  });

  it('links nothing platform-specific into node_modules/.bin, and no node of its own', () => {
    const { dir } = install();
    expect(existsSync(join(dir, 'node_modules/.bin/tsx')), 'the tree has its bins').toBe(true);
    expect(platformSpecificBins(dir, { native: true })).toEqual([]);
    expect(existsSync(join(dir, 'node_modules/.bin/node'))).toBe(false);
  });
});
