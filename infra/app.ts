/**
 * The default CDK app (`cdk.json` runs it): the fleet in `mcp-canary.config.ts`, or in the file
 * `MCP_CANARY_CONFIG` names (a `.ts`/`.js` module whose default export is the fleet, or `.json`),
 * checked by cdk-nag's AwsSolutions pack on every synth. A config error prints its one-line message
 * (target and field named) and exits 2, instead of a stack trace.
 */
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { FleetInput } from '../functions/config/fleet.ts';
import { McpCanaryFleet } from './fleet.ts';

export const CONFIG_ENV = 'MCP_CANARY_CONFIG';

async function readConfig(): Promise<FleetInput> {
  const file = process.env[CONFIG_ENV];
  if (!file) return (await import('../mcp-canary.config.ts')).default;
  if (extname(file) === '.json') return JSON.parse(readFileSync(file, 'utf8')) as FleetInput;
  return ((await import(pathToFileURL(resolve(file)).href)) as { default: FleetInput }).default;
}

const app = new App();
try {
  new McpCanaryFleet(app, 'McpCanary', await readConfig());
} catch (e) {
  if (e instanceof Error && e.name === 'CanaryError') {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
