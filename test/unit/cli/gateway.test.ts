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
let gatewayUrl: string;

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
  gatewayUrl = gateway.url;
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

describe('mcp-canary snapshot --prefix on a gateway', () => {
  const fleetWith = (catalog: unknown) => {
    const f = join(dir, `fleet-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(
      f,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [{ name: 'gw', url: gatewayUrl, timeoutMs: 2000, backends: [{ name: 'github', tool: { name: 'get_status' }, catalog }] }],
      }),
    );
    return f;
  };
  const driftOf = async (catalog: unknown) => {
    const run = await runToEnd(process.execPath, [CLI_BIN, 'check', '--config', fleetWith(catalog), '--json']);
    const github = JSON.parse(run.stdout).find((v: { target: string }) => v.target === 'gw/github');
    return github.warnings.filter((w: { kind: string }) => w.kind === 'catalog_drift').map((w: { detail: string }) => w.detail);
  };

  it("records one backend's tools, named as the backend names them: its catalog shows no drift, the whole gateway's would", async () => {
    const one = await runToEnd(process.execPath, [CLI_BIN, 'snapshot', gatewayUrl, '--prefix', 'github___']);
    expect(one.code, one.stderr).toBe(0);
    // A 2026-07-28 list is private unless it says public: recorded per credential, as snapshot does for any target.
    const namesOf = (c: Record<string, unknown>) =>
      Object.keys((c.byCredential ? Object.values(c.byCredential as object)[0] : c) as object);
    const backend = JSON.parse(one.stdout).catalog as Record<string, unknown>;
    expect(namesOf(backend)).toEqual(['get_status']);
    expect(await driftOf(backend)).toEqual([]);

    const whole = await runToEnd(process.execPath, [CLI_BIN, 'snapshot', gatewayUrl]);
    const all = JSON.parse(whole.stdout).catalog as Record<string, unknown>;
    expect(namesOf(all).sort()).toEqual(['docs___get_status', 'github___get_status']);
    expect((await driftOf(all)).join('\n')).toMatch(/docs___get_status.*removed|removed.*docs___get_status/);
  });

  it('refuses a prefix that matches no listed tool (exit 2), and a --prefix without a value', async () => {
    const wrong = await runToEnd(process.execPath, [CLI_BIN, 'snapshot', gatewayUrl, '--prefix=gitlab___']);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toContain('--prefix "gitlab___": none of the 2 tool(s) listed begins with it');
    const bare = await runToEnd(process.execPath, [CLI_BIN, 'snapshot', gatewayUrl, '--prefix']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--prefix needs a value');
  });
});
