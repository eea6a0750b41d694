/**
 * The fleet's OpenTelemetry export as synthesized: off by default (no variable, no grant), and when on,
 * the settings in every run function's environment (references only) and IAM for exactly what is
 * configured — AWS's OTLP actions only for signed destinations, each header reference by name — with
 * cdk-nag's AwsSolutions pack passing.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { readTelemetryEnv, TELEMETRY_ENV } from '../../../functions/base/config/schema/telemetry.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { newTestApp, resourcesOf, smallFleet, synthFleet, type CfnTemplate } from '../../helpers/infra/synth.ts';

const telemetry = {
  otlp: {
    sigv4: {},
    traces: { endpoint: 'https://xray.eu-west-1.amazonaws.com/v1/traces' },
    metrics: { endpoint: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics' },
    headers: { 'x-tenant': { ssmParameter: '/mcp-canary/otel/tenant' }, 'x-api-key': { secretsManager: 'mcp-canary/otel-key' } },
  },
};

function runFunctions(t: CfnTemplate) {
  return resourcesOf(t, 'AWS::Lambda::Function').filter(([, p]) => String(p.FunctionName).includes('-run-'));
}
function runStatements(t: CfnTemplate): Array<Record<string, unknown>> {
  const [, role] = resourcesOf(t, 'AWS::IAM::Role').find(([, p]) => String(p.Description).startsWith('mcp-canary run'))!;
  return (role.Policies as Array<{ PolicyDocument: { Statement: Array<Record<string, unknown>> } }>).flatMap(
    (p) => p.PolicyDocument.Statement,
  );
}
const actionsOf = (statements: Array<Record<string, unknown>>) => statements.flatMap((s) => [s.Action].flat() as string[]);

describe('telemetry in the probe stacks', () => {
  it('is off by default: no variable, no OTLP or telemetry-header grant', () => {
    const eu = synthFleet(smallFleet()).json('McpCanary-probe-eu-west-1');
    expect(runFunctions(eu).length).toBeGreaterThan(0);
    for (const [, fn] of runFunctions(eu))
      expect((fn.Environment as { Variables: Record<string, unknown> }).Variables[TELEMETRY_ENV]).toBeUndefined();
    expect(actionsOf(runStatements(eu))).not.toContain('xray:PutTraceSegments');
    expect(runStatements(eu).filter((s) => actionsOf([s]).includes('cloudwatch:PutMetricData') && !s.Condition)).toEqual([]);
  });

  it('gives every run function the settings and its role the OTLP actions and the header reference', () => {
    const eu = synthFleet(smallFleet({ telemetry })).json('McpCanary-probe-eu-west-1');
    for (const [, fn] of runFunctions(eu)) {
      const value = (fn.Environment as { Variables: Record<string, string> }).Variables[TELEMETRY_ENV]!;
      expect(readTelemetryEnv({ [TELEMETRY_ENV]: value })).toEqual({
        traces: { url: 'https://xray.eu-west-1.amazonaws.com/v1/traces', sigv4: { region: 'eu-west-1', service: 'xray' } },
        metrics: { url: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics', sigv4: { region: 'eu-west-1', service: 'monitoring' } },
        headers: { 'x-tenant': { ssmParameter: '/mcp-canary/otel/tenant' }, 'x-api-key': { secretsManager: 'mcp-canary/otel-key' } },
        timeoutMs: 2_000,
      });
    }
    const statements = runStatements(eu);
    const otlp = statements.find((s) => actionsOf([s]).includes('xray:PutTraceSegments'))!;
    expect(otlp).toMatchObject({ Effect: 'Allow', Resource: '*' });
    expect(actionsOf([otlp]).sort()).toEqual(['cloudwatch:PutMetricData', 'xray:PutTraceSegments']);
    const ssm = statements.filter((s) => actionsOf([s]).includes('ssm:GetParameter'));
    expect(JSON.stringify(ssm)).toContain('parameter/mcp-canary/otel/tenant');
    const sm = statements.filter((s) => actionsOf([s]).includes('secretsmanager:GetSecretValue'));
    expect(JSON.stringify(sm)).toContain('secret:mcp-canary/otel-key-??????');
  });

  it('grants no OTLP action to a collector that is not signed', () => {
    const eu = synthFleet(smallFleet({ telemetry: { otlp: { endpoint: 'https://otel.example.com:4318' } } })).json(
      'McpCanary-probe-eu-west-1',
    );
    expect(actionsOf(runStatements(eu))).not.toContain('xray:PutTraceSegments');
    for (const [, fn] of runFunctions(eu))
      expect((fn.Environment as { Variables: Record<string, unknown> }).Variables[TELEMETRY_ENV]).toBeDefined();
  });

  it('passes cdk-nag AwsSolutions', () => {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', smallFleet({ telemetry }));
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).not.toThrow();
    } finally {
      cleanup();
    }
  });
});
