/** A fleet target's `catalog` and `posture` reach the scheduled run: synth packs them into the payload, the run reads them back. */
import { expect, it } from 'vitest';
import { fingerprintTool } from '../../../../functions/engine/catalog/fingerprint.ts';
import type { FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import { readEvent } from '../../../../functions/lambdas/run/event.ts';
import { planFleet } from '../../../../infra/plan/plan.ts';
import { smallFleet } from '../../../helpers/infra/synth.ts';

it('survives the schedule payload round trip', () => {
  // Prepare
  const catalog = {
    get_rate: fingerprintTool({
      name: 'get_rate',
      description: 'rate',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    }),
  };
  const base = smallFleet();
  const fleet: FleetInput = {
    ...base,
    targets: base.targets.map((t, i) => (i === 0 ? { ...t, catalog, posture: ['origin', 'hsts'] } : t)),
  };
  // Act
  const plan = planFleet(fleet);
  const input = plan.regions
    .flatMap((r) => r.scheduleStacks.flat())
    .map((s) => JSON.parse(s.input))
    .find((p) => p.targets.some((t: { name: string }) => t.name === 'rates-prod'));
  const planned = readEvent(input).find((p) => p.valid && p.target.name === 'rates-prod');
  // Assess
  expect(planned).toMatchObject({ valid: true, target: { catalog, posture: ['origin', 'hsts'] } });
});
