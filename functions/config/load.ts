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

/**
 * The config a file holds, unparsed: JSON, or a TS/JS module's default export. `label` is how messages
 * name where the file came from (the CLI flag, or the CDK app's environment variable).
 */

export function parseFleet(raw: unknown, source = 'config'): Fleet {
  return parseOrThrow(Fleet, raw, source);
}

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
      throw configError(`${file}: is not valid JSON (${(e as Error).message}). Fix the syntax.`, e);
    }
  }
  if (['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    try {
      const mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
      if (mod.default === undefined) throw configError(`${file}: has no default export. Add \`export default defineFleet({ ... })\`.`);
      return mod.default;
    } catch (e) {
      if (e instanceof Error && e.name === 'CanaryError') throw e;
      throw configError(`${label}: cannot load the module (${(e as Error).message}). Check the path and its syntax.`, e);
    }
  }
  throw configError(`${label}: unknown file type "${ext}". Use .json, .ts or .js.`);
}
