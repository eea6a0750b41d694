/**
 * The adapter the official conformance suite runs as "the client": it appends the scenario's server
 * URL to the command and names the scenario in MCP_CONFORMANCE_SCENARIO. Each scenario becomes the
 * `mcp-canary check` a user would type for such a server (the suite's tools carry no annotations, so
 * the tool scenarios pass --allow-unsafe-tool), and the CLI's exit code is the answer: 0 healthy.
 */
import { main } from '../../functions/cli/main.ts';
import { SCENARIO_FLAGS } from './scenarios.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const code = await main(['check', url, ...(SCENARIO_FLAGS[scenario] ?? [])], {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
process.exit(code);
