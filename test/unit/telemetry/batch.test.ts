/**
 * The batch's budget: the export's timeout is the configured one cut to what is left of the run, too
 * little left means no attempt at all, and a header secret that cannot be read in time means no export
 * — each one log line, never a throw. A real receiver on loopback that holds every request open.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canaryVerdict } from '../../../functions/common/verdict.ts';
import type { TelemetrySettings } from '../../../functions/config/telemetry.ts';
import { runRecord } from '../../../functions/run/log.ts';
import { MIN_EXPORT_MS, TelemetryBatch, TELEMETRY_FAILED_MESSAGE } from '../../../functions/telemetry/batch.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../helpers/otlp-receiver.ts';

let receiver: OtlpReceiver;
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
    const outcome = await batch(lines).flush(150);
    // Assess
    expect(outcome).toEqual({ traces: { ok: false, why: "no answer within 150 ms (the export's timeout)" } });
    expect(receiver.received.map((r) => r.path)).toEqual(['/v1/traces']);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      {
        message: TELEMETRY_FAILED_MESSAGE,
        runs: 1,
        traces: "no answer within 150 ms (the export's timeout)",
        endpoints: [`${receiver.url}/v1/traces`],
      },
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
