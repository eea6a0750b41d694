/**
 * Real product MCP servers from npm, each in a loopback-only network namespace of its own with its
 * upstream API stubbed on loopback: a healthy upstream, a revoked key and a dead upstream, judged by
 * `mcp-canary check` on every revision setting. Which server reports failures how: README.md here.
 */
import { runsOnce } from '../../../../helpers/products/run.ts';
import { PRODUCTS } from '../../../../helpers/products/servers/index.ts';
import { productSuite } from '../../../../helpers/products/suite.ts';

const runOf = runsOnce(Object.keys(PRODUCTS));
for (const product of Object.values(PRODUCTS)) productSuite(product, runOf);
