/** Reads a fleet config file: JSON, or a TS/JS module whose default export is the config. */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configError } from '../errors.ts';
import { Fleet } from './fleet.ts';
import { parseOrThrow } from './issues.ts';

export async function loadFleet(file: string): Promise<Fleet> {
  return parseFleet(await readConfigFile(file), file);
}

export function parseFleet(raw: unknown, source = 'config'): Fleet {
  return parseOrThrow(Fleet, raw, source);
}

/**
 * The config a file holds, unparsed: JSON, or a TS/JS module's default export. `label` is how messages
 * name where the file came from (the CLI flag, or the CDK app's environment variable). A syntax error
 * is reported by its place, never by the parser's message: that quotes the file, and a CLI config may
 * hold a static header value.
 */
export async function readConfigFile(file: string, label = `--config ${file}`): Promise<unknown> {
  const path = resolve(file);
  const ext = extname(path);
  if (ext === '.json') {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw configError(`${label}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? 'error'}). Check the path.`, e);
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      throw configError(`${label}: is not valid JSON (${placeOf(text, (e as Error).message)}). Fix the syntax.`);
    }
  }
  if (['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    try {
      const mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
      if (mod.default === undefined) throw configError(`${label}: has no default export. Add \`export default defineFleet({ ... })\`.`);
      return mod.default;
    } catch (e) {
      if (e instanceof Error && e.name === 'CanaryError') throw e;
      // The first line only: a transform error goes on to quote the offending source line.
      throw configError(`${label}: cannot load the module (${(e as Error).message.split('\n')[0]}). Check the path and its syntax.`);
    }
  }
  throw configError(`${label}: unknown file type "${ext}". Use .json, .ts or .js.`);
}

/** `line 3, column 12` from the parser's "position N", or `a syntax error` when it names none. */
function placeOf(text: string, message: string): string {
  const position = /position (\d+)/.exec(message)?.[1];
  if (position === undefined) return 'a syntax error';
  const before = text.slice(0, Number(position)).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
