/**
 * The status stack as it deploys: synthesized with and without `public` (and on a custom domain), checked
 * by cdk-nag's AwsSolutions pack, AWS's quotas (infra/quotas: the schedule input, the role's policy size,
 * the template) and cfn-lint.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { newTestApp, smallFleet } from '../../helpers/infra/synth.ts';
import { itWithTools } from '../../helpers/tools.ts';

const run = promisify(execFile);
const CERT = 'arn:aws:acm:us-east-1:111122223333:certificate/12345678-1234-1234-1234-123456789012';

function fleetWith(statusPage: FleetInput['statusPage'], targets = 3): FleetInput {
  return {
    ...smallFleet({
      targets: Array.from({ length: targets }, (_, i) => ({
        name: `t${i}`,
        url: `https://t${i}.example.com/mcp`,
        status: { name: `Service ${i}` },
      })),
    }),
    statusPage,
  };
}

describe('the status stack, synthesized', () => {
  for (const [name, page, targets] of [
    ['private', { title: 'Acme status' }, 3],
    ['public', { public: true }, 3],
    ['public on a custom domain', { public: true, domainName: 'status.example.com', certificateArn: CERT }, 3],
    // The schedule input grows with the fleet: 500 shown targets stay inside every quota.
    ['private, 500 targets', {}, 500],
  ] as const) {
    itWithTools(['cfn-lint'], `passes cdk-nag, the quotas and cfn-lint (${name})`, async () => {
      const { app, cleanup } = newTestApp();
      const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-status-lint-'));
      try {
        const fleet = new McpCanaryFleet(app, 'McpCanary', fleetWith(page, targets));
        Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
        const assembly = app.synth();
        expect(fleet.quotas.findings.map((f) => f.message)).toEqual([]);
        const stack = fleet.status!;
        expect(Stack.isStack(stack)).toBe(true);
        const file = join(dir, 'status.template.json');
        writeFileSync(file, JSON.stringify(assembly.getStackByName(stack.stackName).template));
        const lint = await run('cfn-lint', ['--', file]).then(
          () => ({ code: 0, stdout: '' }),
          (e: { code: number; stdout: string }) => e,
        );
        expect(lint.stdout).toBe('');
        expect(lint.code).toBe(0);
      } finally {
        cleanup();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
