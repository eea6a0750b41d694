/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) runs its client scenarios
 * against the canary: the suite starts a scenario's server, runs test/helpers/conformance/client.ts with the
 * server's URL, and checks what the canary sent. It needs Node >= 22 (fs.globSync): it runs on this
 * process's Node, the suite's own (package.json engines: >= 22.18; .ci/run pins Node 24). The client is
 * bundled once (esbuild, the Lambda's options) so that each scenario starts it in a third of a second,
 * not the second tsx takes to load the engine's sources.
 *
 * Every client scenario of the installed suite is either run here or excluded with its reason, so a
 * suite upgrade that adds scenarios fails this test until someone decides.
 */
import * as fs from 'node:fs';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../../../../infra/constructs/bundle.ts';
import { runToEnd } from '../../../../helpers/child.ts';

const ROOT = join(import.meta.dirname, '../../../../..');
/** The suite's Node, named explicitly: the Node running these tests, never whichever `node` the PATH finds first. */
const NODE = process.execPath;
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const ADAPTER = join(ROOT, 'test/helpers/conformance/client.ts');

/** Scenario → the spec versions it is run at (each of the scenario's own versions). */
const RUN: Readonly<Record<string, readonly string[]>> = {
  initialize: ['2025-06-18', '2025-11-25'],
  tools_call: ['2025-06-18', '2025-11-25', '2026-07-28'],
  'sse-retry': ['2025-11-25'],
  'request-metadata': ['2026-07-28'],
  'http-standard-headers': ['2026-07-28'],
  'http-custom-headers': ['2026-07-28'],
  'http-invalid-tool-headers': ['2026-07-28'],
  'json-schema-ref-no-deref': ['2026-07-28'],
};

/** Client scenarios a canary's requests do not exercise, and why. */
const EXCLUDED: Readonly<Record<string, string>> = {
  'elicitation-sep1034-client-defaults':
    'the canary declares no elicitation capability: a canary tool must answer unattended, and one that asks is tool_error',
  'sep-2322-client-request-state':
    "multi-round-trip requests answer a server's input request; a canary declares no capability that would let a tool ask, and one that asks is tool_error",
  'json-schema-2020-12-preservation':
    "the client must send back a tool's own inputSchema as the call's argument; a canary's arguments are fixed in its config",
};
/** Extension scenarios (`[extension]` in the suite's list) are opt-in capabilities the canary does not claim. */
const isExtension = (name: string) => name.startsWith('sep-2640-');
/** The OAuth scenarios belong to the canary's OAuth step (functions/engine/auth), run by its own tests. */
const isAuthScenario = (name: string) => name.startsWith('auth/');

const results = mkdtempSync(join(tmpdir(), 'mcp-canary-conformance-'));
let client: string;
beforeAll(async () => {
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/mcp-canary-conformance-'));
  client = join(dir, 'client.mjs');
  await build({ ...esbuildOptions, minify: false, entryPoints: [ADAPTER], outfile: client, logLevel: 'warning' });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
});
afterAll(() => rmSync(results, { recursive: true, force: true }));

describe('the official conformance suite, client scenarios', () => {
  it('runs on a Node the suite can run on (fs.globSync, Node >= 22) and has the suite installed', () => {
    expect(typeof (fs as { globSync?: unknown }).globSync, `Node ${process.version} has no fs.globSync: use Node >= 22.18`).toBe(
      'function',
    );
    expect(existsSync(SUITE)).toBe(true);
  });

  it('lists no client scenario that is neither run nor excluded with a reason', async () => {
    const r = await runToEnd(NODE, [SUITE, 'list', '--client']);
    expect(r.code).toBe(0);
    const listed = [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(0);
    const undecided = listed.filter((n) => !(n in RUN) && !(n in EXCLUDED) && !isAuthScenario(n) && !isExtension(n));
    expect(undecided).toEqual([]);
    for (const name of Object.keys(RUN)) expect(listed).toContain(name);
  });

  const cases = Object.entries(RUN).flatMap(([scenario, versions]) => versions.map((v) => [scenario, v] as const));
  it.each(cases)('%s at %s passes every check', async (scenario, version) => {
    const command = `${NODE} ${client}`;
    const r = await runToEnd(
      NODE,
      [SUITE, 'client', '--command', command, '--scenario', scenario, '--spec-version', version, '--timeout', '20000', '-o', results],
      {
        cwd: ROOT,
        killAfterMs: 40_000,
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    // The suite fails on any FAILURE or WARNING check and on a client that exits non-zero.
    expect(out, out).toMatch(/OVERALL: PASSED/);
    expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
    expect(r.code).toBe(0);
  });
});
