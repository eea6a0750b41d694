/**
 * The built run Lambda with telemetry: built exactly as deployed (infra/constructs/bundle.ts — index.mjs and
 * the telemetry export as its own file beside it), run in a fresh Node process against a real MCP server,
 * moto for CloudWatch and a real OTLP receiver. With export off the side file is never loaded (the run
 * works with it deleted); with export on it is, and the export is signed with the function's own
 * credentials (the Lambda's environment variables, through the SDK client's provider chain).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { bundleRunHandler, type BuiltBundle } from '../../../../infra/constructs/bundle.ts';
import { Telemetry, TELEMETRY_ENV, telemetrySettings } from '../../../../functions/base/config/schema/telemetry.ts';
import { TELEMETRY_EXPORT_FILE, TELEMETRY_FAILED_MESSAGE } from '../../../../functions/io/telemetry/batch.ts';
import { UNDICI_SIDE_FILE } from '../../../../functions/base/net/reach.ts';
import { EnvVar } from '../../../../functions/base/config/env/env.ts';
import { startForwardProxy } from '../../../helpers/net/forward-proxy.ts';
import { runToEnd, type Finished } from '../../../helpers/child.ts';
import { startCatalogPostureServer, type CatalogPostureServer } from '../../../helpers/catalog-posture-server.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { decodeTraces, startOtlpReceiver, type OtlpReceiver } from '../../../helpers/otlp-receiver.ts';
import { HOME_REGION, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);

const CHILD = `
const { handler } = await import(process.env.BUNDLE_URL);
const summary = await handler(JSON.parse(process.env.EVENT), { getRemainingTimeInMillis: () => 60_000 });
process.stdout.write('RESULT ' + JSON.stringify(summary) + '\\n');
`;

let moto: Moto;
let mcp: CatalogPostureServer;
let receiver: OtlpReceiver;
let outdir: string;
let bundle: BuiltBundle;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'mcp-canary-telemetry-bundle-'));
  [moto, bundle, mcp] = await Promise.all([
    startMoto(),
    bundleRunHandler(outdir),
    startCatalogPostureServer({
      era: 'modern',
      tools: [{ name: 'get_rate', description: 'rate', inputSchema: z.object({}), annotations: { readOnlyHint: true } }],
    }),
  ]);
});
afterAll(async () => {
  await mcp?.close();
  await moto?.stop();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});
beforeEach(async () => {
  await moto.reset();
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function runChild(file: string, extra: Record<string, string>): Promise<Finished> {
  return runToEnd(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      BUNDLE_URL: pathToFileURL(file).href,
      EVENT: JSON.stringify({ targets: [{ name: 'rates', url: mcp.url, tool: { name: 'get_rate' } }] }),
      MCP_CANARY_HOME_REGION: HOME_REGION,
      AWS_REGION: PROBE_REGION,
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
      ...extra,
    },
  });
}
const summaryOf = (child: Finished) =>
  JSON.parse(
    child.stdout
      .split('\n')
      .find((l) => l.startsWith('RESULT '))!
      .slice(7),
  ) as unknown;
const HEALTHY = { verdicts: [{ target: 'rates', outcome: 'healthy', failure: null }], published: true };

describe('the built run Lambda with telemetry', () => {
  it('carries the export as a file of its own, and exports signed OTLP with the trace id the server received', async () => {
    // Prepare
    expect(bundle.sideFiles.map((f) => f.file)).toEqual([join(outdir, TELEMETRY_EXPORT_FILE), join(outdir, UNDICI_SIDE_FILE)]);
    const settings = telemetrySettings(
      Telemetry.parse({ otlp: { endpoint: receiver.url, sigv4: { region: PROBE_REGION, service: 'xray' }, metrics: { enabled: false } } }),
    );
    const seenBefore = mcp.seen.length;
    // Act
    const child = await runChild(bundle.file, { [TELEMETRY_ENV]: JSON.stringify(settings) });
    // Assess
    expect(child.code, child.stderr).toBe(0);
    expect(summaryOf(child)).toEqual(HEALTHY);
    expect(receiver.received.map((r) => r.path)).toEqual(['/v1/traces']);
    expect(String(receiver.received[0]!.headers.authorization)).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${motoCredentials.accessKeyId}/\\d{8}/${PROBE_REGION}/xray/aws4_request`),
    );
    const sentTraceIds = new Set(mcp.seen.slice(seenBefore).map((s) => s.traceparent!.split('-')[1]));
    expect(new Set(decodeTraces(receiver.received[0]!.body).spans.map((s) => s.traceId))).toEqual(sentTraceIds);
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), 'McpCanary', 'rates')).toMatchObject({ runs: 1, worst: 0 });
  });

  it('never loads the export when telemetry is off: the run works without the file; with it on and the file gone, one log line', async () => {
    // Prepare: the bundle without its side file
    const bare = await mkdtemp(join(tmpdir(), 'mcp-canary-bare-bundle-'));
    try {
      const only = await bundleRunHandler(bare);
      await rm(only.sideFiles[0]!.file);
      const settings = telemetrySettings(Telemetry.parse({ otlp: { endpoint: receiver.url } }));
      // Act
      const off = await runChild(only.file, {});
      const on = await runChild(only.file, { [TELEMETRY_ENV]: JSON.stringify(settings) });
      // Assess
      expect(off.code, off.stderr).toBe(0);
      expect(summaryOf(off)).toEqual(HEALTHY);
      expect(on.code, on.stderr).toBe(0);
      expect(summaryOf(on)).toEqual(HEALTHY);
      const failed = on.stdout.split('\n').filter((l) => l.includes(TELEMETRY_FAILED_MESSAGE));
      expect(failed).toHaveLength(1);
      expect(receiver.received).toEqual([]);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});

describe('the built run Lambda with a proxy', () => {
  it('carries undici as a file of its own, and reaches the endpoint through the proxy with it', async () => {
    // Prepare: undici (about half a megabyte) is not in index.mjs, so a fleet without a proxy never parses it
    const inlined = Object.keys(bundle.metafile.inputs).filter((f) => f.includes('node_modules/undici/'));
    expect(inlined).toEqual([]);
    const proxy = await startForwardProxy();
    try {
      // Act
      const child = await runChild(bundle.file, { [EnvVar.proxy]: JSON.stringify({ url: proxy.url, noProxy: [] }) });
      // Assess
      expect(child.code, child.stderr).toBe(0);
      expect(summaryOf(child)).toEqual(HEALTHY);
      // undici tunnels plain HTTP too (CONNECT), or forwards it: either way through the proxy
      const host = new URL(mcp.url).host;
      expect([...proxy.connects, ...proxy.forwarded.map((u) => new URL(u).host)]).toContain(host);
    } finally {
      await proxy.close();
    }
  });
});
