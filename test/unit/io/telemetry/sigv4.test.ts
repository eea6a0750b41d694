/**
 * SigV4 on AWS's OTLP endpoints: a real receiver on loopback recomputes the signature of what it
 * received with the AWS SDK's own signer and known test credentials (the date from `x-amz-date`, the
 * headers the Authorization header says were signed, the body as received), the way AWS checks it.
 */
import { createHash } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRecord } from '../../../../functions/lambdas/run/log.ts';
import { canaryVerdict } from '../../../../functions/base/common/verdict.ts';
import { Telemetry, telemetrySettings } from '../../../../functions/base/config/schema/telemetry.ts';
import { exportBatch } from '../../../../functions/io/telemetry/export.ts';
import { decodeTraces, startOtlpReceiver, type OtlpReceiver, type Received } from '../../../helpers/otlp-receiver.ts';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLETELEMETRY',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-example',
};

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

/**
 * Whether AWS would accept `r` signed with `secretAccessKey`: the body's SHA-256 is the signed
 * `x-amz-content-sha256`, and the Authorization header is the one the signer computes again.
 */
async function verifies(r: Received, service: string, region: string, secretAccessKey: string, body = r.body): Promise<boolean> {
  if (r.headers['x-amz-content-sha256'] !== createHash('sha256').update(body).digest('hex')) return false;
  return r.headers.authorization === (await expectedAuthorization(r, service, region, secretAccessKey));
}

/** The Authorization header the signer computes for what `r` carried, with `secretAccessKey`. */
async function expectedAuthorization(r: Received, service: string, region: string, secretAccessKey: string): Promise<string> {
  const auth = String(r.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';');
  const headers = Object.fromEntries(signedHeaders.map((h) => [h, String(r.headers[h])]));
  const amzDate = String(r.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const url = new URL(r.path, receiver.url);
  const signer = new SignatureV4({ credentials: { ...CREDENTIALS, secretAccessKey }, region, service, sha256: Sha256 });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers,
      body: r.body,
    },
    { signingDate },
  );
  return signed.headers.authorization!;
}

const record = runRecord(
  canaryVerdict('rates', 'failed', 'timeout', 'no verdict within the run budget', 1200, '4bf92f3577b34da6a3ce929d0e0e4736'),
  'eu-west-1',
  new Date(),
  new Date(),
);

describe('an export to an endpoint that wants SigV4', () => {
  it('is signed with the function credentials for the service and region, and the receiver can verify it', async () => {
    // Prepare
    const settings = telemetrySettings(
      Telemetry.parse({
        otlp: {
          traces: { endpoint: `${receiver.url}/v1/traces`, sigv4: { region: 'eu-west-1', service: 'xray' } },
          metrics: { endpoint: `${receiver.url}/v1/metrics`, sigv4: { region: 'eu-west-1', service: 'monitoring' } },
        },
      }),
    )!;
    // Act
    const outcome = await exportBatch([{ record, requests: [] }], settings, 2_000, {
      headers: {},
      probeRegion: 'eu-west-1',
      credentials: async () => CREDENTIALS,
    });
    // Assess
    expect(outcome).toEqual({ traces: { ok: true }, metrics: { ok: true } });
    const traces = receiver.received.find((r) => r.path === '/v1/traces')!;
    const metrics = receiver.received.find((r) => r.path === '/v1/metrics')!;
    expect(String(traces.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETELEMETRY\/\d{8}\/eu-west-1\/xray\/aws4_request, SignedHeaders=[^,]*content-type[^,]*host/,
    );
    expect(String(metrics.headers.authorization)).toContain('/eu-west-1/monitoring/aws4_request');
    expect(traces.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(await verifies(traces, 'xray', 'eu-west-1', CREDENTIALS.secretAccessKey)).toBe(true);
    expect(await verifies(metrics, 'monitoring', 'eu-west-1', CREDENTIALS.secretAccessKey)).toBe(true);
    // The check can fail: another key, another service, or another body is refused.
    expect(await verifies(traces, 'xray', 'eu-west-1', 'another-secret-key')).toBe(false);
    expect(await verifies(traces, 'monitoring', 'eu-west-1', CREDENTIALS.secretAccessKey)).toBe(false);
    expect(await verifies(traces, 'xray', 'eu-west-1', CREDENTIALS.secretAccessKey, Buffer.from('x'))).toBe(false);
    // The trace of a run the canary cut itself still carries the verdict's trace id.
    expect(decodeTraces(traces.body).spans.map((s) => s.traceId)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736']);
    // No credential in the exported payloads.
    for (const r of [traces, metrics]) for (const v of Object.values(CREDENTIALS)) expect(r.body.includes(v)).toBe(false);
  });

  it('is not sent when the function has no credentials, and says so', async () => {
    // Prepare
    const settings = telemetrySettings(
      Telemetry.parse({
        otlp: {
          traces: { endpoint: `${receiver.url}/v1/traces`, sigv4: { region: 'eu-west-1', service: 'xray' } },
          metrics: { enabled: false },
        },
      }),
    )!;
    // Act
    const outcome = await exportBatch([{ record, requests: [] }], settings, 2_000, { headers: {}, probeRegion: 'eu-west-1' });
    // Assess
    expect(outcome).toEqual({ traces: { ok: false, why: expect.stringContaining('no AWS credentials') } });
    expect(receiver.received).toEqual([]);
  });
});
