/**
 * `mcp-canary check` flags → what to run. Pure: no I/O besides nothing; every bad flag is a
 * CanaryError naming the flag and the fix (exit 2).
 */
import { parseArgs } from 'node:util';
import { configError } from '../base/common/errors.ts';
import { parseOrThrow } from '../base/config/words/issues.ts';
import { nameFromUrl, Target, type TargetInput } from '../base/config/schema/target.ts';
import { parseExactJson } from '../base/common/exact-json.ts';
import { FLAGS, flagForField, parseArgsOptions, type Flag } from './flags.ts';
import { oauthFlagFor, oauthInput } from './oauth-flags.ts';

export interface CheckCommand {
  readonly kind: 'check';
  readonly json: boolean;
  /** `--catalog FILE`: compare every target's tools/list with the catalog in it. */
  readonly catalogFile?: string;
  /** `--posture`: run the posture checks on every target, now. */
  readonly posture: boolean;
  /** Targets from the flags; empty when `configFile` names them. */
  readonly targets: readonly Target[];
  readonly configFile?: string;
  readonly targetName?: string;
}
export type Command = CheckCommand | { readonly kind: 'help' } | { readonly kind: 'version' };

type Values = Record<string, string | boolean | string[] | undefined>;

export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: parseArgsOptions(), allowPositionals: true, strict: true });
  } catch (e) {
    throw configError(`${flagProblem(argv, e)}. Run \`mcp-canary check --help\` for the flags.`, e);
  }
  const v = parsed.values as Values;
  const { positionals } = parsed;
  if (v.version) return { kind: 'version' };
  if (v.help || positionals.length === 0) return { kind: 'help' };
  const [verb, url, ...extra] = positionals;
  if (verb !== 'check') throw configError(`unknown command "${verb}". The command is \`mcp-canary check <url>\`.`);
  if (extra.length > 0) throw configError(`unexpected argument "${extra[0]}". Give one URL; quote values that contain spaces.`);

  for (const needed of new Set(
    FLAGS.filter((f) => f.requires && v[f.name] !== undefined && v[f.requires] === undefined).map((f) => f.requires!),
  )) {
    const users = FLAGS.filter((f) => f.requires === needed && v[f.name] !== undefined).map((f) => `--${f.name}`);
    const flag = `--${needed} ${FLAGS.find((f) => f.name === needed)?.value ?? ''}`.trim();
    throw configError(`${users.join(', ')} only work${users.length === 1 ? 's' : ''} with ${flag}: add ${flag}.`);
  }

  const targetFlags = FLAGS.filter((f) => f.field !== undefined && v[f.name] !== undefined);
  if (v.config !== undefined) {
    if (url !== undefined || targetFlags.length > 0) {
      const drop = [...(url !== undefined ? ['the URL'] : []), ...targetFlags.map((f) => `--${f.name}`)].join(', ');
      throw configError(`--config runs the targets of the file: drop ${drop} (or drop --config).`);
    }
    return {
      kind: 'check',
      json: v.json === true,
      ...catalogPosture(v),
      targets: [],
      configFile: String(v.config),
      ...(v.target ? { targetName: String(v.target) } : {}),
    };
  }
  if (url === undefined) throw configError('missing <url>: `mcp-canary check https://mcp.example.com/mcp`.');

  const input: Record<string, unknown> = { name: nameFromUrl(url), url, ...oauthInput(v) };
  for (const f of targetFlags) setField(input, f.field!, valueOf(f, v[f.name]!));
  // Flag names, not config field names, in the message: the user typed flags.
  const target = parseOrThrow(Target, input as TargetInput, 'invalid flags', flagFor);
  return { kind: 'check', json: v.json === true, ...catalogPosture(v), targets: [withExactExpectations(target, v['expect-json'])] };
}

/**
 * `--expect-json id=9007199254740993`: JSON.parse (and so the schema's copy) rounds an integer beyond
 * 2^53 to a double; the value compared is read again with those integers as BigInt (probe/expect.ts).
 */
