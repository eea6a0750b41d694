/**
 * The layering rule checked over an import graph: every import of a room names a room its row allows
 * (type-only imports too), no file and no folder imports itself around, every folder is a room, only
 * the socket owners import Node's socket modules, and no comment turns the lint rule off. The rule
 * table is eslint.config.js's `LAYERS`, so ESLint and this checker read the same rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileLoops, folderLoops, loops, REPO, type ImportEdge, type ImportGraph } from './import-graph.ts';

export interface RoomRule {
  readonly may: readonly string[];
  /** Files beyond functions/ and infra/ the room may read (package.json). */
  readonly outside?: readonly string[];
  /** What the room is, in a few words. */
  readonly is: string;
}
export type RoomTable = Readonly<Record<string, RoomRule>>;

export interface NetOnly {
  readonly modules: RegExp;
  readonly owners: readonly string[];
}

/** The table ESLint reads (eslint.config.js is JavaScript: imported by URL, typed here). */
export async function ruleTable(): Promise<{ layers: RoomTable; netOnly: NetOnly }> {
  const mod = (await import(pathToFileURL(join(REPO, 'eslint.config.js')).href)) as { LAYERS: RoomTable; NET_ONLY: NetOnly };
  return { layers: mod.LAYERS, netOnly: mod.NET_ONLY };
}

export type Violation =
  | { readonly kind: 'forbidden'; readonly edge: ImportEdge; readonly from: string; readonly to: string }
  | { readonly kind: 'outside'; readonly edge: ImportEdge; readonly from: string }
  | { readonly kind: 'no-room'; readonly file: string }
  | { readonly kind: 'sockets'; readonly edge: ImportEdge; readonly from: string }
  | { readonly kind: 'file-loop'; readonly files: readonly string[] }
  | { readonly kind: 'folder-loop'; readonly folders: readonly string[] }
  | { readonly kind: 'table-loop'; readonly rooms: readonly string[] }
  | { readonly kind: 'unknown-room'; readonly room: string; readonly names: string };

/**
 * The room of a file: a one-file room, or the folder it sits in directly. A file in a folder that is
 * no room (not in the table) has none: a new folder needs a row of its own.
 */
export function roomOf(file: string, table: RoomTable): string | null {
  if (Object.hasOwn(table, file)) return file;
  const folder = file.slice(0, file.lastIndexOf('/'));
  return Object.hasOwn(table, folder) ? folder : null;
}

/** One line per violation, naming the file, the line and the rule. */
export function describeViolation(v: Violation): string {
  switch (v.kind) {
    case 'forbidden':
      return `${v.edge.from}:${v.edge.line} imports ${v.edge.to}${v.edge.typeOnly ? ' (type only)' : ''}: ${v.from} may not import ${v.to}`;
    case 'outside':
      return `${v.edge.from}:${v.edge.line} imports ${v.edge.to}, outside functions/ and infra/: ${v.from} may not`;
    case 'no-room':
      return `${v.file} is in no room: give its folder a row in LAYERS (eslint.config.js)`;
    case 'sockets':
      return `${v.edge.from}:${v.edge.line} imports ${v.edge.to}: sockets, TLS and fetch belong to functions/base/net/`;
    case 'file-loop':
      return `files import each other around: ${v.files.join(' ⇄ ')}`;
    case 'folder-loop':
      return `folders import each other around: ${v.folders.join(' ⇄ ')}`;
    case 'table-loop':
      return `the rule table lets rooms import each other around: ${v.rooms.join(' ⇄ ')}`;
    case 'unknown-room':
      return `${v.room} names ${v.names}, which is no room of the table`;
  }
}

export function checkLayers(graph: ImportGraph, table: RoomTable, netOnly: NetOnly): Violation[] {
  const out: Violation[] = [];
  for (const [room, rule] of Object.entries(table)) {
    for (const m of rule.may) if (!Object.hasOwn(table, m)) out.push({ kind: 'unknown-room', room, names: m });
  }
  const rooms = Object.keys(table);
  for (const group of loops(rooms, (r) => table[r]!.may.filter((m) => Object.hasOwn(table, m))))
    out.push({ kind: 'table-loop', rooms: group });
  for (const file of graph.files) if (roomOf(file, table) === null) out.push({ kind: 'no-room', file });
  for (const edge of graph.edges) {
    const from = roomOf(edge.from, table);
    if (from === null) continue;
    const inTree = edge.to.startsWith('functions/') || edge.to.startsWith('infra/');
    if (!inTree) {
      if (!(table[from]!.outside ?? []).includes(edge.to)) out.push({ kind: 'outside', edge, from });
      continue;
    }
    const to = roomOf(edge.to, table);
    if (to === from) continue;
    if (to === null || !table[from]!.may.includes(to)) out.push({ kind: 'forbidden', edge, from, to: to ?? edge.to });
  }
  for (const edge of graph.packages) {
    const from = roomOf(edge.from, table);
    if (from?.startsWith('functions/') && !netOnly.owners.includes(from) && netOnly.modules.test(edge.to))
      out.push({ kind: 'sockets', edge, from });
  }
  for (const files of fileLoops(graph)) out.push({ kind: 'file-loop', files });
  for (const folders of folderLoops(graph)) out.push({ kind: 'folder-loop', folders });
  return out;
}

/** The rules a disable comment names, or `[]` for one that names none (it turns every rule off). */
const DISABLE = /eslint-disable(?:-next-line|-line)?(?![\w-])([^\n*]*)/g;

/** Comments that turn the layer rules off, or every rule: `file:line` and the comment. */
export function layerDisables(files: readonly string[], root = REPO): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(DISABLE)) {
      const rules = m[1]!.split('--')[0]!.trim();
      if (rules === '' || /no-restricted-(imports|globals)/.test(rules)) {
        found.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0].trim()}`);
      }
    }
  }
  return found;
}
