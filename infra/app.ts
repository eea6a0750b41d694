/**
 * The default CDK app (`cdk.json` runs it): the fleet in `mcp-canary.config.ts`, checked by cdk-nag's
 * AwsSolutions pack on every synth. A config error prints the one-line message (target and field
 * named) and exits 2, instead of a stack trace.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import config from '../mcp-canary.config.ts';
import { McpCanaryFleet } from './fleet.ts';

const app = new App();
try {
  new McpCanaryFleet(app, 'McpCanary', config);
} catch (e) {
  if (e instanceof Error && e.name === 'CanaryError') {
    console.error(e.message);
    process.exit(2);
  }
  throw e;
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
