/**
 * Real product MCP servers from npm, each in a loopback-only network namespace of its own with its
 * upstream API stubbed on loopback: a healthy upstream, a revoked key and a dead upstream, judged by
 * `mcp-canary check` on every revision setting. Which server reports failures how: README.md here.
 */
import { runsOnce } from './support/run.ts';
import { PRODUCTS } from './support/servers/index.ts';
import { productSuite } from './support/suite.ts';

const runOf = runsOnce(Object.keys(PRODUCTS));
for (const product of Object.values(PRODUCTS)) productSuite(product, runOf);
