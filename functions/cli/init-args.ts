/**
 * `mcp-canary init` flags → the target to survey. init takes check's connection flags (the one table,
 * flags.ts, read by check's own parser, as `snapshot` does) and two of its own, `--yes` and `--out`;
 * a flag that names what init is there to propose (`--tool`, `--expect-*`) or a fleet (`--config`) is
 * refused, naming it and the fix.
 */
import { parseArgs } from 'node:util';
import { configError } from '../base/common/errors.ts';
import type { Target } from '../base/config/schema/target.ts';
import { parseCommand } from './args.ts';
import { parseArgsOptions } from './flags.ts';

export interface InitCommand {
  readonly target: Target;
  readonly json: boolean;
  /** Answer yes to init's questions: call a tool not annotated read-only (never a destructive one), overwrite --out. */
  readonly yes: boolean;
  readonly out?: string;
}

/** Flags init has beside check's connection flags. */
const OWN = { yes: { type: 'boolean' }, out: { type: 'string' } } as const;

/** check's flags that init refuses, and why. */
const NOT_FOR_INIT: Record<string, string> = {
  tool: 'init proposes the canary tool itself',
  args: 'init fills the arguments from the tool’s schema',
  'expect-text': 'init records the expectation from the real answer',
  'expect-json': 'init records the expectation from the real answer',
  'allow-unsafe-tool': 'init asks before it calls a tool that is not annotated read-only (or --yes answers for you)',
  config: 'init writes a config; it does not read one',
  target: 'init writes a config; it does not read one',
  catalog: 'run `mcp-canary snapshot` for the catalog',
  posture: 'run `mcp-canary check --posture` on the target init prints',
};

export function parseInit(argv: readonly string[]): InitCommand {
  const options: ReturnType<typeof parseArgsOptions> = { ...parseArgsOptions(), ...OWN };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw configError(`${problem(argv, options, e)}. Run \`mcp-canary init --help\` for the flags.`, e);
  }
  const given = parsed.tokens.filter((t) => t.kind === 'option');
  for (const t of given) {
    const why = NOT_FOR_INIT[t.name];
    if (why) throw configError(`--${t.name} is not an init flag: ${why}. Drop --${t.name}.`);
  }
  const [url, ...extra] = parsed.positionals;
  if (url === undefined) throw configError('missing <url>: `mcp-canary init https://mcp.example.com/mcp`.');
  if (extra.length > 0) throw configError(`unexpected argument "${extra[0]}". Give one URL; quote values that contain spaces.`);
  const values = parsed.values as Record<string, unknown>;
  const out = typeof values.out === 'string' ? values.out : undefined;
  if (out !== undefined && out.trim() === '') throw configError('--out is empty: give a file name, e.g. --out mcp-canary.config.json.');
  // check's parser reads the connection flags: the same target, the same errors naming the same flags.
  const checkArgv = given
    .filter((t) => !Object.hasOwn(OWN, t.name) && t.name !== 'json')
    .map((t) => (t.value === undefined ? `--${t.name}` : `--${t.name}=${t.value}`));
  const cmd = parseCommand(['check', url, ...checkArgv]);
  if (cmd.kind !== 'check' || cmd.targets.length !== 1) throw configError('init takes one <url> and its connection flags.');
  return { target: cmd.targets[0]!, json: values.json === true, yes: values.yes === true, ...(out ? { out } : {}) };
}

/** What parseArgs refused, naming the flag from argv's own tokens rather than quoting its message. */
function problem(argv: readonly string[], options: ReturnType<typeof parseArgsOptions>, e: unknown): string {
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    if (!Object.hasOwn(options, t.name)) return `unknown flag ${t.rawName}`;
    if (options[t.name]?.type === 'string' && t.value === undefined) return `${t.rawName} needs a value`;
  }
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}
