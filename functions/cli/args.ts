/**
 * `mcp-canary check` flags → what to run. Pure: no I/O besides nothing; every bad flag is a
 * CanaryError naming the flag and the fix (exit 2).
 */
import { parseArgs } from 'node:util';
import { configError } from '../errors.ts';
import { parseOrThrow } from '../config/issues.ts';
import { nameFromUrl, Target, type TargetInput } from '../config/target.ts';

export interface CheckCommand {
  readonly kind: 'check';
  readonly json: boolean;
  /** Targets from the flags; empty when `configFile` names them. */
  readonly targets: readonly Target[];
  readonly configFile?: string;
  readonly targetName?: string;
}
export type Command = CheckCommand | { readonly kind: 'help' };

const options = {
  tool: { type: 'string' },
  args: { type: 'string' },
  'expect-text': { type: 'string' },
  'expect-json': { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  'health-url': { type: 'string' },
  revision: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'budget-ms': { type: 'string' },
  'degraded-ms': { type: 'string' },
  retries: { type: 'string' },
  'allow-unsafe-tool': { type: 'boolean' },
  name: { type: 'string' },
  json: { type: 'boolean' },
  config: { type: 'string' },
  target: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    const unknown = /Unknown option '([^']+)'/.exec((e as Error).message)?.[1];
    const what = unknown ? `unknown flag ${unknown}` : (e as Error).message.split('\n')[0];
    throw configError(`${what}. Run \`mcp-canary check --help\` for the flags.`, e);
  }
  const { values: v, positionals } = parsed;
  if (v.help || positionals.length === 0) return { kind: 'help' };
  const [verb, url, ...extra] = positionals;
  if (verb !== 'check') throw configError(`unknown command "${verb}". The command is \`mcp-canary check <url>\`.`);
  if (extra.length > 0) throw configError(`unexpected argument "${extra[0]}". Give one URL; quote values that contain spaces.`);

  if (v.config !== undefined) {
    const flagsWithUrl = url !== undefined || v.tool !== undefined || v.header !== undefined;
    if (flagsWithUrl) throw configError('--config runs the targets of the file: drop the URL, --tool and --header (or drop --config).');
    return { kind: 'check', json: v.json ?? false, targets: [], configFile: v.config, ...(v.target ? { targetName: v.target } : {}) };
  }
  if (v.target !== undefined) throw configError('--target picks a target of a --config file: add --config FILE.');
  if (url === undefined) throw configError('missing <url>: `mcp-canary check https://mcp.example.com/mcp`.');

  const input: TargetInput = {
    name: v.name ?? nameFromUrl(url),
    url,
    headers: parseHeaders(v.header ?? []),
    ...(v['health-url'] !== undefined ? { healthUrl: v['health-url'] } : {}),
    ...(v.revision !== undefined ? { revision: v.revision as TargetInput['revision'] } : {}),
    ...(v['timeout-ms'] !== undefined ? { timeoutMs: int('--timeout-ms', v['timeout-ms']) } : {}),
    ...(v['budget-ms'] !== undefined ? { budgetMs: int('--budget-ms', v['budget-ms']) } : {}),
    ...(v['degraded-ms'] !== undefined ? { degradedMs: int('--degraded-ms', v['degraded-ms']) } : {}),
    ...(v.retries !== undefined ? { retries: int('--retries', v.retries) } : {}),
  };
  const toolFlags = v.args ?? v['expect-text'] ?? v['expect-json'] ?? v['allow-unsafe-tool'];
  if (v.tool === undefined && toolFlags !== undefined) {
    throw configError('--args, --expect-text, --expect-json and --allow-unsafe-tool need --tool NAME: name the canary tool.');
  }
  if (v.tool !== undefined) {
    input.tool = {
      name: v.tool,
      arguments: v.args !== undefined ? parseArgsJson(v.args) : {},
      ...(v['expect-text'] !== undefined ? { expectText: v['expect-text'] } : {}),
      expectJson: parseExpectJson(v['expect-json'] ?? []),
      allowUnsafe: v['allow-unsafe-tool'] ?? false,
    };
  }
  // Flag names, not config field names, in the message: the user typed flags.
  const target = parseOrThrow(Target, input, 'invalid flags', flagFor);
  return { kind: 'check', json: v.json ?? false, targets: [target] };
}

const FLAG_FOR_FIELD: Record<string, string> = {
  name: '--name', url: '<url>', headers: '--header', healthUrl: '--health-url', revision: '--revision',
  timeoutMs: '--timeout-ms', budgetMs: '--budget-ms', degradedMs: '--degraded-ms', retries: '--retries',
};
const FLAG_FOR_TOOL_FIELD: Record<string, string> = {
  name: '--tool', arguments: '--args', expectText: '--expect-text', expectJson: '--expect-json', allowUnsafe: '--allow-unsafe-tool',
};

function flagFor(path: readonly PropertyKey[]): string {
  const [head, sub] = path.map(String);
  if (head === 'tool' && sub !== undefined) return FLAG_FOR_TOOL_FIELD[sub] ?? `--tool (${sub})`;
  // Name the header, never its value.
  if (head === 'headers' && sub !== undefined) return `--header "${sub}"`;
  return FLAG_FOR_FIELD[head ?? ''] ?? (head || '(flags)');
}

function int(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw configError(`${flag} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** "Name: value" — the value is a secret; the message never repeats it. */
export function parseHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [i, h] of raw.entries()) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw configError(`--header #${i + 1} has no "Name: value" colon. Write it as --header "Authorization: Bearer <token>".`);
    headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return headers;
}

function parseArgsJson(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw configError(`--args is not valid JSON (${(e as Error).message}). Give an object, e.g. --args '{"pair":"EURUSD"}'.`, e);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw configError(`--args must be a JSON object, e.g. --args '{"pair":"EURUSD"}'.`);
  }
  return value as Record<string, unknown>;
}

/** `rate=1.08`, `quote.currency="EUR"`: a dotted path, `=`, a JSON value. */
export function parseExpectJson(raw: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of raw) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw configError(`--expect-json "${item}" needs PATH=JSON, e.g. --expect-json rate=1.08 or --expect-json 'pair="EURUSD"'.`);
    const path = item.slice(0, eq);
    const json = item.slice(eq + 1);
    try {
      out[path] = JSON.parse(json);
    } catch {
      throw configError(`--expect-json ${path}: ${JSON.stringify(json)} is not a JSON value. Quote strings: --expect-json '${path}="${json}"'.`);
    }
  }
  return out;
}
