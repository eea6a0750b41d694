/** The failure-class lookup reads the run log group the stacks create, and picks the class the paging runs had. */
import { describe, expect, it } from 'vitest';
import { runLogGroupName } from '../../../functions/history/run-log.ts';
import { FleetNames } from '../../../infra/plan/names.ts';

describe('runLogGroupName', () => {
  it('is the name the stacks give the run functions’ log group', () => {
    for (const fleet of ['McpCanary', 'Prod-Canary', 'a1']) expect(runLogGroupName(fleet)).toBe(new FleetNames(fleet).runLogGroup);
  });
});
