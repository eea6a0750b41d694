/**
 * `mcp-canary init` as users run it: a real process against real SDK servers of both eras, what the
 * server ran recorded on the server's side. The config it prints is read back by the real loader and
 * judged by `check --config`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadFleet } from '../../../functions/base/config/load/load.ts';
import { init } from '../../../functions/cli/init.ts';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { startInitServer, type InitServer, type InitTool } from '../../helpers/init-server.ts';
import { startForwardProxy } from '../../helpers/net/forward-proxy.ts';

const TOKEN = 'sk-init-4be1c97d20f3';
const cli = (args: string[]): Promise<Finished> => runToEnd(process.execPath, [CLI_BIN, ...args], { killAfterMs: 60_000 });

let counter = 0;
const getStatus: InitTool = {
  name: 'get_status',
  inputSchema: z.object({}),
  outputSchema: z.object({ status: z.string(), region: z.string(), at: z.string(), requests: z.number() }),
  annotations: { readOnlyHint: true },
  answer: () => {
    const sc = { status: 'ok', region: 'eu-west-1', at: new Date(Date.now() + counter * 1000).toISOString(), requests: ++counter };
    return { content: [{ type: 'text', text: JSON.stringify(sc) }], structuredContent: sc };
  },
};
const deleteAll: InitTool = {
  name: 'delete_all',
  inputSchema: z.object({}),
  annotations: { destructiveHint: true },
  answer: () => ({ content: [{ type: 'text', text: 'deleted everything' }] }),
};
const createNote: InitTool = {
  name: 'create_note',
  inputSchema: z.object({ title: z.string().default('canary') }),
  answer: () => ({ content: [{ type: 'text', text: `Note created with id ${++counter}` }] }),
};
const getRate: InitTool = {
  name: 'get_rate',
  inputSchema: z.object({ pair: z.enum(['EURUSD', 'GBPUSD']), precision: z.number().optional() }),
  annotations: { readOnlyHint: true },
  answer: (a) => ({ content: [{ type: 'text', text: `Rate for ${String(a.pair)} is 1.0${++counter}` }] }),
};
const search: InitTool = {
  name: 'search',
  inputSchema: z.object({ q: z.string() }),
  annotations: { readOnlyHint: true },
  answer: () => ({ content: [{ type: 'text', text: 'results' }] }),
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-init-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['modern', 'legacy'] as const)('mcp-canary init on a %s server', (era) => {
  let mixed: InitServer;
  let argsOnly: InitServer;
  let writesOnly: InitServer;
  let locked: InitServer;
  beforeAll(async () => {
    [mixed, argsOnly, writesOnly, locked] = await Promise.all([
      startInitServer({
        era,
        tools: [deleteAll, createNote, getStatus],
        resources: [{ name: 'readme', uri: 'docs://readme', text: 'read me' }],
        prompts: [{ name: 'summarize', argsSchema: z.object({ topic: z.string() }) }],
      }),
      startInitServer({ era, tools: [search, getRate] }),
      startInitServer({ era, tools: [deleteAll, createNote] }),
      startInitServer({ era, tools: [getStatus], authorization: `Bearer ${TOKEN}` }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([mixed.close(), argsOnly.close(), writesOnly.close(), locked.close()]);
  });

  it('calls only the read-only tool, lists resources and prompts, and prints a config that loads and checks healthy', async () => {
    const r = await cli(['init', mixed.url, '--name', `mixed-${era}`]);
    expect(r.code, r.stderr).toBe(0);
    // The server ran get_status (twice to sample, once to judge) and nothing else, destructive or not.
    expect(mixed.calls.map((c) => c.name)).toEqual(['get_status', 'get_status', 'get_status']);
    expect(r.stderr).toMatch(/✗ delete_all\s+annotated destructiveHint: true/);
    expect(r.stderr).toContain('resources: 1 (docs://readme)');
    expect(r.stderr).toContain('prompts: 1 (summarize(topic))');
    expect(r.stderr).toContain('check with this config: HEALTHY');

    const file = join(dir, `mixed-${era}.json`);
    writeFileSync(file, r.stdout);
    const fleet = await loadFleet(file);
    // What every answer agreed on and is not volatile; the timestamp and the counter are left out.
    expect(fleet.targets[0]!.tool).toMatchObject({ name: 'get_status', expectJson: { status: 'ok', region: 'eu-west-1' } });
    expect(Object.keys(fleet.targets[0]!.tool!.expectJson)).toEqual(['status', 'region']);
    const check = await cli(['check', '--config', file]);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain('get_status answered as expected');
    expect(mixed.calls.filter((c) => c.name !== 'get_status')).toEqual([]);
  });

  it('fills required arguments from the schema, and never calls a tool whose argument it cannot fill', async () => {
    const r = await cli(['init', argsOnly.url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      config: { targets: Array<{ tool: unknown }> };
      offer: { tools: Array<{ name: string; unfilled: string[] }> };
    };
    expect(out.config.targets[0]!.tool).toEqual({ name: 'get_rate', arguments: { pair: 'EURUSD' }, expectText: 'Rate for EURUSD is' });
    expect(out.offer.tools.find((t) => t.name === 'search')!.unfilled).toEqual(['q']);
    expect(argsOnly.calls.map((c) => c.name)).toEqual(['get_rate', 'get_rate', 'get_rate']);
    expect(argsOnly.calls[0]!.args).toEqual({ pair: 'EURUSD' });
  });

  it('with no read-only tool and no terminal, calls nothing, says why, and prints a config that only lists', async () => {
    const r = await cli(['init', writesOnly.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(writesOnly.calls).toEqual([]);
    expect(r.stderr).toContain('canary: not called — no tool is annotated read-only, and create_note');
    expect(r.stderr).toContain('There is no terminal to ask on: run init on a terminal, or add --yes');
    const file = join(dir, `lists-${era}.json`);
    writeFileSync(file, r.stdout);
    expect((await loadFleet(file)).targets[0]!.tool).toBeUndefined();
  });

  it('with --yes, calls the unannotated tool (allowUnsafe in the config) and still never the destructive one', async () => {
    const before = writesOnly.calls.length;
    const r = await cli(['init', writesOnly.url, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(writesOnly.calls.slice(before).map((c) => c.name)).toEqual(['create_note', 'create_note', 'create_note']);
    const out = JSON.parse(r.stdout) as { config: { targets: Array<{ tool: unknown }> } };
    expect(out.config.targets[0]!.tool).toEqual({ name: 'create_note', expectText: 'Note created with id', allowUnsafe: true });
  });

  it('asks on the terminal before calling a tool that is not annotated read-only, and takes a no for an answer', async () => {
    const questions: string[] = [];
    const run = async (answer: boolean) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await init([writesOnly.url], {
        stdout: (s) => out.push(s),
        stderr: (s) => err.push(s),
        ask: async (q) => (questions.push(q), answer),
      });
      return { code, stdout: out.join(''), stderr: err.join('') };
    };
    const before = writesOnly.calls.length;
    const no = await run(false);
    expect(no.code).toBe(0);
    expect(writesOnly.calls.length).toBe(before);
    expect(no.stderr).toContain('create_note not called (you said no)');
    const yes = await run(true);
    expect(yes.code).toBe(0);
    expect(writesOnly.calls.slice(before).map((c) => c.name)).toEqual(['create_note', 'create_note', 'create_note']);
    expect(questions[0]).toMatch(/^No tool is annotated read-only\. Call create_note .* It may change something\.$/);
    expect(JSON.parse(yes.stdout).targets[0].tool.allowUnsafe).toBe(true);
  });

  it('never prints the header it was given: it becomes an SSM reference with the scheme as its prefix', async () => {
    const r = await cli(['init', locked.url, '--header', `Authorization: Bearer ${TOKEN}`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN.slice(3));
    const out = JSON.parse(r.stdout) as { config: { targets: Array<Record<string, unknown>> } };
    const target = out.config.targets[0]!;
    expect(target.headers).toBeUndefined();
    expect(target.headerSecrets).toEqual({ Authorization: { ssmParameter: '/mcp-canary/127.0.0.1/authorization', prefix: 'Bearer ' } });
    const text = await cli(['init', locked.url, '--header', `Authorization: Bearer ${TOKEN}`]);
    expect(`${text.stdout}${text.stderr}`).not.toContain(TOKEN.slice(3));
    expect(text.stderr).toContain('aws ssm put-parameter --type SecureString --name /mcp-canary/127.0.0.1/authorization');
  });
});

describe('mcp-canary init goes the way check goes', () => {
  it('through HTTP_PROXY, as check does', async () => {
    const [server, proxy] = await Promise.all([startInitServer({ era: 'modern', tools: [getStatus] }), startForwardProxy()]);
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) delete env[k];
      const r = await runToEnd(process.execPath, [CLI_BIN, 'init', server.url], {
        env: { ...env, HTTP_PROXY: proxy.url },
        killAfterMs: 60_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const toolCalls = server.methods.filter((m) => m === 'tools/call').length;
      expect(toolCalls).toBe(3);
      // The connections to the server went through the proxy's tunnels (undici tunnels plain http too).
      const host = new URL(server.url).host;
      expect(proxy.connects.length + proxy.forwarded.length).toBeGreaterThan(0);
      expect([...proxy.connects, ...proxy.forwarded.map((u) => new URL(u).host)].every((h) => h === host)).toBe(true);
    } finally {
      await Promise.all([server.close(), proxy.close()]);
    }
  });
});

describe('mcp-canary init when the best tool fails', () => {
  it('tries the next read-only tool, and never records an answer that was an error', async () => {
    const broken: InitTool = {
      name: 'get_health',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
      answer: () => ({ isError: true, content: [{ type: 'text', text: 'upstream key expired' }] }),
    };
    const server = await startInitServer({ era: 'legacy', tools: [broken, getRate] });
    try {
      const r = await cli(['init', server.url, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'canary: get_health did not answer as a canary must: tool_error  tools/call: get_health answered isError: upstream key expired',
      );
      expect(server.calls.map((c) => c.name)).toEqual(['get_health', 'get_rate', 'get_rate', 'get_rate']);
      expect(JSON.parse(r.stdout).config.targets[0].tool.name).toBe('get_rate');
    } finally {
      await server.close();
    }
  });
});

describe('mcp-canary init and an answer that reads like a refused upstream credential', () => {
  it('records no expectation from it (no isError, HTTP 200) and moves on to the next read-only tool', async () => {
    const refused: InitTool = {
      name: 'get_health',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
      answer: () => ({ content: [{ type: 'text', text: 'Upstream said: 401 Unauthorized (invalid api key)' }] }),
    };
    const server = await startInitServer({ era: 'modern', tools: [refused, getRate] });
    try {
      const r = await cli(['init', server.url, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/get_health .*answered like a refused upstream credential/);
      const target = JSON.parse(r.stdout).config.targets[0];
      expect(target.tool.name).toBe('get_rate');
      expect(JSON.stringify(target)).not.toContain('Unauthorized');
    } finally {
      await server.close();
    }
  });
});

describe('mcp-canary init and a key in the URL', () => {
  it('writes the URL as the Redactor leaves it, never the key, and says what to do', async () => {
    const server = await startInitServer({ era: 'legacy', tools: [getStatus] });
    try {
      const key = 'sk-url-93f0a1c27be4';
      const r = await cli(['init', `${server.url}?api_key=${key}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(`${r.stdout}${r.stderr}`).not.toContain(key);
      const file = join(dir, 'url-key.json');
      writeFileSync(file, r.stdout);
      expect((await loadFleet(file)).targets[0]!.url).toBe(`${server.url}?[redacted]`);
      expect(r.stderr).toContain('url: it carries a credential (a query value or a key in the path), written as [redacted]');
    } finally {
      await server.close();
    }
  });
});

describe('mcp-canary init refuses bad input in one line naming the flag and the fix', () => {
  it.each([
    [
      ['init', 'http://127.0.0.1:9/mcp', '--tool', 'x'],
      /^mcp-canary: --tool is not an init flag: init proposes the canary tool itself\. Drop --tool\.\n$/,
    ],
    [
      ['init', 'http://127.0.0.1:9/mcp', '--expect-json', 'a=1'],
      /^mcp-canary: --expect-json is not an init flag: .*Drop --expect-json\.\n$/,
    ],
    [['init', '--json'], /^mcp-canary: missing <url>: `mcp-canary init https:\/\/mcp\.example\.com\/mcp`\.\n$/],
    [['init', 'http://127.0.0.1:9/mcp', '--bogus'], /^mcp-canary: unknown flag --bogus\. Run `mcp-canary init --help` for the flags\.\n$/],
    [['init', 'http://127.0.0.1:9/mcp', '--out'], /^mcp-canary: --out needs a value\. Run `mcp-canary init --help` for the flags\.\n$/],
    [['init', 'http://127.0.0.1:9/mcp', '--timeout-ms', 'soon'], /^mcp-canary: --timeout-ms must be a whole number, got "soon"\n$/],
    [['init', 'ftp://example.com/mcp'], /^mcp-canary: .*<url>.*is not an http\(s\) URL/],
  ])('%j', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  it('refuses to overwrite an --out file without --yes, before it connects', async () => {
    const file = join(dir, 'exists.json');
    writeFileSync(file, 'mine');
    const r = await cli(['init', 'http://127.0.0.1:9/mcp', '--out', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`mcp-canary: --out ${file}: the file exists. Choose another path, or add --yes to overwrite it.\n`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('says what it could not reach in one line, and exits 1', async () => {
    const r = await cli(['init', 'http://127.0.0.1:9/mcp', '--timeout-ms', '2000']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcp-canary: init could not list what the endpoint offers: unreachable {2}.+\n$/);
  });

  it('prints its help with --help', async () => {
    const r = await cli(['init', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: mcp-canary init <url>/);
  });
});
