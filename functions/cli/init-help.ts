/** `mcp-canary init --help`: the text, in a module of its own so the docs script reads it without the engine. */
export const INIT_HELP = `Usage: mcp-canary init <url> [check's endpoint and OAuth flags] [--yes] [--out FILE] [--json]

Write a starting config for a live endpoint. init connects exactly as check does (era, headers, OAuth,
timeouts, proxy), lists the tools (and resources and prompts, where the server advertises them), ranks
the tools as canaries, and calls the best one annotated readOnlyHint: true (and not destructiveHint)
twice, with arguments filled from its schema (default, examples, enum); if it fails, the next (up to 3). From the answers it records
what they agree on and does not look volatile (no numbers, times or ids): expectJson paths into
structuredContent, else an expectText phrase. It then judges the target once, as check would, and
prints the fleet config (JSON, checked by the config loader) on stdout; what it did goes to stderr.

A tool not annotated read-only is called only after you say yes on the terminal (or with --yes); one
annotated destructiveHint: true never is. With no such tool, the config only lists the tools.

Never a credential in the output: each --header becomes a headerSecrets reference to an SSM parameter
(/mcp-canary/<target>/<header>) that you create or rename; a URL with a key in it is written redacted.
homeRegion is a placeholder (us-east-1): set yours.

Options:
  --yes         answer yes: call a tool not annotated read-only (never a destructive one), overwrite --out
  --out FILE    write the config to FILE instead of stdout (refused if it exists, unless --yes)
  --json        one JSON object on stdout: the config, what the server offers, the ranking, the check
  The endpoint and OAuth flags of check (mcp-canary --help): --header, --revision, --timeout-ms,
  --budget-ms, --name, --health-url, --oauth-*, --grant-file, ...

Exit codes: 0 the config was printed and it judges healthy or degraded, 1 the endpoint failed,
2 usage error, 3 inconclusive.`;
