/** Reads a fleet config file: JSON, or a TS/JS module whose default export is the config. */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CanaryError, configError } from '../../common/errors.ts';
import { oneLine } from '../../common/redact.ts';
import { Fleet } from '../schema/fleet.ts';
import { parseOrThrow } from '../words/issues.ts';
import { jsonDuplicateKey, jsonSyntaxError } from './json-place.ts';
import { moduleSyntaxError, placeIn } from './module-place.ts';

/** The fleet in a file, or a config error whose fields name their target too: `targets[1] ("docs").url …`. */
export async function loadFleet(file: string): Promise<Fleet> {
  return parseNamingTargets(await readConfigFile(file), file);
}

export function parseFleet(raw: unknown, source = 'config'): Fleet {
  return parseOrThrow(Fleet, raw, source);
}

/** `parseFleet`, with each target's name after `targets[i]` in the message, so the user finds it by name. */
export function parseNamingTargets(raw: unknown, source: string): Fleet {
  try {
    return parseFleet(raw, source);
  } catch (e) {
    if (e instanceof CanaryError) throw configError(nameTargets(e.message, raw), e);
    throw e;
  }
}

function nameTargets(message: string, raw: unknown): string {
  const targets = (raw as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return message;
  // Only the fleet's own `targets[i]`, not a list of target names inside another field (maintenance[0].targets[0]).
  return message.replace(/(?<![.\w])targets\[(\d+)\](?! \()/g, (whole, i: string) => {
    const name = (targets[Number(i)] as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name ? `${whole} (${JSON.stringify(name)})` : whole;
  });
}

/**
 * The config a file holds, unparsed: JSON, or a TS/JS module's default export. `label` is how messages
 * name where the file came from (the CLI flag, or the CDK app's environment variable). A syntax error
 * is reported by its line, column and what is wrong, never by the parser's message: that quotes the
 * file, and a CLI config may hold a static header value.
 */
export async function readConfigFile(file: string, label = `--config ${file}`): Promise<unknown> {
  const path = resolve(file);
  const ext = extname(path);
  if (ext === '.json') {
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (e) {
      throw configError(`${label}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? 'error'}). Check the path.`, e);
    }
    // Windows editors save "Unicode" as UTF-16 with a byte-order mark: read as UTF-8, every character is garbage.
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
      throw configError(`${label}: is UTF-16 text (it starts with a UTF-16 byte-order mark). Save it as UTF-8.`);
    // An editor's byte-order mark is not part of the JSON.
    const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const at = jsonSyntaxError(text);
      const where = at ? `${file}:${at.line}:${at.column}: ${at.problem}` : `${file}: a syntax error`;
      throw configError(`${label}: is not valid JSON (${where}). Fix the syntax.`);
    }
    const twice = jsonDuplicateKey(text);
    if (twice) throw configError(`${label}: names a field twice (${file}:${twice.line}:${twice.column}: ${twice.problem}).`);
    return value;
  }
  if (['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    let mod: { default?: unknown };
    try {
      mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ERR_MODULE_NOT_FOUND' && !(await exists(path)))
        throw configError(`${label}: cannot read the file (ENOENT). Check the path.`);
      const typescript = typeScriptRefusal(e, ext);
      if (typescript) throw configError(`${label}: ${typescript}`);
      const syntax = await moduleSyntaxError(path, e);
      if (syntax) throw configError(`${label}: has a syntax error (${file}:${syntax}). Fix the syntax.`);
      throw configError(`${label}: cannot load the module (${loadFailure(e, path, file)}). Check its imports and that it runs.`);
    }
    if (mod.default === undefined) throw configError(`${label}: has no default export. Add \`export default defineFleet({ ... })\`.`);
    return mod.default;
  }
  throw configError(`${label}: unknown file type "${ext}". Use .json, .ts or .js.`);
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

/**
 * A .ts config is loaded by Node itself (type stripping, on by default from Node 22.18 and 23.6; the
 * package's engines), or by tsx in a checkout. When Node refuses it, say which Node and what to run.
 */
function typeScriptRefusal(e: unknown, ext: string): string | undefined {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && ['.ts', '.mts'].includes(ext)) {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const stripsByDefault = major > 22 || (major === 22 && minor >= 18);
    return stripsByDefault && process.features.typescript === false
      ? `Node ${process.version} has type stripping turned off (--no-experimental-strip-types, in NODE_OPTIONS?), so it cannot load a ${ext} config. Remove that flag, or write the config as .mjs or .json.`
      : `Node ${process.version} cannot load a ${ext} config by itself. Run mcp-canary on Node 22.18 or later (it strips the types), or write the config as .mjs or .json.`;
  }
  // Node strips types only: an enum, a namespace or a constructor's parameter properties need a compiler.
  if (code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX')
    return `uses TypeScript that Node cannot strip (${oneLine((e as Error).message.split('\n')[0]!, 200)}). Write it with type annotations only (an object instead of an enum), or as .mjs or .json.`;
  return undefined;
}

/**
 * Node's own module errors (ERR_…: a missing import, a bad specifier) name paths, and are shown. An error
 * the config's code threw is named by its kind and place only: its message may quote the file
 * ("sk_live_… is not defined" for an unquoted header value).
 */
function loadFailure(e: unknown, path: string, file: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  // tsx, seeing a .ts file outside an ESM package, loads it as CommonJS, and Node refuses that halfway.
  if (code === 'ERR_REQUIRE_CYCLE_MODULE')
    return 'Node loaded it as CommonJS: rename it to .mts, or put it in a package whose package.json says "type": "module"';
  if (e instanceof Error && code?.startsWith('ERR_')) return e.message.split('\n')[0]!.slice(0, 300);
  const name = e instanceof Error ? e.name : typeof e;
  const at = new RegExp(`${placeIn(path)}:(\\d+):(\\d+)`).exec((e as Error)?.stack ?? '');
  return at ? `${name} at ${file}:${at[1]}:${at[2]}` : `${name} while it ran`;
}
