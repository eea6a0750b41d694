/**
 * The `--help` text, in a module that imports nothing: the installed command answers `--help` from this
 * alone (functions/cli/start.ts), without loading the engine.
 */
export const HELP = `Usage: mcp-canary check <url> [options]
       mcp-canary check --config FILE [--target NAME] [--json]
       mcp-canary snapshot <url> [--header "Name: value"] [--revision R]

Judge a remote MCP endpoint the way an agent uses it: health → discover or initialize →
tools/list → tools/call, and print the verdict.

Options:
  --tool NAME             the canary tool to call (read-only; default: none, stop after tools/list)
  --args JSON             its arguments, a JSON object (default: {})
  --expect-text S         the tool's text must contain S
  --expect-json PATH=JSON structuredContent at PATH must equal JSON (repeatable), e.g. rate=1.08
  --header "Name: value"  sent on every request (repeatable); values are never printed
  --health-url URL        GET it first, 2xx expected (default: no health probe)
  --revision R            auto | 2026-07-28 | 2025-11-25 (default: auto)
  --timeout-ms N          per-request timeout (default: 10000)
  --budget-ms N           whole-run budget (default: 30000)
  --degraded-ms N         a slower healthy run is degraded (default: 5000)
  --retries N             in-run retries after unreachable, timeout or 5xx (default: 0, max 3)
  --allow-unsafe-tool     call the tool even if it is not annotated readOnlyHint: true
  --name NAME             the target's name in the output (default: the host)
  --config FILE           run the targets of a fleet config (.json, .ts, .js)
  --target NAME           with --config: only this target
  --json                  print the Verdict as JSON on stdout, nothing else
  --catalog FILE          compare tools/list with a recorded catalog (mcp-canary snapshot); drift is a warning
  --posture               run the security posture checks and print them (warnings, never a failure)
  -h, --help              this text

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
