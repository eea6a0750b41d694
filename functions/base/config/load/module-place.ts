/**
 * Where a TS/JS config fails to load, as `line:column: what`, quoting nothing from the file: a CLI config
 * may hold a header value, and the loaders' own messages quote the offending token or line. The place
 * comes from the loader when it says it (tsx's esbuild error: "file:3:24: ERROR: Expected "}" but found
 * "url""), else from esbuild re-reading the file (when installed: it comes with tsx), else from the
 * SyntaxError's stack (Node's own TypeScript stripping names only the line).
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

interface EsbuildMessage {
  readonly text: string;
  readonly location: { readonly line: number; readonly column: number } | null;
}
interface Esbuild {
  transform(code: string, options: { loader: 'ts' | 'js'; sourcefile: string; format: 'esm' }): Promise<unknown>;
}

/**
 * A loader message with every quoted token replaced unless it is punctuation or a keyword: `Expected "}"
 * but found "sk_live_…"` → `Expected "}" but found a name`.
 */
export function withoutTokens(message: string): string {
  return message.replace(/(["'])((?:\\.|(?!\1).)*)\1/g, (whole, _q: string, inner: string) => {
    if (/^[^\w\s"'`]{1,4}$/.test(inner) || /^(export|default|import|from|const|let|var|function|return|as|end of file)$/.test(inner))
      return whole;
    if (/^\\?["'`]/.test(inner)) return 'a string';
    if (/^\d/.test(inner)) return 'a number';
    return 'a name';
  });
}

export async function moduleSyntaxError(path: string, error: unknown): Promise<string | null> {
  const message = error instanceof Error ? error.message : '';
  const fromLoader = /:(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  // esbuild prints columns from 0.
  if (fromLoader) return `${fromLoader[1]}:${Number(fromLoader[2]) + 1}: ${withoutTokens(fromLoader[3]!)}`;
  const fromEsbuild = await esbuildPlace(path);
  if (fromEsbuild !== undefined) return fromEsbuild;
  if (error instanceof SyntaxError) {
    const line = new RegExp(`${placeIn(path)}:(\\d+)`).exec(error.stack ?? '')?.[1];
    return `${line ?? '?'}: ${withoutTokens(error.message.split('\n')[0]!)}`;
  }
  return null;
}

/** esbuild's first error as `line:column: text`; null when the file parses; undefined without esbuild. */
async function esbuildPlace(path: string): Promise<string | null | undefined> {
  let esbuild: Esbuild;
  try {
    // By a variable: the CLI bundle must not try to bundle esbuild (it is a devDependency, with tsx).
    const name = 'esbuild';
    esbuild = (await import(name)) as Esbuild;
  } catch {
    return undefined;
  }
  const loader = ['.ts', '.mts'].includes(extname(path)) ? 'ts' : 'js';
  try {
    await esbuild.transform(await readFile(path, 'utf8'), { loader, sourcefile: path, format: 'esm' });
    return null;
  } catch (e) {
    const first = (e as { errors?: EsbuildMessage[] }).errors?.[0];
    if (!first?.location) return undefined;
    return `${first.location.line}:${first.location.column + 1}: ${withoutTokens(first.text)}`;
  }
}

/** A pattern for the file in a stack trace, which names it by URL or by path depending on the loader. */
export function placeIn(path: string): string {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `(?:${escape(pathToFileURL(path).href)}|${escape(path)})`;
}
