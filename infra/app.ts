/**
 * The default CDK app (`cdk.json` runs it): the fleet in `mcp-canary.config.ts`, or in the file
 * `MCP_CANARY_CONFIG` names (a `.ts`/`.js` module whose default export is the fleet, or `.json`),
 * checked by cdk-nag's AwsSolutions pack and AWS's quotas (infra/quotas) on every synth. A config error,
 * wherever it is found (reading the file, the schema, the deploy rules, the stacks, a template over an AWS
 * quota), prints its one-line message (target and field named) and exits 2, instead of a stack trace;
 * `npm run synth` passes the 2 on (infra/synth.ts).
 */
import { writeFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { FleetInput } from '../functions/base/config/schema/fleet.ts';
import { readConfigFile } from '../functions/base/config/load/load.ts';
import { McpCanaryFleet } from './fleet.ts';
import { CONFIG_ERROR_EXIT, CONFIG_ERROR_FILE_ENV } from './synth.ts';

export const CONFIG_ENV = 'MCP_CANARY_CONFIG';

/** The same reader as `mcp-canary check --config`, with its messages (a missing file, bad JSON, no default export). */
async function readConfig(): Promise<FleetInput> {
  const file = process.env[CONFIG_ENV];
  if (!file) return (await import('../mcp-canary.config.ts')).default;
  return (await readConfigFile(file, `${CONFIG_ENV}=${file}`)) as FleetInput;
}

/** Ends the process with exit 2 and the message alone, as every config error does. */
function configErrorExit(message: string): never {
  console.error(message);
  const mark = process.env[CONFIG_ERROR_FILE_ENV];
  if (mark) writeFileSync(mark, '');
  process.exit(CONFIG_ERROR_EXIT);
}

/** Runs a step of the synth; a config error ends the process with exit 2 and the message alone. */
async function step<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof Error && e.name === 'CanaryError')) throw e;
    configErrorExit(e.message);
  }
}

// "process": cdk prints its validation report to stderr and sets the exit code instead of throwing, even
// under NODE_ENV=test, so the exit code below is ours to choose.
const app = new App({ context: { '@aws-cdk/core:appMode': 'process' } });
const fleet = await step(async () => new McpCanaryFleet(app, 'McpCanary', await readConfig()));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
await step(() => app.synth());
const findings = fleet.quotas.findings;
if (findings.length > 0) {
  // The config asks for more than AWS allows. Run by itself, cdk has printed its report; under the cdk CLI
  // (which sets this context false) the CLI prints it only for an app that succeeds: say it here.
  if (app.node.tryGetContext('@aws-cdk/core:failSynthOnValidationErrors') === false)
    findings.slice(0, -1).forEach((f) => console.error(f.message));
  configErrorExit(findings[findings.length - 1]!.message);
}
