/**
 * The fleet's `telemetry`: what it accepts, what it refuses (naming the field and the fix), and the
 * settings the deployed function reads back from its environment.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { readTelemetryEnv, Telemetry, TELEMETRY_ENV, telemetrySettings } from '../../../../functions/base/config/schema/telemetry.ts';

const fleet = (telemetry: unknown) => ({
  homeRegion: 'eu-west-1',
  targets: [{ name: 't', url: 'https://mcp.example.com/mcp', tool: { name: 'x' } }],
  telemetry,
});
const refusal = (telemetry: unknown): string => {
  try {
    parseFleet(fleet(telemetry));
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected the fleet to be refused');
};

describe('telemetry settings', () => {
  it('are off when absent', () => {
    expect(parseFleet(fleet(undefined)).telemetry).toBeUndefined();
    expect(readTelemetryEnv({})).toBeUndefined();
  });

  it('send a collector base URL to /v1/traces and /v1/metrics, with the default timeout', () => {
    const s = telemetrySettings(Telemetry.parse({ otlp: { endpoint: 'https://otel.example.com:4318/' } }));
    expect(s).toEqual({
      traces: { url: 'https://otel.example.com:4318/v1/traces' },
      metrics: { url: 'https://otel.example.com:4318/v1/metrics' },
      headers: {},
      timeoutMs: 2_000,
    });
  });

  it("sign AWS's endpoints with the service and region their hosts name, and take a signal off with false", () => {
    const s = telemetrySettings(
      Telemetry.parse({
        otlp: {
          sigv4: {},
          traces: { endpoint: 'https://xray.eu-west-1.amazonaws.com/v1/traces' },
          metrics: { endpoint: 'https://monitoring.us-east-1.amazonaws.com/v1/metrics' },
        },
      }),
    );
    expect(s?.traces).toEqual({ url: 'https://xray.eu-west-1.amazonaws.com/v1/traces', sigv4: { region: 'eu-west-1', service: 'xray' } });
    expect(s?.metrics).toEqual({
      url: 'https://monitoring.us-east-1.amazonaws.com/v1/metrics',
      sigv4: { region: 'us-east-1', service: 'monitoring' },
    });
    const tracesOnly = telemetrySettings(Telemetry.parse({ otlp: { endpoint: 'http://localhost:4318', metrics: { enabled: false } } }));
    expect(tracesOnly).toEqual({ traces: { url: 'http://localhost:4318/v1/traces' }, headers: {}, timeoutMs: 2_000 });
  });

  it.each([
    [{ otlp: { endpoint: 'not a url' } }, /telemetry\.otlp\.endpoint is not a URL/],
    [{ otlp: { traces: { endpoint: 'not a url' } } }, /telemetry\.otlp\.traces\.endpoint is not a URL/],
    [{ otlp: { metrics: { enabled: true } } }, /telemetry\.otlp\.metrics\.endpoint is required/],
    [
      { otlp: { endpoint: 'http://otel.example.com:4318' } },
      /telemetry\.otlp\.endpoint.*must be an https URL \(http only to a collector on localhost\)/,
    ],
    [
      { otlp: { endpoint: 'https://user:pass@otel.example.com' } },
      /telemetry\.otlp\.endpoint.*credentials in the URL: put them in `headers` as a secret reference/,
    ],
    [{ otlp: {} }, /telemetry\.otlp.*sends nothing: give `endpoint`/],
    [
      { otlp: { traces: { endpoint: 'https://xray.eu-west-1.amazonaws.com/v1/traces' }, metrics: { enabled: false } } },
      /telemetry\.otlp\.traces.*wants signed requests: add sigv4: \{\} \(service xray, region eu-west-1\)/,
    ],
    [
      { otlp: { endpoint: 'https://otel.example.com', sigv4: { region: 'eu-west-1' } } },
      /telemetry\.otlp\.sigv4\.service is required: the endpoint is not an AWS OTLP host/,
    ],
    [{ otlp: { endpoint: 'https://otel.example.com', timeoutMs: 60_000 } }, /telemetry\.otlp\.timeoutMs.*at most 10000/],
    [
      { otlp: { endpoint: 'https://otel.example.com', headers: { 'x-api-key': 'plain-value' } } },
      /telemetry\.otlp\.headers\.x-api-key.*secretsManager/,
    ],
    [{ otlp: { endpoint: 'https://otel.example.com', headrs: {} } }, /telemetry\.otlp.*headrs/],
    [
      { otlp: { endpoint: 'https://otel.example.com', headers: { 'x-api-key': { secretsManager: 'otel-key' } } } },
      /headers\.x-api-key\.secretsManager must be named under mcp-canary\//,
    ],
    [
      {
        otlp: {
          endpoint: 'https://otel.example.com',
          headers: { k: { ssmParameter: 'arn:aws:ssm:eu-west-1:123456789012:parameter/mcp-canary/k' } },
        },
      },
      /headers\.k\.ssmParameter is an ARN: give the name instead/,
    ],
  ])('refuse %j, naming the field and the fix', (telemetry, message) => {
    expect(refusal(telemetry)).toMatch(message);
  });

  it('never echo a URL credential in the refusal', () => {
    expect(refusal({ otlp: { endpoint: 'https://user:s3cret-pass@otel.example.com' } })).not.toContain('s3cret-pass');
  });

  it('reach the function as references only, and read back the same', () => {
    const s = telemetrySettings(
      Telemetry.parse({ otlp: { endpoint: 'https://otel.example.com', headers: { 'x-api-key': { secretsManager: 'mcp-canary/otel' } } } }),
    )!;
    const env = { [TELEMETRY_ENV]: JSON.stringify(s) };
    expect(readTelemetryEnv(env)).toEqual(s);
    expect(() => readTelemetryEnv({ [TELEMETRY_ENV]: '{not json' })).toThrow(/MCP_CANARY_TELEMETRY is not JSON: redeploy/);
    expect(() => readTelemetryEnv({ [TELEMETRY_ENV]: '{"traces":1}' })).toThrow(/MCP_CANARY_TELEMETRY is not telemetry settings/);
  });
});
