/**
 * The credential read rate (infra/quotas/credential-rate.ts), the one synth's quota checks and `npm run cost`
 * share: the calls a run makes as batched.ts batches them, the reads a fleet makes steady and in the first
 * firing after a deploy, held to what the bench measured over Lambda's container churn
 * (test/bench/credential-reads.ts), and the two fleets the README promises against the default quotas.
 */
import { BatchGetSecretValueCommand, GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import {
  BatchedReads,
  SECRETS_PER_CALL as RUN_SECRETS_PER_CALL,
  SSM_NAMES_PER_CALL as RUN_SSM_NAMES_PER_CALL,
} from '../../../functions/io/secrets/batched.ts';
import { planFleet } from '../../../infra/plan/plan.ts';
import {
  namesPerTargetRun,
  readRates,
  scheduleReads,
  SECRETS_PER_CALL,
  SSM_NAMES_PER_CALL,
  storeCalls,
  type ReadRate,
} from '../../../infra/quotas/credential-rate.ts';
import { fleetLoads } from '../../../infra/quotas/runtime-load.ts';
import { afterDeployNotes, checkRuntime } from '../../../infra/quotas/runtime.ts';
import { MEASURED_CREDENTIAL_READS, simulatedFleet } from '../../bench/credential-reads.ts';
import { generatedFleet, SCALE_REGIONS } from '../../bench/fleet-scale.ts';
import { withSsmHome } from '../../bench/runtime-quotas.ts';

const ACCOUNT = '111122223333';
const notify = {
  pages: [{ url: 'https://events.pagerduty.example.com/integration/abc/enqueue' }],
  canaryOwner: [{ email: 'o@example.com' }],
};
const loadsOf = (config: FleetInput) => fleetLoads(planFleet(config), { pageDeliveriesPerSecond: 10, alarmsInFlight: 3 });
const ssmSteady = (rates: readonly ReadRate[], region: string) =>
  rates
    .filter((r) => r.region === region && (r.api === 'GetParameters' || r.api === 'GetParameter'))
    .reduce((n, r) => n + r.steadyPerSecond, 0);
const ssmFirstFiring = (rates: readonly ReadRate[], region: string) =>
  rates
    .filter((r) => r.region === region && (r.api === 'GetParameters' || r.api === 'GetParameter'))
    .reduce((n, r) => n + r.firstFiring, 0);

describe('the calls one read of a store makes, as the run batches them', () => {
  it('keeps the run’s batch sizes (infra may not import them)', () => {
    expect(SSM_NAMES_PER_CALL).toBe(RUN_SSM_NAMES_PER_CALL);
    expect(SECRETS_PER_CALL).toBe(RUN_SECRETS_PER_CALL);
  });

  it.each([
    [1, { GetParameter: 1 }],
    [2, { GetParameters: 1 }],
    [10, { GetParameters: 1 }],
    [11, { GetParameters: 1, GetParameter: 1 }],
    [12, { GetParameters: 2 }],
    [21, { GetParameters: 2, GetParameter: 1 }],
    [25, { GetParameters: 3 }],
  ])('reads %i parameters as %o', (names, calls) => {
    expect(storeCalls('ssm', names)).toEqual(calls);
  });

  it.each([
    [1, { GetSecretValue: 1 }],
    [2, { BatchGetSecretValue: 1 }],
    [20, { BatchGetSecretValue: 1 }],
    [21, { BatchGetSecretValue: 1, GetSecretValue: 1 }],
    [25, { BatchGetSecretValue: 2 }],
  ])('reads %i secrets as %o', (names, calls) => {
    expect(storeCalls('secretsmanager', names)).toEqual(calls);
  });
});

/** Reads `n` references of one store in one turn through the run's own BatchedReads, counting its calls by API. */
async function runCalls(service: 'ssm' | 'secretsmanager', n: number): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  const count = (command: object) => {
    const api = command.constructor.name.replace(/Command$/, '');
    calls[api] = (calls[api] ?? 0) + 1;
  };
  const ssm = {
    send: async (c: GetParametersCommand | GetParameterCommand) => {
      count(c);
      return c instanceof GetParametersCommand
        ? { Parameters: (c.input.Names ?? []).map((name) => ({ Name: name, Value: 'v' })), InvalidParameters: [] }
        : { Parameter: { Name: c.input.Name, Value: 'v' } };
    },
  } as unknown as SSMClient;
  const secretsManager = {
    send: async (c: BatchGetSecretValueCommand | GetSecretValueCommand) => {
      count(c);
      return c instanceof BatchGetSecretValueCommand
        ? { SecretValues: (c.input.SecretIdList ?? []).map((id) => ({ Name: id, SecretString: 'v' })), Errors: [] }
        : { SecretString: 'v' };
    },
  } as unknown as SecretsManagerClient;
  const reads = new BatchedReads({ ssm: () => ssm, secretsManager: () => secretsManager }, 5_000);
  const kind = service === 'ssm' ? 'SSM parameter' : 'Secrets Manager secret';
  const got = await Promise.all(Array.from({ length: n }, (_, i) => reads.read({ kind, id: `ref-${i}`, region: 'us-east-1' })));
  expect(got.every((r) => 'value' in r)).toBe(true);
  return calls;
}

