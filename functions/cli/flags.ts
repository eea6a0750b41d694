/**
 * Every flag of `mcp-canary check`, declared once: its name, the kind of value it takes, its default,
 * its description and the config field it sets. `parseArgs` options, the HELP text, the building of
 * the target from the flags, and the flag named in an error message are all derived from this table.
 *
 * Imports nothing: the installed command's `--help` is built from it without loading the engine
 * (help.ts, start.ts). Defaults shown are literals; test/unit/cli/flags.test.ts holds them to the config's.
 *
 * To add a flag, add a row: a `field` (dotted, e.g. `oauth.clientId`) puts its value into the target
 * the config schema checks; `requires` names the flag it only makes sense with.
 */

/** How a flag's raw text becomes a config value. */
export type FlagKind =
  /** Text as given. */
  | 'string'
  /** Present or not. */
  | 'boolean'
  /** A whole number of something (ms, count). */
  | 'integer'
  /** A JSON object, e.g. `--args '{"pair":"EURUSD"}'`. */
  | 'json-object'
  | 'json-array'
  /** `Name: value`, repeatable; the value is a secret and is never repeated in a message. */
  | 'header'
  /** `PATH=JSON`, repeatable. */
  | 'path-json';

export interface Flag {
  readonly name: string;
  readonly kind: FlagKind;
  /** The placeholder shown in HELP (`N`, `NAME`, `JSON`). */
  readonly value?: string;
  readonly short?: string;
  /** One line for HELP. */
  readonly description: string;
  /** As HELP shows it. @default - no default shown */
  readonly default?: string;
  /** The target field the flag sets, dotted for nested fields. @default - not a target field */
  readonly field?: string;
  /** The flag this one needs (e.g. the tool's flags need --tool). */
  readonly requires?: string;
  /** HELP section. */
  readonly section: 'target' | 'tool' | 'config' | 'drift-posture' | 'oauth' | 'warnings' | 'output';
}

export const FLAGS: readonly Flag[] = [
  {
    name: 'tool',
    kind: 'string',
    value: 'NAME',
    section: 'tool',
    field: 'tool.name',
    description: 'the canary tool to call (read-only)',
    default: 'none, stop after tools/list',
  },
  {
    name: 'args',
    kind: 'json-object',
    value: 'JSON',
    section: 'tool',
    field: 'tool.arguments',
    requires: 'tool',
    description: 'its arguments, a JSON object',
    default: '{}',
  },
  {
    name: 'expect-text',
    kind: 'string',
    value: 'S',
    section: 'tool',
    field: 'tool.expectText',
    requires: 'tool',
    description: "the tool's text must contain S",
  },
  {
    name: 'expect-json',
    kind: 'path-json',
    value: 'PATH=JSON',
    section: 'tool',
    field: 'tool.expectJson',
    requires: 'tool',
    description: 'structuredContent at PATH must equal JSON (repeatable), e.g. rate=1.08',
  },
  {
    name: 'allow-unsafe-tool',
    kind: 'boolean',
    section: 'tool',
    field: 'tool.allowUnsafe',
    requires: 'tool',
    description: 'call the tool even if it is not annotated readOnlyHint: true',
  },
  {
    name: 'task',
    kind: 'boolean',
    section: 'tool',
    field: 'tool.task',
    requires: 'tool',
    description: 'the tool may run as a task (SEP-2663): poll it to its end within the budget',
  },
  {
    name: 'flow',
    kind: 'json-array',
    value: 'JSON',
    section: 'tool',
    field: 'flow',
    description: "steps instead of --tool, a JSON array as the config's flow (docs/config.md#flows)",
    default: 'none',
  },
  {
    name: 'header',
    kind: 'header',
    value: '"Name: value"',
    section: 'target',
    field: 'headers',
    description: 'sent on every request (repeatable); values are never printed',
  },
  {
    name: 'health-url',
    kind: 'string',
    value: 'URL',
    section: 'target',
    field: 'healthUrl',
    description: 'GET it first, 2xx expected',
    default: 'no health probe',
  },
  {
    name: 'revision',
    kind: 'string',
    value: 'R',
    section: 'target',
    field: 'revision',
    description: 'auto | 2026-07-28 | 2025-11-25',
    default: 'auto',
  },
  {
    name: 'timeout-ms',
    kind: 'integer',
    value: 'N',
    section: 'target',
    field: 'timeoutMs',
    description: 'per-request timeout',
    default: '10000',
  },
  {
    name: 'budget-ms',
    kind: 'integer',
    value: 'N',
    section: 'target',
    field: 'budgetMs',
    description: 'whole-run budget',
    default: '30000',
  },
  {
    name: 'degraded-ms',
    kind: 'integer',
    value: 'N',
    section: 'target',
    field: 'degradedMs',
    description: 'a slower healthy run is degraded',
    default: '5000',
  },
  {
    name: 'retries',
    kind: 'integer',
    value: 'N',
    section: 'target',
    field: 'retries',
    description: 'in-run retries after unreachable, timeout or 5xx',
    default: '0, max 3',
  },
  {
    name: 'name',
    kind: 'string',
    value: 'NAME',
    section: 'target',
    field: 'name',
    description: "the target's name in the output",
    default: 'the host',
  },
  { name: 'config', kind: 'string', value: 'FILE', section: 'config', description: 'run the targets of a fleet config (.json, .ts, .js)' },
  { name: 'target', kind: 'string', value: 'NAME', section: 'config', requires: 'config', description: 'with --config: only this target' },
  // Catalog drift and posture: read by main.ts, applied to flag and config targets alike (cli/catalog-posture.ts).
  {
    name: 'catalog',
    kind: 'string',
    value: 'FILE',
    section: 'drift-posture',
    description: 'compare tools/list with a recorded catalog (mcp-canary snapshot); drift is a warning',
  },
  {
    name: 'posture',
    kind: 'boolean',
    section: 'drift-posture',
    description: 'run the security posture checks and print them (warnings, never a failure)',
  },
  {
    name: 'grant-file',
    kind: 'string',
    value: 'PATH',
    section: 'oauth',
    description: 'a delegated grant `mcp-canary login --store-file PATH` stored (refreshed here under a lock)',
  },
  // OAuth: built into `auth.oauth` together (oauth-flags.ts), since one flag's meaning depends on the others.
  { name: 'oauth-client-id', kind: 'string', value: 'ID', section: 'oauth', description: "the canary's client_id" },
  {
    name: 'oauth-client-secret-env',
    kind: 'string',
    value: 'NAME',
    section: 'oauth',
    description: 'client_secret_basic: the secret is read from env var NAME, never a flag value',
  },
  {
    name: 'oauth-private-key-file',
    kind: 'string',
    value: 'PATH',
    section: 'oauth',
    description: 'private_key_jwt: a PKCS#8 PEM key (instead of a secret)',
  },
  { name: 'oauth-alg', kind: 'string', value: 'ALG', section: 'oauth', description: 'its algorithm', default: 'RS256' },
  { name: 'oauth-scope', kind: 'string', value: '"a b"', section: 'oauth', description: 'scopes to request', default: 'none' },
  {
    name: 'oauth-resource',
    kind: 'string',
    value: 'URL',
    section: 'oauth',
    description: 'RFC 8707 resource',
    default: "the server's metadata, else the URL",
  },
  {
    name: 'oauth-token-url',
    kind: 'string',
    value: 'URL',
    section: 'oauth',
    description: 'the token endpoint; skips discovery',
    default: 'discovered',
  },
  {
    name: 'oauth-issuer',
    kind: 'string',
    value: 'URL',
    section: 'oauth',
    description: 'the expected issuer',
    default: 'whichever the server names',
  },
  {
    name: 'oauth-allow-private-network',
    kind: 'boolean',
    section: 'oauth',
    description: 'follow OAuth URLs to private addresses',
    default: 'refused',
  },
  {
    name: 'cert-warning-days',
    kind: 'integer',
    value: 'N',
    section: 'warnings',
    field: 'certWarningDays',
    description: 'warn when the TLS certificate expires within N days (0: off)',
    default: '14',
  },
  {
    name: 'credential-warning-days',
    kind: 'integer',
    value: 'N',
    section: 'warnings',
    field: 'credentialWarningDays',
    description: 'warn when a JWT bearer or secret expiresAt is within N days (0: off)',
    default: '7',
  },
  { name: 'json', kind: 'boolean', section: 'output', description: 'print the verdicts as a JSON array on stdout, nothing else' },
  { name: 'version', kind: 'boolean', section: 'output', description: "print mcp-canary's version" },
  { name: 'help', kind: 'boolean', short: 'h', section: 'output', description: 'this text' },
];

