/**
 * `mcp-canary init` on a real terminal (a pseudo-terminal: stdin and stderr are TTYs, stdout a pipe):
 * a tool not annotated read-only is called only after the user types yes; a no, or just Enter, calls
 * nothing. The server's own record says what ran.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { startInitServer, type InitServer } from '../../helpers/init-server.ts';
import { runOnTerminal } from '../../helpers/terminal.ts';
import { describeWithTools } from '../../helpers/tools.ts';

let server: InitServer;

describeWithTools(['python3'], 'init asks on the terminal', () => {
  beforeAll(async () => {
    server = await startInitServer({
      era: 'modern',
      tools: [
        {
          name: 'purge_cache',
          inputSchema: z.object({}),
          annotations: { destructiveHint: true },
          answer: () => ({ content: [{ type: 'text', text: 'purged' }] }),
        },
        {
          name: 'touch',
          inputSchema: z.object({}),
          annotations: { readOnlyHint: false, destructiveHint: false },
          answer: () => ({ content: [{ type: 'text', text: 'touched the marker' }] }),
        },
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['n', 0],
    ['', 0],
    ['y', 3],
  ])('typed %j: the unannotated tool runs %i times, the destructive one never', async (answer, runs) => {
    server.calls.length = 0;
    const r = await runOnTerminal([process.execPath, CLI_BIN, 'init', server.url], '[y/N]', answer);
    expect(r.typed, r.terminal).toBe(true);
    expect(r.code, r.terminal).toBe(0);
    expect(r.terminal).toContain(
      'No tool is annotated read-only. Call touch (not annotated readOnlyHint: true; no arguments needed) 3 times now',
    );
    expect(server.calls.map((c) => c.name)).toEqual(Array.from({ length: runs }, () => 'touch'));
    const tool = (JSON.parse(r.stdout) as { targets: Array<{ tool?: unknown }> }).targets[0]!.tool;
    expect(tool).toEqual(runs ? { name: 'touch', expectText: 'touched the marker', allowUnsafe: true } : undefined);
  });
});
