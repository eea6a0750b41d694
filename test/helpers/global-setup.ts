/**
 * Once per test run: the CLI built as one esbuild bundle (scripts/cli-bundle.ts, exactly what `npm run
 * build` installs as `mcp-canary`), so the tests that spawn the command start it in a third of a second
 * instead of the second tsx takes to load the TypeScript sources on every spawn. The sources' own entry
 * (functions/cli/mcp-canary.mjs, what `npx mcp-canary` runs in a clone) is run by the clone rehearsal
 * (test/release/package/readme-clone.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundleCli } from '../../scripts/cli-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled CLI's entry (start.mjs), for `node <cliBin> check …`. */
    cliBin: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // Inside the project, as an installed package sits in its user's: the bundle imports undici's side file
  // by package name (functions/base/net/reach.ts), which resolves only from a folder that sees node_modules.
  const cache = join(import.meta.dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'mcp-canary-cli-'));
  project.provide('cliBin', await bundleCli(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