describe('the model’s calls are the calls the run’s own batching makes', () => {
  it.each([
    ['ssm', 1],
    ['ssm', 2],
    ['ssm', 11],
    ['ssm', 21],
    ['ssm', 25],
    ['secretsmanager', 1],
    ['secretsmanager', 20],
    ['secretsmanager', 21],
    ['secretsmanager', 41],
  ] as const)('%s, %i references read in one turn', async (service, n) => {
    expect(await runCalls(service, n)).toEqual(storeCalls(service, n));
  });
});

describe('a fleet’s reads', () => {
  it('reads a reference two targets share once, an ARN in its Region and a name in each probe Region', () => {
    // Prepare: a and b share a home-region parameter by ARN; b also reads a secret by name.
    const shared = { ssmParameter: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter/mcp-canary/shared` };
    const config: FleetInput = {
      homeRegion: 'us-east-1',
      probeRegions: ['us-east-1', 'eu-west-1'],
      notify,
      targets: [
        { name: 'a', url: 'https://a.example.com/mcp', headerSecrets: { Authorization: shared } },
        {
          name: 'b',
          url: 'https://b.example.com/mcp',
          headerSecrets: { Authorization: shared, 'X-Key': { secretsManager: 'mcp-canary/b' } },
        },
      ],
    };
    // Act
    const reads = scheduleReads(planFleet(config)).map((r) => [r.probe, r.region, r.service, r.names, r.calls]);
    // Assess
    expect(reads).toEqual(
      expect.arrayContaining([
        ['us-east-1', 'us-east-1', 'ssm', 1, { GetParameter: 1 }],
        ['eu-west-1', 'us-east-1', 'ssm', 1, { GetParameter: 1 }],
        ['us-east-1', 'us-east-1', 'secretsmanager', 1, { GetSecretValue: 1 }],
        ['eu-west-1', 'eu-west-1', 'secretsmanager', 1, { GetSecretValue: 1 }],
      ]),
    );
    expect(reads).toHaveLength(4);
  });

  it('counts a KMS Decrypt behind every reference read, and a GetSecretValue for a store read for one secret', () => {
    // One target, one secret, every minute, one schedule: read on one run in five (the 5-minute cache).
    const config: FleetInput = {
      homeRegion: 'eu-central-1',
      notify,
      targets: [{ name: 'a', url: 'https://a.example.com/mcp', headerSecrets: { Authorization: { secretsManager: 'mcp-canary/a' } } }],
    };
    const loads = loadsOf(config);
    const peak = (id: string) => loads.find((l) => l.quota.id === id)!;
    expect(peak('secrets-manager-get-secret-value').peak).toBeCloseTo(1 / 5 / 60, 10);
    expect(peak('kms-cryptographic-operations').peak).toBeCloseTo(1 / 5 / 60, 10);
    expect(peak('secrets-manager-get-secret-value').afterDeploy!.calls).toBe(1);
  });
});

describe('held to the reads the bench measured over Lambda’s container churn (MEASURED_CREDENTIAL_READS)', () => {
  // The bench's fleet: 5,000 targets × 5 Regions, a tenth every 5 minutes, each with its own SSM parameter in the
  // home Region by ARN; the runs read through the real reader on simulated containers.
  const plan = planFleet(simulatedFleet());
  const rates = readRates(plan);
  const measured = MEASURED_CREDENTIAL_READS;

  it('bounds the reads per target·run from above, within a tenth of the highest measured', () => {
    const model = namesPerTargetRun(plan);
    expect(model).toBeGreaterThanOrEqual(measured.namesPerTargetRun.max);
    expect(model).toBeLessThanOrEqual(measured.namesPerTargetRun.max * 1.1);
  });

  it('bounds the home Region’s steady calls a second from above, within a tenth of the highest measured', () => {
    const model = ssmSteady(rates, 'us-east-1');
    expect(model).toBeGreaterThanOrEqual(measured.homeCallsPerSecond.max);
    expect(model).toBeLessThanOrEqual(measured.homeCallsPerSecond.max * 1.1);
  });

  it('makes the first minute after a deploy’s calls as the bench counted them', () => {
    expect(ssmFirstFiring(rates, 'us-east-1') / 60).toBeCloseTo(measured.firstMinuteCallsPerSecond, 1);
  });
});

describe('the fleets the README promises, against the default quotas', () => {
  const READS = /^(ssm-get-parameter|secrets-manager-|kms-)/;

  it('1,000 × 3 with SSM parameters in the home Region stays within them steady, and says what its first firing does', () => {
    // Act
    const loads = loadsOf(withSsmHome(generatedFleet(1_000)));
    // Assess
    expect(checkRuntime(loads).filter((f) => READS.test(f.quota.id))).toEqual([]);
    const ssm = loads.find((l) => l.quota.id === 'ssm-get-parameter')!;
    expect(ssm.peak).toBeLessThan(40);
    expect(afterDeployNotes(loads).map((n) => n.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /GetParameter standard throughput in us-east-1 runs at [\d.]+ calls a second, steady, within its quota of 40/,
        ),
      ]),
    );
  });

  it('5,000 × 5 with SSM parameters in the home Region warns, naming the quota, its page and the setting that raises it', () => {
    // Act
    const findings = checkRuntime(loadsOf(withSsmHome(generatedFleet(5_000, SCALE_REGIONS)))).filter((f) => READS.test(f.quota.id));
    // Assess: Parameter Store only; its KMS Decrypts stay within 10,000 a second steady.
    expect(findings.map((f) => [f.quota.id, f.region])).toEqual([['ssm-get-parameter', 'us-east-1']]);
    expect(findings[0]!.message).toMatch(
      /^mcp-canary: Systems Manager Parameter Store GetParameter standard throughput in us-east-1 runs at [\d.]+ calls a second: .*steady.*the quota is 40 \(https:\/\/docs\.aws\.amazon\.com\/general\/latest\/gr\/ssm\.html\)\..*first firing.*turn on higher throughput/,
    );
  });

  it('5,000 × 5 with a Secrets Manager secret by name in each probe Region stays within them steady', () => {
    const loads = loadsOf(generatedFleet(5_000, SCALE_REGIONS));
    expect(checkRuntime(loads).filter((f) => READS.test(f.quota.id))).toEqual([]);
    const batch = loads.filter((l) => l.quota.id === 'secrets-manager-batch-get-secret-value');
    expect(batch.map((l) => l.region).sort()).toEqual([...SCALE_REGIONS].sort());
    for (const l of batch) expect(l.peak).toBeLessThan(100);
  });
});
