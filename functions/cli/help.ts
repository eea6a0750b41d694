/**
 * The `--help` text, in a module that imports only the flag table (which imports nothing): the
 * installed command answers `--help` from this alone (functions/cli/start.ts), without loading the
 * engine. The check flags' lines are derived from that table.
 */
import { optionsHelp } from './flags.ts';

export const HELP = `Usage: mcp-canary check <url> [options]
       mcp-canary check --config FILE [--target NAME] [--json]
       mcp-canary snapshot <url> [--header "Name: value"] [--revision R]
       mcp-canary init <url> [--header "Name: value"] [--yes] [--out FILE] [--json]   (see init --help)
       mcp-canary login <url> (--store-file PATH | --store-secret mcp-canary/NAME)   (see login --help)
       mcp-canary report --config FILE [--days N] [--json] [--html FILE]   (see report --help)

Judge a remote MCP endpoint the way an agent uses it: health → discover or initialize →
tools/list → tools/call, and print the verdict.

${optionsHelp()}

Output: one block per target; with --json, a JSON array of Verdicts (one per target, always an
array, even for one target) and nothing else on stdout.

Proxies: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or lowercase) are honoured, as curl does.
Client certificates and private CAs: a target's tls setting in --config.

Exit codes: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive.

Examples:
  mcp-canary check https://mcp.example.com/mcp --tool get_rate --args '{"pair":"EURUSD"}' --expect-json rate=1.08
  mcp-canary check https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN" --json
  mcp-canary check --config mcp-canary.config.ts --target rates-prod`;

/**
 * Exactly the invocations `mcp-canary` answers with the help text and exit 0 (test/unit/cli/start.test.ts
 * holds it to `main`), so the entry can answer them before it loads the engine. Others go to `main`.
 */
const HELP_INVOCATIONS = new Set([[], ['--help'], ['-h'], ['check', '--help'], ['check', '-h']].map((a) => JSON.stringify(a)));

export function asksForHelp(argv: readonly string[]): boolean {
  return HELP_INVOCATIONS.has(JSON.stringify(argv));
}
