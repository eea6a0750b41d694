/**
 * `check --json` stays JSON whatever the URL holds, and no secret of the URL reaches either stream: every
 * URL shape the docs allow (test/helpers/url-shapes.ts), against a real endpoint that echoes the query
 * it received in its tool's error text. The human output shows the URL the one way (shown-url.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd, type Finished } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer, type FaultHandler, type FaultServer } from '../../helpers/faults.ts';
import { URL_SHAPES } from '../../helpers/url-shapes.ts';

function cli(args: string[]): Promise<Finished> {
  return runToEnd(process.execPath, [CLI_BIN, ...args]);
}

/** Answers like a server whose upstream refused the call, quoting the request line it got. */
const echoing: FaultHandler = (req, res, rx) =>
  modernEndpoint({
    tools: [readOnlyRateTool],
    call: () => ({ isError: true, content: [{ type: 'text', text: `upstream refused ${req.url ?? ''} (read_only: true, limit 10)` }] }),
  })(req, res, rx);

let v4: FaultServer;
let v6: FaultServer;
beforeAll(async () => {
  [v4, v6] = await Promise.all([startFaultServer(echoing), startFaultServer(echoing, { host: '::1' })]);
});
afterAll(async () => {
  await Promise.all([v4.close(), v6.close()]);
});

/** The shape's URL with its scheme, host and port those of the local endpoint (IPv6 for an IPv6 shape). */
function local(url: string): string {
  const u = new URL(url);
  const to = new URL(u.hostname === '[::1]' ? v6.url : v4.url);
  u.protocol = to.protocol;
  u.host = to.host;
  return u.href;
}

describe('check --json on every URL shape', () => {
  for (const s of URL_SHAPES) {
    it(`stays one JSON document with no secret in it: ${s.shape}`, async () => {
      const url = local(s.url);
      const r = await cli(['check', url, '--tool', 'get_rate', '--json']);
      for (const secret of s.secrets) {
        expect(r.stdout).not.toContain(secret);
        expect(r.stderr).not.toContain(secret);
      }
      if (new URL(url).username) {
        // Credentials in a URL are refused before anything runs, in one line that never echoes them.
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        return;
      }
      const verdicts = JSON.parse(r.stdout) as Array<{ outcome: string; failure: string; detail: string; probes: Array<{ ok: unknown }> }>;
      expect(verdicts).toHaveLength(1);
      expect(verdicts[0]).toMatchObject({ outcome: 'failed', failure: 'tool_error' });
      expect(verdicts[0]!.probes.map((p) => p.ok)).toEqual([true, true, false]);
      // The echo kept its ordinary words: a flag value is no secret, so `true` and 10 stay readable.
      expect(verdicts[0]!.detail).toContain('(read_only: true, limit 10)');
    });

    it(`shows the URL one way for people: ${s.shape}`, async () => {
      const url = local(s.url);
      const r = await cli(['check', url, '--tool', 'get_rate', '--name', 'shapes']);
      for (const secret of s.secrets) expect(r.stdout + r.stderr).not.toContain(secret);
      if (new URL(url).username) return expect(r.code).toBe(2);
      expect(r.stdout.split('\n')[0]).toBe(`shapes  ${local(s.shown)}  (2026-07-28, hand-written 0.0.1)`);
    });
  }
});
