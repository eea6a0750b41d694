/**
 * An answer nothing checks: the rule on its own, the CLI notice (a real process against a server that
 * returns an upstream 401 as an ordinary result) and the synth annotation. Never an outcome change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogOutputSchema,
  configuredChecks,
  uncheckedAnswer,
  uncheckedTargets,
} from '../../../../functions/base/config/schema/unchecked.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { modernEndpoint, startFaultServer, type FaultServer } from '../../../helpers/faults.ts';
import { McpCanaryFleet } from '../../../../infra/fleet.ts';
import { newTestApp, smallFleet } from '../../../helpers/infra/synth.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const BIN = CLI_BIN;

describe('the rule', () => {
  it('only isError checks the answer → one line naming the target, the tool and what it would miss', () => {
    const line = uncheckedAnswer('rates', 'get_rate', configuredChecks({ name: 'get_rate', expectJson: {} }, false));
    expect(line).toMatch(/^rates: the answer of get_rate is not checked .* an expired key answered as text — reads healthy/);
  });

  it.each([
    ['expectText', { name: 't', expectText: 'ok', expectJson: {} }, false],
    ['expectJson', { name: 't', expectJson: { a: 1 } }, false],
    ['an outputSchema', { name: 't', expectJson: {} }, true],
  ])('%s is a check: no line', (_what, tool, schema) => {
    expect(uncheckedAnswer('x', 't', configuredChecks(tool, schema))).toBeNull();
  });

  it("reads a recorded catalog's outputSchema (flat or per credential); without one it says what it cannot know", () => {
    expect(catalogOutputSchema({ t: 'd:1;i:2;o:-;a:3;r:1' }, 't')).toBe(false);
    expect(catalogOutputSchema({ byCredential: { anonymous: { t: 'd:1;i:2;o:abcd0123;a:3;r:1' } } }, 't')).toBe(true);
    expect(catalogOutputSchema(undefined, 't')).toBeNull();
    const lines = uncheckedTargets([
      { name: 'a', tool: { name: 't', expectJson: {} } },
      { name: 'b', tool: { name: 't', expectJson: {} }, catalog: { t: 'd:1;i:2;o:abcd0123;a:3;r:1' } },
      { name: 'c' },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^a: .*no recorded catalog shows an outputSchema/);
  });

  it("names a flow's tool step that nothing checks, and not one whose answer a value is taken from", () => {
    const step = { kind: 'tools/call' as const, expectJson: {}, extract: {}, arguments: {}, allowUnsafe: false, task: false };
    const lines = uncheckedTargets([
      {
        name: 'orders',
        flow: [
          { ...step, id: 'find', name: 'find_order', extract: { id: { path: 'order.id' } } },
          { ...step, id: 'status', name: 'order_status' },
          { ...step, name: 'ping', expectText: 'pong' },
          { kind: 'resources/list', expectJson: {}, extract: {} },
        ],
      },
    ]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^orders step 2 "status": the answer of order_status is not checked .* Add the step's expectText, expectJson or extract naming what a good answer holds$/,
      ),
    ]);
  });
});

describe('the CLI prints it under the verdict; the outcome stands', () => {
  let server: FaultServer;
  beforeAll(async () => {
    // The upstream's 401, returned as an ordinary result: no isError, no structuredContent.
    server = await startFaultServer(
      modernEndpoint({
        tools: [{ name: 'get_rate', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
        call: () => ({ content: [{ type: 'text', text: 'upstream answered 401 Unauthorized' }] }),
      }),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it('no expectation → exit 0, healthy, and the notice', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'check', server.url, '--tool', 'get_rate']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HEALTHY/m);
    expect(r.stdout).toMatch(/^ {2}! unchecked_answer {2}127\.0\.0\.1: the answer of get_rate is not checked/m);
  });

  it('with --expect-text → the check catches it (exit 1, assertion), and no notice', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'check', server.url, '--tool', 'get_rate', '--expect-text', 'EURUSD']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED {2}assertion/);
    expect(r.stdout).not.toMatch(/unchecked_answer/);
  });

  it('--json carries what was checked, and the verdict is the same', async () => {
    const r = await runToEnd(process.execPath, [BIN, 'check', server.url, '--tool', 'get_rate', '--json']);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ outcome: 'healthy', checked: ['isError'] });
  });
});

describe('cdk synth annotates the target', () => {
  it('a warning on the home stack naming each target whose answer is not checked, none for the others', () => {
    const fleet = smallFleet();
    const checked = { name: 'rates-checked', url: 'https://rates2.example.com/mcp', tool: { name: 'get_rate', expectText: 'EURUSD' } };
    const { app, cleanup } = newTestApp();
    let built: McpCanaryFleet;
    try {
      built = new McpCanaryFleet(app, 'McpCanary', { ...fleet, targets: [...fleet.targets, checked] });
    } finally {
      cleanup();
    }
    // The home stack's construct metadata: what `cdk synth` prints as its warnings.
    const found = built.home.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
    expect(found.filter((m) => m.includes('is not checked')).map((m) => m.split(':')[0])).toEqual(['rates-prod']);
    expect(found.find((m) => m.includes('is not checked'))).toMatch(
      /^rates-prod: the answer of get_rate is not checked .*no recorded catalog shows an outputSchema/,
    );
  });
});