/** `parseArgs` options, from the table. */
export function parseArgsOptions(): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> {
  return Object.fromEntries(
    FLAGS.map((f) => [
      f.name,
      {
        type: f.kind === 'boolean' ? 'boolean' : 'string',
        ...(f.kind === 'header' || f.kind === 'path-json' ? { multiple: true } : {}),
        ...(f.short ? { short: f.short } : {}),
      },
    ]),
  );
}

/** The flag that sets a config field (`tool.expectText` → `--expect-text`), for error messages. */
export function flagForField(path: readonly PropertyKey[]): string | undefined {
  const keys = path.map(String);
  for (let n = keys.length; n > 0; n--) {
    const field = keys.slice(0, n).join('.');
    const flag = FLAGS.find((f) => f.field === field);
    // A header's own name is part of the message (never its value): --header "Authorization".
    if (flag) return flag.kind === 'header' && keys[n] !== undefined ? `--header "${keys[n]}"` : `--${flag.name}`;
  }
  return undefined;
}

const SECTIONS: Record<Flag['section'], string> = {
  tool: 'The canary tool',
  target: 'The endpoint',
  config: 'A fleet config',
  'drift-posture': 'Catalog drift and posture',
  oauth: 'OAuth (client credentials; the token step is the first probe, "auth")',
  warnings: 'Warnings (never change the outcome or the exit code)',
  output: 'Output',
};

/** The Options part of HELP: aligned, one line per flag, the default in brackets. */
export function optionsHelp(): string {
  const left = (f: Flag) => `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.value ? ` ${f.value}` : ''}`;
  const width = Math.max(...FLAGS.map((f) => left(f).length)) + 2;
  const out: string[] = [];
  for (const section of Object.keys(SECTIONS) as Array<Flag['section']>) {
    out.push(`${SECTIONS[section]}:`);
    for (const f of FLAGS.filter((x) => x.section === section)) {
      out.push(`  ${left(f).padEnd(width)}${f.description}${f.default ? ` (default: ${f.default})` : ''}`);
    }
  }
  return out.join('\n');
}
