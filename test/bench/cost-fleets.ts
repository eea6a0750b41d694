/**
 * The generated fleets `npm run cost` prices, each target's credential stored one of three ways, and the usage
 * as their users pay it: shared by test/bench/cost.ts and the test that holds docs/cost.md and the README's
 * figures to it (test/integration/bench/cost-docs.test.ts).
 */
import type { FleetInput } from '../../functions/base/config/schema/fleet.ts';
import { costPerTargetRegion, fleetCost, type FleetCost, type RunUsage } from './cost-model.ts';
import { generatedFleet, synthesize, type Synthesized } from './fleet-scale.ts';
import { readInventory } from './inventory.ts';
import { PRICES } from './prices.ts';

export type CredentialKind = 'ssm-home' | 'secret-home' | 'secret-per-region';

/**
 * The usage as the fleet's users pay it: SSM reads billed at the higher-throughput price in each Region where
 * synth warns the fleet passes the standard 40 a second (turning it on is the warning's fix).
 */
export function asUsersPay(synth: Synthesized, usage: RunUsage): RunUsage {
  const regions = synth.runtime.findings.filter((f) => f.quota.id === 'ssm-get-parameter').map((f) => f.region);
  return { ...usage, ssmHigherThroughputRegions: new Set(regions) };
}

/** The generated fleet with each target's credential stored one of three ways (same ids, so the same payload size). */
export function withCredential(fleet: FleetInput, kind: CredentialKind): FleetInput {
  const home = fleet.homeRegion;
  return {
    ...fleet,
    targets: fleet.targets.map((t, i) => {
      const id = `mcp-canary/svc-${String(i).padStart(4, '0')}`;
      const ref =
        kind === 'ssm-home'
          ? { ssmParameter: `arn:aws:ssm:${home}:111122223333:parameter/${id}` }
          : kind === 'secret-home'
            ? { secretsManager: `arn:aws:secretsmanager:${home}:111122223333:secret:${id}-AbCdEf` }
            : { secretsManager: id };
      return { ...t, headerSecrets: { Authorization: { ...ref, prefix: 'Bearer ' } } };
    }),
  };
}

/** `targets` × 3 at rate(1 minute), its credential stored as `kind`, priced at `usage`: the fleet, and per target·region its own share. */
export function generatedCost(targets: number, kind: CredentialKind, usage: RunUsage): { fleet: FleetCost; own: number } {
  const synth = synthesize(withCredential(generatedFleet(targets), kind));
  const inv = readInventory(synth.stacks, 'McpCanary');
  const paid = asUsersPay(synth, usage);
  const fleet = fleetCost(inv, costPerTargetRegion(inv, paid, PRICES), PRICES, paid);
  return { fleet, own: fleet.direct / fleet.targetRegions };
}
