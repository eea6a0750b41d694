/**
 * The run ledger and the saved queries as each probe-region stack deploys them: an on-demand table with
 * a TTL, that the run role may only claim in (no scan, no delete, no other table), named to every run
 * function; and the Logs Insights queries the dashboard links to instead of running them on refresh.
 */
import { describe, expect, it } from 'vitest';
import { EnvVar } from '../../../functions/base/config/env/env.ts';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../../functions/base/common/run-record.ts';
import { LEDGER_ACTIONS } from '../../../infra/constructs/run-ledger.ts';
import { resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';

const synth = synthFleet(smallFleet());
const regions = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

describe.each(regions)('the run ledger in %s', (region) => {
  const t = synth.json(`McpCanary-probe-${region}`);
  const tables = resourcesOf(t, 'AWS::DynamoDB::Table');

  it('is one on-demand table keyed by the claim, expiring by TTL, deleted with its stack', () => {
    expect(tables).toHaveLength(1);
    const [id, table] = tables[0]!;
    expect(table).toMatchObject({
      TableName: 'McpCanary-run-ledger',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: LEDGER_KEY_ATTRIBUTE, KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: LEDGER_TTL_ATTRIBUTE, Enabled: true },
      // Encrypted with the AWS managed key (moto cannot hold this: the rehearsal leaves it to this test).
      SSESpecification: { SSEEnabled: true },
    });
    expect(t.Resources[id]!).toMatchObject({ DeletionPolicy: 'Delete' });
  });

  it('may be claimed in by the run role only, with one conditional PutItem on this table and nothing else', () => {
    const [tableId] = tables[0]!;
    const statements = resourcesOf(t, 'AWS::IAM::Policy').flatMap(
      ([, p]) => (p.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement,
    );
    const dynamo = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(LEDGER_ACTIONS).toEqual(['dynamodb:PutItem']);
    expect(dynamo).toEqual([{ Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } }]);
  });

  it('is named to every run function of the region', () => {
    const [tableId] = tables[0]!;
    const fns = resourcesOf(t, 'AWS::Lambda::Function');
    expect(fns.length).toBeGreaterThan(0);
    for (const [, fn] of fns)
      expect((fn.Environment as { Variables: Record<string, unknown> }).Variables[EnvVar.runLedger]).toEqual({ Ref: tableId });
  });

  it('saves the run-log queries the dashboard links to, over the run log group', () => {
    const queries = resourcesOf(t, 'AWS::Logs::QueryDefinition').map(([, q]) => [q.Name, q.LogGroupNames]);
    expect(queries.map(([name]) => name)).toEqual([
      'mcp-canary/McpCanary/failures-by-class',
      'mcp-canary/McpCanary/runs-by-outcome',
      'mcp-canary/McpCanary/latency-by-target',
      'mcp-canary/McpCanary/inconclusive-runs',
      'mcp-canary/McpCanary/skipped-runs',
    ]);
    for (const [, groups] of queries) expect(groups).toHaveLength(1);
    const failures = resourcesOf(t, 'AWS::Logs::QueryDefinition')[0]![1].QueryString as string;
    expect(failures).toContain('filter message = "mcp-canary run" and verdict.outcome = "failed"');
    expect(failures).toContain('| stats count(*) as runs, latest(verdict.detail) as last_detail by verdict.failure, target');
  });
});
