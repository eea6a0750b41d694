/**
 * The docs' references checked against the tree: every relative link in every Markdown file (and its
 * `#anchor`, against the headings GitHub makes anchors of), and every repository path a doc names in
 * backticks (`functions/engine/probe/classify.ts`, `test/unit/…`, `./flags.ts`). A doc that names what
 * is not there — a file moved, a heading renamed, a link mistyped — is one problem naming the doc, the
 * line and what it points at. Fenced code is not read: commands and output there are not references.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** Folders no doc lives in (installed, built or scratch). */
const SKIP = new Set(['node_modules', 'dist', 'cdk.out', '.git', '.scratch', 'coverage', '.bench']);
/** Where a repository path in backticks starts: the top-level folders and files of the tree. */
const TOP =
  /^(functions|infra|test|scripts|docs|\.ci)\/|^(package\.json|eslint\.config\.js|vitest\.config\.ts|tsconfig(\.build)?\.json|mcp-canary\.config\.ts|\.nvmrc|\.prettierignore|README\.md|CONTRIBUTING\.md|LICENSE)$/;
/** Placeholders and patterns, not paths: `<room>`, `*`, `…`, `$VAR`, `{a,b}`. */
const PATTERN = /[<>*…${}|]|\.\.\.|\s/;
/** Build output a doc may name though no checkout holds it. */
const BUILT = /^(dist|cdk\.out)\//;

export interface DocProblem {
  /** Repository-relative, `/`-separated. */
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly why: string;
}

/** Every `.md` file under `root`, repository-relative, sorted. */
export function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.md')) out.push(relative(root, join(dir, entry.name)).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** GitHub's anchor for a heading: markup dropped, lowercase, punctuation and symbols dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text has: one per heading, a repeated one suffixed `-1`, `-2` as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const h = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text);
    if (!h) continue;
    const base = anchorOf(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The lines outside fenced code, with their 1-based numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(text);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text });
  });
  return out;
}

/** The problems of one doc, read from `root`. */
export function checkDoc(root: string, file: string, anchorCache = new Map<string, Set<string>>()): DocProblem[] {
  const problems: DocProblem[] = [];
  const text = readFileSync(join(root, file), 'utf8');
  const anchorsIn = (doc: string) => {
    let a = anchorCache.get(doc);
    if (!a) anchorCache.set(doc, (a = anchorsOf(readFileSync(join(root, doc), 'utf8'))));
    return a;
  };
  const here = dirname(file);
  const inTree = (path: string) => {
    const n = normalize(path).split(sep).join('/');
    return n === '..' || n.startsWith('../') ? null : n;
  };
  for (const { line, text: l } of proseLines(text)) {
    // Links: [text](target) and ![alt](target), outside inline code.
    const prose = l.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : inTree(join(here, decodeURIComponent(path)));
      if (resolved === null) {
        problems.push({ file, line, target, why: 'points outside the repository' });
        continue;
      }
      if (!existsSync(join(root, resolved))) {
        problems.push({ file, line, target, why: `links to ${resolved}, which does not exist` });
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor))
        problems.push({ file, line, target, why: `links to #${anchor}, which is no heading of ${resolved}` });
    }
    // Repository paths in backticks.
    for (const m of l.matchAll(/`([^`\n]+)`/g)) {
      const span = m[1]!.replace(/[:,.;]+$/, '');
      if (PATTERN.test(span) || BUILT.test(span)) continue;
      let path: string | null = null;
      if (TOP.test(span)) path = span;
      else if (/^\.\.?\//.test(span)) path = inTree(join(here, span));
      if (path === null) continue;
      if (!existsSync(join(root, path))) problems.push({ file, line, target: span, why: `names ${path}, which does not exist` });
    }
  }
  return problems;
}

/** The problems of every doc under `root`. */
export function checkDocs(root: string, files = markdownFiles(root)): DocProblem[] {
  const cache = new Map<string, Set<string>>();
  return files.flatMap((f) => checkDoc(root, f, cache));
}

/** One line per problem: where, what it points at, why. */
export function describeProblem(p: DocProblem): string {
  return `${p.file}:${p.line}: ${p.target} ${p.why}`;
}
