/**
 * The tools beside Node some tests need, found on the PATH before anything spawns them. A missing one is
 * never a raw `spawn … ENOENT`: in CI (`CI` set) it is a failure that names the tool and its install
 * line; on a workstation, a skip whose title says the same. CONTRIBUTING.md's Set up lists the same table.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'vitest';

export const TOOLS = {
  moto_server: { for: 'AWS wire calls (Python moto)', install: 'pip install "moto[server]"' },
  'cfn-lint': { for: 'linting synthesized templates', install: 'pip install cfn-lint' },
  openssl: { for: 'test certificates', install: 'apt-get install openssl (macOS: brew install openssl)' },
  python3: { for: 'a listener that never completes the TCP handshake', install: 'apt-get install python3 (macOS: brew install python)' },
  unshare: { for: 'loopback-only network namespaces (Linux, as root)', install: 'apt-get install util-linux' },
  ip: { for: 'bringing up lo inside a namespace', install: 'apt-get install iproute2' },
  chromium: { for: 'screenshots of a page (headless)', install: 'apt-get install chromium' },
} as const;
export type Tool = keyof typeof TOOLS;

/** Where `tool` is on `path` (an executable file), or undefined. */
export function findTool(tool: Tool, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, tool);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One sentence naming every missing tool and how to install it, or undefined when all are there. */
export function missingTools(tools: readonly Tool[], path = process.env.PATH ?? ''): string | undefined {
  const missing = tools.filter((t) => findTool(t, path) === undefined);
  if (missing.length === 0) return undefined;
  return missing.map((t) => `${t} (${TOOLS[t].for}) is not on the PATH: install it with \`${TOOLS[t].install}\``).join('; ');
}

/** The tool's path; throws the install line instead of letting a spawn fail with ENOENT. */
export function requireTool(tool: Tool, path = process.env.PATH ?? ''): string {
  const found = findTool(tool, path);
  if (found === undefined) throw new Error(missingTools([tool], path));
  return found;
}

export type Gate = { readonly run: true } | { readonly run: false; readonly fail: boolean; readonly reason: string };

/** Whether a suite that needs `tools` runs, fails (CI: the machine must have them) or is skipped (a workstation). */
export function gate(tools: readonly Tool[], env: NodeJS.ProcessEnv = process.env): Gate {
  const reason = missingTools(tools, env.PATH ?? '');
  if (reason === undefined) return { run: true };
  return { run: false, fail: Boolean(env.CI), reason };
}

/** `describe`, when every tool is on the PATH; else one failing test in CI, a named skip elsewhere. */
export function describeWithTools(tools: readonly Tool[], title: string, body: () => void): void {
  const g = gate(tools);
  if (g.run) describe(title, body);
  else if (g.fail)
    describe(title, () => {
      it(`has ${tools.join(', ')} on the PATH`, () => {
        throw new Error(`CI must install what this suite needs: ${g.reason}`);
      });
    });
  else describe.skip(`${title} — skipped: ${g.reason}`, body);
}

/** A file's `describe` when all of it needs the tools: `const describe = describeNeeding(['moto_server']);` */
export function describeNeeding(tools: readonly Tool[]): (title: string, body: () => void) => void {
  return (title, body) => describeWithTools(tools, title, body);
}

/** `it` for the one test of a suite that needs a tool: in CI a failure naming the install line, elsewhere a named skip. */
export function itWithTools(tools: readonly Tool[], title: string, fn: () => Promise<void> | void, timeout?: number): void {
  const g = gate(tools);
  if (g.run) it(title, fn, timeout);
  else if (g.fail)
    it(title, () => {
      throw new Error(`CI must install what this test needs: ${g.reason}`);
    });
  else it.skip(`${title} — skipped: ${g.reason}`, fn);
}