function withExactExpectations(t: Target, raw: Values[string]): Target {
  if (!t.tool || !Array.isArray(raw)) return t;
  const expectJson: Record<string, unknown> = { ...t.tool.expectJson };
  for (const item of raw) expectJson[item.slice(0, item.indexOf('='))] = parseExactJson(item.slice(item.indexOf('=') + 1));
  return { ...t, tool: { ...t.tool, expectJson } };
}

/** `--catalog` and `--posture` apply to flag and config targets alike (main.ts, cli/catalog-posture.ts). */
function catalogPosture(v: Values): Pick<CheckCommand, 'catalogFile' | 'posture'> {
  return { ...(typeof v.catalog === 'string' ? { catalogFile: v.catalog } : {}), posture: v.posture === true };
}

/**
 * Why parseArgs refused argv, by its error's code: the flag it names is found in argv's own tokens
 * (parsed again, leniently), not in its message. Any other refusal is shown in parseArgs' words.
 */
function flagProblem(argv: readonly string[], e: unknown): string {
  const options = parseArgsOptions();
  const code = (e as { code?: unknown }).code;
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  const given = tokens.filter((t) => t.kind === 'option');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const unknown = given.find((t) => !Object.hasOwn(options, t.name));
    if (unknown) return `unknown flag ${unknown.rawName}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const missing = FLAGS.find((f) => given.some((t) => t.name === f.name && options[f.name]?.type === 'string' && t.value === undefined));
    if (missing) return `--${missing.name} needs a value: --${missing.name} ${missing.value ?? ''}`.trim();
  }
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** A flag's raw text as the config value its kind says. */
function valueOf(f: Flag, raw: string | boolean | string[]): unknown {
  const flag = `--${f.name}`;
  switch (f.kind) {
    case 'integer':
      return int(flag, String(raw));
    case 'json-object':
      return parseJsonObject(flag, String(raw));
    case 'json-array':
      return parseJsonArray(flag, String(raw));
    case 'header':
      return parseHeaders(raw as string[]);
    case 'path-json':
      return parseExpectJson(raw as string[], flag);
    default:
      return raw;
  }
}

/** Sets `a.b.c` in a plain object, creating the objects on the way. */
function setField(into: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let cur = into;
  for (const k of keys.slice(0, -1)) cur = (cur[k] ??= {}) as Record<string, unknown>;
  cur[keys.at(-1)!] = value;
}

function flagFor(path: readonly PropertyKey[]): string {
  if (String(path[0]) === 'url') return '<url>';
  return oauthFlagFor(path.map(String)) ?? flagForField(path) ?? (path.map(String).join('.') || '(flags)');
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
    if (colon <= 0)
      throw configError(`--header #${i + 1} has no "Name: value" colon. Write it as --header "Authorization: Bearer <token>".`);
    headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return headers;
}

function parseJsonObject(flag: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw configError(`${flag} is not valid JSON (${(e as Error).message}). Give an object, e.g. ${flag} '{"pair":"EURUSD"}'.`, e);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw configError(`${flag} must be a JSON object, e.g. ${flag} '{"pair":"EURUSD"}'.`);
  }
  return value as Record<string, unknown>;
}

function parseJsonArray(flag: string, raw: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw configError(
      `${flag} is not valid JSON (${(e as Error).message}). Give an array of steps, e.g. ${flag} '[{"kind":"resources/list"}]'.`,
      e,
    );
  }
  if (!Array.isArray(value)) throw configError(`${flag} must be a JSON array of steps, e.g. ${flag} '[{"kind":"resources/list"}]'.`);
  return value;
}

/** `rate=1.08`, `quote.currency="EUR"`: a dotted path, `=`, a JSON value. */
function parseExpectJson(raw: readonly string[], flag = '--expect-json'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of raw) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw configError(`${flag} "${item}" needs PATH=JSON, e.g. ${flag} rate=1.08 or ${flag} 'pair="EURUSD"'.`);
    const path = item.slice(0, eq);
    const json = item.slice(eq + 1);
    try {
      out[path] = JSON.parse(json);
    } catch {
      throw configError(`${flag} ${path}: ${JSON.stringify(json)} is not a JSON value. Quote strings: ${flag} '${path}="${json}"'.`);
    }
  }
  return out;
}
