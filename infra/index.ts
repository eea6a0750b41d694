/**
 * `import { McpCanaryFleet } from 'mcp-canary/cdk'`: the whole canary as a construct in your CDK app.
 * `aws-cdk-lib` and `constructs` are peer dependencies: your app's copies are the ones used.
 */
export { McpCanaryFleet, type McpCanaryFleetOptions } from './fleet.ts';
export { defineFleet, type FleetInput } from '../functions/base/config/schema/fleet.ts';
