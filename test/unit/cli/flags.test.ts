/** The flag table is the one source: HELP, parsing, error names and --version all come from it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../functions/cli/args.ts';
import { DEFAULT_BUDGET_MS, DEFAULT_DEGRADED_MS, DEFAULT_TIMEOUT_MS, MAX_RETRIES } from '../../../functions/base/config/schema/target.ts';
import { FLAGS, flagForField, type Flag } from '../../../functions/cli/flags.ts';
import { HELP, main } from '../../../functions/cli/main.ts';
import { CLIENT_INFO, USER_AGENT } from '../../../functions/base/common/version.ts';
import { judge } from '../../../functions/engine/judge/judge.ts';
import { startFaultServer } from '../../helpers/faults.ts';
import { legacyEndpoint } from '../../helpers/hostile/harness.ts';
import { target } from '../../helpers/probe.ts';

const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

/** A valid value per kind, and how it should land in the target. */
const SAMPLE: Record<Flag['kind'], { raw: string | null; expected: (f: Flag) => unknown }> = {
  string: { raw: null, expected: () => undefined },
  boolean: { raw: null, expected: () => true },
  integer: { raw: '2', expected: () => 2 },
  'json-object': { raw: '{"a":1}', expected: () => ({ a: 1 }) },
  'json-array': { raw: '[{"kind":"resources/list"}]', expected: () => [{ kind: 'resources/list', expectJson: {}, extract: {} }] },
  header: { raw: 'X-Key: v-123456', expected: () => ({ 'X-Key': 'v-123456' }) },
  'path-json': { raw: 'rate=1.5', expected: () => ({ rate: 1.5 }) },
};
/** Integers that pass the schema's bounds for each integer flag. */
const INTEGER_SAMPLES: Record<string, number> = {
  'timeout-ms': 1500,
  'budget-ms': 20000,
  'degraded-ms': 700,
  retries: 2,
  'cert-warning-days': 30,
  'credential-warning-days': 3,
};
const STRING_SAMPLES: Record<string, string> = {
  tool: 'get_rate',
  'expect-text': 'EUR',
  'health-url': 'http://127.0.0.1:1/health',
  revision: '2025-11-25',
  name: 'rates',
};

function get(o: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((cur, k) => (cur as Record<string, unknown> | undefined)?.[k], o);
}

describe('the flag table', () => {
  it('shows every flag in HELP, with its default', () => {
    for (const f of FLAGS) {
      expect(HELP).toContain(`--${f.name}`);
      if (f.default) expect(HELP).toContain(`(default: ${f.default})`);
    }
  });

  it.each(FLAGS.filter((f) => f.field).map((f) => [f.name, f] as const))(
    '--%s sets its config field and is named back in errors',
    (_name, f) => {
      const raw =
        f.kind === 'string' ? STRING_SAMPLES[f.name]! : f.kind === 'integer' ? String(INTEGER_SAMPLES[f.name]) : SAMPLE[f.kind].raw;
      const args = ['check', 'http://127.0.0.1:1/mcp', `--${f.name}`, ...(raw === null ? [] : [raw])];
      if (f.requires && f.requires !== f.name) args.push(`--${f.requires}`, 'get_rate');
      const cmd = parseCommand(args);
      expect(cmd.kind).toBe('check');
      const t = (cmd as unknown as { targets: unknown[] }).targets[0];
      expect(get(t, f.field!)).toEqual(
        f.kind === 'string' ? raw : f.kind === 'integer' ? INTEGER_SAMPLES[f.name] : SAMPLE[f.kind].expected(f),
      );
      expect(flagForField(f.field!.split('.'))).toBe(`--${f.name}`);
    },
  );

  it('names a bad value by its flag, derived from the table', () => {
    expect(() => parseCommand(['check', 'http://127.0.0.1:1/mcp', '--timeout-ms', '50'])).toThrow(/--timeout-ms must be at least 100 ms/);
    expect(() => parseCommand(['check', 'http://127.0.0.1:1/mcp', '--tool', ''])).toThrow(/--tool is empty/);
  });
});

describe('the defaults HELP shows', () => {
  it("are the config schema's own defaults", () => {
    const shown = (name: string) => FLAGS.find((f) => f.name === name)!.default;
    expect(shown('timeout-ms')).toBe(String(DEFAULT_TIMEOUT_MS));
    expect(shown('budget-ms')).toBe(String(DEFAULT_BUDGET_MS));
    expect(shown('degraded-ms')).toBe(String(DEFAULT_DEGRADED_MS));
    expect(shown('retries')).toBe(`0, max ${MAX_RETRIES}`);
  });
});

describe('one version', () => {
  it("--version prints package.json's version", async () => {
    let out = '';
    const code = await main(['--version'], { stdout: (s) => (out += s), stderr: () => {} });
    expect(code).toBe(0);
    expect(out).toBe(`${VERSION}\n`);
  });

  it('the same version reaches the server as clientInfo and User-Agent', async () => {
    expect(CLIENT_INFO.version).toBe(VERSION);
    const server = await startFaultServer(legacyEndpoint({}));
    try {
      await judge(target(server.url, { tool: undefined, headers: {} }));
      const init = server.received.find((r) => r.rpcMethod === 'initialize')!;
      expect((JSON.parse(init.body) as { params: { clientInfo: unknown } }).params.clientInfo).toEqual({
        name: 'mcp-canary',
        version: VERSION,
      });
      for (const r of server.received) expect(r.headers['user-agent']).toBe(`mcp-canary/${VERSION}`);
      expect(USER_AGENT).toBe(`mcp-canary/${VERSION}`);
    } finally {
      await server.close();
    }
  });
});
