/**
 * The `--help` text, in a module that imports only the flag table (which imports nothing): the
 * installed command answers `--help` from this alone (functions/cli/start.ts), without loading the
 * engine. The check flags' lines are derived from that table.
 */
import { optionsHelp } from './flags.ts';

export const HELP = `Usage: mcp-canary check <url> [options]
       mcp-canary check --config FILE [--target NAME] [--json]
       mcp-canary snapshot <url> [--header "Name: value"] [--revision R]

Judge a remote MCP endpoint the way an agent uses it: health → discover or initialize →
tools/list → tools/call, and print the verdict.

${optionsHelp()}
Beyond up/down:
  --catalog FILE                 compare tools/list with a recorded catalog (mcp-canary snapshot); drift is a warning
  --posture                      run the security posture checks and print them (warnings, never a failure)

OAuth (client credentials; the token step is the first probe, "auth"):
  --oauth-client-id ID           the canary's client_id
  --oauth-client-secret-env NAME client_secret_basic: the secret is read from env var NAME
  --oauth-private-key-file PATH  private_key_jwt: a PKCS#8 PEM key (instead of a secret)
  --oauth-alg ALG                its algorithm (default: RS256)
  --oauth-scope "a b"            scopes to request (default: none)
  --oauth-resource URL           RFC 8707 resource (default: the server's metadata, else the URL)
  --oauth-token-url URL          the token endpoint; skips discovery (default: discovered)
  --oauth-issuer URL             the expected issuer (default: whichever the server names)
  --oauth-allow-private-network  follow OAuth URLs to private addresses (default: refused)
Warnings (never change the outcome or exit code):
  --cert-warning-days N          TLS certificate expires within N days (default: 14; 0: off)
  --credential-warning-days N    JWT bearer or secret expiresAt within N days (default: 7; 0: off)

Output: one block per target; with --json, a JSON array of Verdicts (one per target, always an
array, even for one target) and nothing else on stdout.
Exit codes: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive.

Examples:
  mcp-canary check https://mcp.example.com/mcp --tool get_rate --args '{"pair":"EURUSD"}' --expect-json rate=1.08
  mcp-canary check https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN" --json
  mcp-canary check --config mcp-canary.config.ts --target rates-prod`;

/**
 * Exactly the invocations `mcp-canary` answers with the help text and exit 0 (test/cli/start.test.ts
 * holds it to `main`), so the entry can answer them before it loads the engine. Others go to `main`.
 */
const HELP_INVOCATIONS = new Set([[], ['--help'], ['-h'], ['check', '--help'], ['check', '-h']].map((a) => JSON.stringify(a)));

export function asksForHelp(argv: readonly string[]): boolean {
  return HELP_INVOCATIONS.has(JSON.stringify(argv));
}
