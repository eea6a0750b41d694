/** `mcp-canary check --config` on a gateway: its verdict and one per backend, for people and in --json, exit by the worst. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type RunningServer } from '../../../functions/demo/servers.ts';
import { runToEnd } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { startGateway } from '../../helpers/gateway.ts';

let dir: string;
let file: string;
const running: RunningServer[] = [];
let docs: RunningServer;

beforeAll(async () => {
  const backends = await Promise.all(
    ['github', 'docs'].map((name) =>
      startMcpServer({
        era: 'dual',
        name,
        tools: [
          { name: 'get_status', annotations: { readOnlyHint: true }, handler: () => ({ content: [{ type: 'text', text: `${name} ok` }] }) },
        ],
      }),
    ),
  );
  docs = backends[1]!;
  const gateway = await startGateway([
    { name: 'github', url: backends[0]!.url },
    { name: 'docs', url: docs.url },
  ]);
  running.push(...backends, gateway);
  dir = mkdtempSync(join(tmpdir(), 'mcp-canary-cli-gw-'));
  file = join(dir, 'fleet.json');
  writeFileSync(
    file,
    JSON.stringify({
      homeRegion: 'eu-west-1',
      targets: [
        {
          name: 'gw',
          url: gateway.url,
          timeoutMs: 2000,
          backends: [
            { name: 'github', tool: { name: 'get_status', expectText: 'github ok' } },
            { name: 'docs', tool: { name: 'get_status', expectText: 'docs ok' } },
          ],
        },
      ],
    }),
  );
});
afterAll(async () => {
  await Promise.all(running.map((s) => s.close().catch(() => {})));
  rmSync(dir, { recursive: true, force: true });
});

describe('mcp-canary check on a gateway', () => {
  it('prints the gateway and each backend, in --json and for people, and exits by the worst', async () => {
    const json = await runToEnd(process.execPath, [CLI_BIN, 'check', '--config', file, '--json']);
    expect(json.code).toBe(0);
    expect(
      JSON.parse(json.stdout).map((v: { target: string; outcome: string; gateway?: string }) => [v.target, v.outcome, v.gateway]),
    ).toEqual([
      ['gw', 'healthy', undefined],
      ['gw/github', 'healthy', 'gw'],
      ['gw/docs', 'healthy', 'gw'],
    ]);

    await docs.close();
    const human = await runToEnd(process.execPath, [CLI_BIN, 'check', '--config', file]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^gw\/docs {2}http:\/\/127\.0\.0\.1:\d+\/mcp/m);
    expect(human.stdout).toMatch(/^FAILED {2}.*tool_error.*docs___get_status/m);
    expect(human.stdout).toMatch(/^gw\/github {2}/m);
    expect(human.stdout.match(/^HEALTHY/gm)).toHaveLength(2);
  });
});
