/**
 * The batch's budget: the export's timeout is the configured one cut to what is left of the run, too
 * little left means no attempt at all, and a header secret that cannot be read in time means no export
 * — each one log line, never a throw. A real receiver on loopback that holds every request open.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canaryVerdict } from '../../../../functions/base/common/verdict.ts';
import type { TelemetrySettings } from '../../../../functions/base/config/schema/telemetry.ts';
import { runRecord } from '../../../../functions/lambdas/run/log.ts';
import { MIN_EXPORT_MS, TelemetryBatch, TELEMETRY_FAILED_MESSAGE } from '../../../../functions/io/telemetry/batch.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../helpers/otlp-receiver.ts';

let receiver: OtlpReceiver;
beforeAll(async () => {
  // A warm container's: the export module loaded (vitest's first transform of the OTel SDK takes seconds,
  // and loading it counts against the flush's time, as it does in Lambda, where it takes a few ms).
  await import('../../../../functions/io/telemetry/export.ts');
}, 60_000);
beforeEach(async () => {
  receiver = await startOtlpReceiver('hang');
});
afterEach(async () => {
  await receiver.close();
});

const record = runRecord(
  canaryVerdict('rates', 'failed', 'unreachable', 'down', 40, '4bf92f3577b34da6a3ce929d0e0e4736'),
  'eu-west-1',
  new Date(),
  new Date(),
);

function batch(lines: string[], readHeaders?: () => Promise<{ headers: Record<string, string>; secretValues: string[] }>) {
  const settings: TelemetrySettings = { traces: { url: `${receiver.url}/v1/traces` }, headers: {}, timeoutMs: 2_000 };
  const b = new TelemetryBatch(settings, {
    probeRegion: 'eu-west-1',
    log: (l) => lines.push(l),
    readHeaders: readHeaders ?? (async () => ({ headers: {}, secretValues: [] })),
  });
  b.add(record, undefined);
  return b;
}

describe('a telemetry batch', () => {
  it('cuts its timeout to the time left in the run', async () => {
    // Prepare
    const lines: string[] = [];
    // Act
    const outcome = await batch(lines).flush(400);
    // Assess: at most the 400 ms left (less by what reading the headers took), not the configured 2,000.
    const why = outcome?.traces?.ok === false ? outcome.traces.why : '';
    const ms = Number(/^no answer within (\d+) ms \(the export's timeout\)$/.exec(why)?.[1]);
    expect(ms).toBeGreaterThanOrEqual(MIN_EXPORT_MS);
    expect(ms).toBeLessThanOrEqual(400);
    expect(receiver.received.map((r) => r.path)).toEqual(['/v1/traces']);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      { message: TELEMETRY_FAILED_MESSAGE, runs: 1, traces: why, endpoints: [`${receiver.url}/v1/traces`] },
    ]);
  });

  it(`does not try with less than ${MIN_EXPORT_MS} ms left`, async () => {
    const lines: string[] = [];
    expect(await batch(lines).flush(MIN_EXPORT_MS - 1)).toBeUndefined();
    expect(receiver.received).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      message: TELEMETRY_FAILED_MESSAGE,
      all: `not sent: ${MIN_EXPORT_MS - 1} ms left in the invocation`,
    });
  });

  it('sends nothing when its header secrets are not read in time, and never names them', async () => {
    const lines: string[] = [];
    const never = () => new Promise<never>(() => {});
    expect(await batch(lines, never).flush(150)).toBeUndefined();
    expect(receiver.received).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ all: 'not sent: the telemetry headers were not read in time' });
  });

  it('counts the wait for its header secrets against the same time left, not on top of it', async () => {
    // Prepare: the headers arrive 600 ms into a 1,000 ms budget; the collector never answers.
    const lines: string[] = [];
    const late = () =>
      new Promise<{ headers: Record<string, string>; secretValues: string[] }>((r) =>
        setTimeout(() => r({ headers: {}, secretValues: [] }), 600),
      );
    // Act
    const outcome = await batch(lines, late).flush(1_000);
    // Assess: the export's own timeout is at most what was left (a late timer only leaves less), never the whole 1,000 ms.
    const line = JSON.parse(lines[0]!) as { traces?: string; all?: string };
    const timeout = /no answer within (\d+) ms/.exec(line.traces ?? '');
    if (timeout) expect(Number(timeout[1])).toBeLessThanOrEqual(400);
    else expect(line.all).toMatch(/^not sent: \d+ ms left after reading the telemetry headers$/);
    expect(outcome === undefined || outcome.traces?.ok === false).toBe(true);
  });

  it('redacts a header secret a hostile collector error could echo', async () => {
    const lines: string[] = [];
    const secret = 'otlp-key-9d0c7e1b55aa4f21';
    const b = batch(lines, async () => ({ headers: { 'x-api-key': secret }, secretValues: [secret] }));
    receiver.answer = { status: 401 };
    await b.flush(1_000);
    expect(receiver.received[0]!.headers['x-api-key']).toBe(secret);
    expect(lines.join('\n')).not.toContain(secret);
    expect(JSON.parse(lines[0]!)).toMatchObject({ traces: 'the collector answered HTTP 401' });
  });
});
