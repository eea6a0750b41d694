/**
 * The bill as the docs quote it is the bill `npm run cost` computes: docs/cost.md's generated-fleet and
 * credential tables and the README's headline figures, recomputed here from the same synthesized fleets and
 * the same read rate (infra/quotas/credential-rate.ts), at 1 s billed per run and the run record size
 * docs/cost.md states (the bench's measured figure). Slow by design (it synthesizes 1,000 × 3): integration lane.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedCost, type CredentialKind } from '../../bench/cost-fleets.ts';
import type { RunUsage } from '../../bench/cost-model.ts';
import { fmt } from '../../bench/table.ts';

const root = join(import.meta.dirname, '../../..');
const costMd = readFileSync(join(root, 'docs/cost.md'), 'utf8');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** docs/cost.md says which measured run record its figures take: "(run record 837 B per target, …)". */
function recordBytes(): number {
  const m = /run record (\d[\d,]*) B per target/.exec(costMd);
  if (!m) throw new Error('docs/cost.md no longer says the run record size its figures take ("run record N B per target")');
  return Number(m[1]!.replace(/,/g, ''));
}

/** The cells of the markdown table row that starts with `label`. */
function row(label: string, text = costMd): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`| ${label} |`));
  if (!line) throw new Error(`no row "${label}" in the table`);
  return line
    .split('|')
    .slice(2, -1)
    .map((c) => c.trim().replace(/\*\*/g, ''));
}

const usage: RunUsage = { billedMs: 1000, recordBytesPerTarget: recordBytes() };
const ssm = new Map<number, ReturnType<typeof generatedCost>>();
const cost = (n: number, kind: CredentialKind = 'ssm-home') => {
  if (kind !== 'ssm-home') return generatedCost(n, kind, usage);
  if (!ssm.has(n)) ssm.set(n, generatedCost(n, kind, usage));
  return ssm.get(n)!;
};

describe('docs/cost.md quotes npm run cost', () => {
  it.each([
    [10, '10 × 3'],
    [100, '100 × 3'],
    [1_000, '1,000 × 3'],
  ])('the generated fleet of %i × 3: own and all in, per target·region', (n, label) => {
    const { own, fleet } = cost(n);
    const [ownCell, allInCell] = row(label);
    expect([ownCell, allInCell]).toEqual([fmt.usd(own), fmt.usd(fleet.perTargetRegion)]);
  });

  it.each([
    ['ssm-home', 'SSM SecureString in the home region'],
    ['secret-home', 'One Secrets Manager secret in the home region'],
    ['secret-per-region', 'A Secrets Manager secret by name'],
  ] as const)('the credential stored as %s, all in at 10 × 3 and 100 × 3', (kind, label) => {
    const line = costMd.split('\n').find((l) => l.startsWith(`| ${label}`));
    expect(line, label).toBeDefined();
    const cells = line!
      .split('|')
      .slice(2, -1)
      .map((c) => c.trim().replace(/\*\*/g, ''));
    expect(cells).toEqual([fmt.usd(cost(10, kind).fleet.perTargetRegion), fmt.usd(cost(100, kind).fleet.perTargetRegion)]);
  });
});

describe('the README’s cost figures come from npm run cost', () => {
  it('quotes 100 × 3 all in as its headline, 10 × 3 and 1,000 × 3 beside it, and Synthetics on the same schedule', () => {
    const usd2 = (v: number) => `$${v.toFixed(2)}`;
    const m =
      /About \*\*(\$[\d.]+) per target·region·month all in\*\* at 100 targets × 3 regions.*?\((\$[\d.]+) at\s+10 × 3, (\$[\d.]+) at 1,000 × 3\)/s.exec(
        readme,
      );
    expect(m, 'the README’s "What it costs" sentence').not.toBeNull();
    expect(m!.slice(1, 4)).toEqual([
      usd2(cost(100).fleet.perTargetRegion),
      usd2(cost(10).fleet.perTargetRegion),
      usd2(cost(1_000).fleet.perTargetRegion),
    ]);
    const synthetics = cost(10).fleet.synthetics / cost(10).fleet.targetRegions;
    expect(readme).toContain(`against $${synthetics.toFixed(2)} for one`);
  });
});
