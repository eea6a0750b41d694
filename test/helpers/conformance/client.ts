/**
 * The adapter the official conformance suite runs as "the client": it appends the scenario's server
 * URL to the command, names the scenario in MCP_CONFORMANCE_SCENARIO and may pass the tool calls it
 * wants in MCP_CONFORMANCE_CONTEXT. Each scenario becomes the `mcp-canary check` a user would type for
 * such a server (the suite's tools carry no annotations, so tool calls pass --allow-unsafe-tool): the
 * flags in scenarios.ts, or else one check per tool call the context asks for (a canary calls one tool
 * per run, so two tools are two runs). The CLI's exit code is the answer: 0 healthy.
 */
import { main } from '../../../functions/cli/main.ts';
import { SCENARIO_FLAGS } from './scenarios.ts';

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: Array<{ name: string; arguments?: unknown }> };
const runs: string[][] = SCENARIO_FLAGS[scenario]
  ? [[...SCENARIO_FLAGS[scenario]]]
  : (context.toolCalls ?? []).map((c) => ['--tool', c.name, '--args', JSON.stringify(c.arguments ?? {}), '--allow-unsafe-tool']);
const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
let worst = 0;
for (const flags of runs.length > 0 ? runs : [[]]) worst = Math.max(worst, await main(['check', url, ...flags], io));
process.exit(worst);
