/**
 * The import graph of the source, read with the TypeScript compiler's own parser: every `import`,
 * `export … from`, `import type`, `import()` and `import('…').Type` between files of the repository.
 * The layering test checks it against the rule table; run as a script it draws the graph
 * (`npx tsx test/helpers/import-graph.ts`): rooms, arrows between them, and the folder loops.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface ImportEdge {
  /** Repository-relative, `/`-separated. */
  readonly from: string;
  readonly to: string;
  /** `import type` / `export type`: erased at run time, but still a dependency on the room's words. */
  readonly typeOnly: boolean;
  /** 1-based line of the import in `from`. */
  readonly line: number;
  /** The specifier as written. */
  readonly specifier: string;
}

export interface ImportGraph {
  readonly files: readonly string[];
  /** Imports of files of the repository. */
  readonly edges: readonly ImportEdge[];
  /** Imports of packages and Node's modules (`to` is the specifier). */
  readonly packages: readonly ImportEdge[];
}

/** Every `.ts` file under `dirs` (repository-relative), in path order. */
export function sourceFiles(dirs: readonly string[], root = REPO): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path);
    }
  };
  dirs.forEach(walk);
  return out.sort();
}

/** The imports of one file's text: relative ones resolved to repository paths, packages as written. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (node: ts.Node, spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    const to = spec.text.startsWith('.')
      ? normalize(join(dirname(file), spec.text))
          .split(sep)
          .join('/')
      : spec.text;
    edges.push({ from: file, to, typeOnly, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, specifier: spec.text });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const allTypes = clause?.isTypeOnly === true || namedOnlyTypes(clause?.namedBindings, clause?.name);
      add(node, node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      const onlyTypes =
        node.isTypeOnly ||
        (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node, node.moduleSpecifier, onlyTypes);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

function namedOnlyTypes(bindings: ts.NamedImportBindings | undefined, name: ts.Identifier | undefined): boolean {
  if (name || !bindings || !ts.isNamedImports(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/** The graph of the files under `dirs`. */
export function importGraph(dirs: readonly string[], root = REPO): ImportGraph {
  const files = sourceFiles(dirs, root);
  const all = files.flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8')));
  const relativeEdge = (e: ImportEdge) => e.specifier.startsWith('.');
  return {
    files,
    edges: all.filter((e) => relativeEdge(e) && !relative(root, join(root, e.to)).startsWith('..')),
    packages: all.filter((e) => !relativeEdge(e)),
  };
}

/**
 * Strongly connected groups of more than one node (Tarjan): each is an import loop. `nodes` in a
 * stable order, `next` the nodes each one imports.
 */
export function loops(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const n of nodes) if (!order.has(n)) connect(n);
  return found;
}

/** The folder a file is in: the node of the folder graph. */
export function folderOf(file: string): string {
  return dirname(file);
}

/** `from → to` between folders, with the files that make each arrow. */
export function folderArrows(graph: ImportGraph): Map<string, ImportEdge[]> {
  const arrows = new Map<string, ImportEdge[]>();
  for (const e of graph.edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b) continue;
    const key = `${a} → ${b}`;
    arrows.set(key, [...(arrows.get(key) ?? []), e]);
  }
  return arrows;
}

/** The folder graph's loops: each a set of folders that import each other, directly or around. */
export function folderLoops(graph: ImportGraph): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  const nodes = [...new Set(graph.files.map(folderOf))].sort();
  return loops(nodes, (n) => [...(next.get(n) ?? [])].sort());
}

/** The file graph's loops. */
export function fileLoops(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  return loops(graph.files, (n) => next.get(n) ?? []);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const graph = importGraph(['functions', 'infra']);
  const arrows = folderArrows(graph);
  // One write at the end: a reader that stops early (`| head`) then closes nothing we still write to.
  const lines: string[] = [];
  const out = (s: string) => lines.push(s);
  out(
    `${new Set(graph.files.map(folderOf)).size} folders, ${graph.files.length} files, ${graph.edges.length} imports, ${arrows.size} arrows between folders`,
  );
  for (const [arrow, edges] of [...arrows].sort(([a], [b]) => (a < b ? -1 : 1))) out(`  ${arrow}  (${edges.length})`);
  const folder = folderLoops(graph);
  out(`folder loops: ${folder.length}`);
  for (const l of folder) {
    out(`  ${l.join(' ⇄ ')}`);
    for (const [arrow, edges] of arrows) {
      const [a, b] = arrow.split(' → ');
      if (l.includes(a!) && l.includes(b!)) out(`    ${arrow}: ${edges.map((e) => `${e.from}:${e.line}`).join(', ')}`);
    }
  }
  const file = fileLoops(graph);
  out(`file loops: ${file.length}`);
  for (const l of file) out(`  ${l.join(' ⇄ ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
