/**
 * The default CDK app (`cdk.json` runs it): the fleet in `mcp-canary.config.ts`, or in the file
 * `MCP_CANARY_CONFIG` names (a `.ts`/`.js` module whose default export is the fleet, or `.json`),
 * checked by cdk-nag's AwsSolutions pack and AWS's quotas (infra/quotas) on every synth. A config error
 * prints its one-line message (target and field named) and exits 2, instead of a stack trace; so does a
 * template over a quota.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { FleetInput } from '../functions/config/fleet.ts';
import { readConfigFile } from '../functions/config/load.ts';
import { McpCanaryFleet } from './fleet.ts';

export const CONFIG_ENV = 'MCP_CANARY_CONFIG';

/** The same reader as `mcp-canary check --config`, with its messages (a missing file, bad JSON, no default export). */
async function readConfig(): Promise<FleetInput> {
  const file = process.env[CONFIG_ENV];
  if (!file) return (await import('../mcp-canary.config.ts')).default;
  return (await readConfigFile(file, `${CONFIG_ENV}=${file}`)) as FleetInput;
}

// "process": cdk prints its validation report to stderr and sets the exit code instead of throwing, even
// under NODE_ENV=test, so the exit code below is ours to choose.
const app = new App({ context: { '@aws-cdk/core:appMode': 'process' } });
let fleet: McpCanaryFleet;
try {
  fleet = new McpCanaryFleet(app, 'McpCanary', await readConfig());
} catch (e) {
  if (e instanceof Error && e.name === 'CanaryError') {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
if (fleet.quotas.findings.length > 0) {
  // The config asks for more than AWS allows. Run by itself, cdk has printed its report; under the cdk CLI
  // (which sets this context false) the CLI prints it only for an app that succeeds: say it here.
  if (app.node.tryGetContext('@aws-cdk/core:failSynthOnValidationErrors') === false)
    for (const f of fleet.quotas.findings) console.error(f.message);
  process.exit(2);
}
