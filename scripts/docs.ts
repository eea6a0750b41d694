/**
 * `npm run docs`: writes the parts of the docs that are read from the code, each between its markers
 * (`<!-- name:start -->` … `<!-- name:end -->`), so they cannot drift from it:
 *
 * - CONTRIBUTING.md's room map, from `LAYERS` and `FLOORS` in eslint.config.js (the rule ESLint and
 *   test/unit/package/layers.test.ts enforce);
 * - docs/config.md's reference tables, from the fleet schema (functions/base/config/schema/) as
 *   `z.toJSONSchema` sees it: every field, its type, whether it is required, its default, and the
 *   description its `.meta({ description, defaultText? })` gives. A field without a description stops
 *   the script, naming it;
 * - docs/cli.md's help texts, from the CLI's own `--help`, `init --help`, `login --help` and `report --help`.
 *
 * `npm run docs -- --check` writes nothing and exits 1 naming each stale section;
 * test/unit/package/docs.test.ts holds the committed files to what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod';
import { Fleet } from '../functions/base/config/schema/fleet.ts';
import { HELP } from '../functions/cli/help.ts';
import { INIT_HELP } from '../functions/cli/init-help.ts';
import { LOGIN_HELP } from '../functions/cli/login.ts';
import { REPORT_HELP } from '../functions/cli/report.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** One generated part of a doc: the file, its marker name and what goes between the markers. */
export interface Section {
  readonly file: string;
  readonly name: string;
  readonly render: () => Promise<string>;
}

export const SECTIONS: readonly Section[] = [
  { file: 'CONTRIBUTING.md', name: 'room-map', render: async () => roomMap(await ruleTable()) },
  { file: 'docs/config.md', name: 'config-reference', render: async () => configReference() },
  { file: 'docs/cli.md', name: 'cli-help', render: async () => cliHelp() },
];

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The text between a section's markers, or undefined when the file has no such markers. */
export function readSection(text: string, name: string): string | undefined {
  const [start, end] = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) return undefined;
  return text
    .slice(from + start.length, to)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** The text with a section's body replaced; throws when the markers are missing (add them where the section belongs). */
export function writeSection(text: string, name: string, body: string): string {
  const [start, end] = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`no ${start} … ${end} markers: add them where the section belongs`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

/** Each section whose committed text differs from what the code says, as one line naming the file and the fix. */
export async function staleSections(read: (file: string) => string, sections: readonly Section[] = SECTIONS): Promise<string[]> {
  const stale: string[] = [];
  for (const s of sections) {
    const committed = readSection(read(s.file), s.name);
    if (committed === undefined) stale.push(`${s.file} has no ${markers(s.name)[0]} … ${markers(s.name)[1]} markers`);
    else if (committed !== (await s.render())) stale.push(`${s.file}: the ${s.name} section is stale: run npm run docs`);
  }
  return stale;
}

// ---------------------------------------------------------------------------------------------------
// The room map

export interface RoomRule {
  readonly may: readonly string[];
  readonly outside?: readonly string[];
  readonly is: string;
}
export interface RuleTable {
  readonly layers: Readonly<Record<string, RoomRule>>;
  readonly floors: Readonly<Record<string, string>>;
  readonly netOnly: { readonly owners: readonly string[] };
}

/** eslint.config.js's tables (it is JavaScript: imported by URL, typed here). */
export async function ruleTable(): Promise<RuleTable> {
  const mod = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as {
    LAYERS: RuleTable['layers'];
    FLOORS: RuleTable['floors'];
    NET_ONLY: RuleTable['netOnly'];
  };
  return { layers: mod.LAYERS, floors: mod.FLOORS, netOnly: mod.NET_ONLY };
}

const short = (room: string) => room.replace(/^functions\//, '');

/** The floors, bottom up, each with its rooms: path, what it is, what it may import. */
export function roomMap({ layers, floors, netOnly }: RuleTable): string {
  const floorOf = (room: string) => Object.keys(floors).find((f) => room === f || room.startsWith(`${f}/`));
  const lost = Object.keys(layers).filter((room) => floorOf(room) === undefined);
  if (lost.length) throw new Error(`room(s) on no floor: ${lost.join(', ')}: add the floor to FLOORS in eslint.config.js`);
  const out = [
    '<!-- Written by `npm run docs` from LAYERS and FLOORS in eslint.config.js: change the rule there, not here. -->',
    '',
    `The floors, bottom up. A room imports only what its row names (paths under \`functions/\` shortened); type-only imports count. Only ${netOnly.owners.map((o) => `\`${o}\``).join(' and ')} open sockets or call \`fetch\`.`,
  ];
  for (const [floor, words] of Object.entries(floors)) {
    out.push('', `#### \`${floor}\`: ${words}`, '', '| Room | What it is | May import |', '| --- | --- | --- |');
    for (const [room, rule] of Object.entries(layers)) {
      if (floorOf(room) !== floor) continue;
      const may = rule.may.length ? rule.may.map((m) => `\`${short(m)}\``).join(', ') : 'nothing of ours';
      const outside = rule.outside?.length ? `; and ${rule.outside.map((o) => `\`${o}\``).join(', ')}` : '';
      out.push(`| [\`${room}\`](${room}) | ${cell(rule.is)} | ${may}${outside} |`);
    }
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// The config reference

/** A JSON Schema node as `z.toJSONSchema` writes it, with the project's own meta keys. */
interface Node {
  readonly type?: string;
  readonly description?: string;
  /** The default in words, where the schema holds none (or a computed one). */
  readonly defaultText?: string;
  /** What a map's keys are, e.g. "probe region". @default - name */
  readonly keyName?: string;
  readonly default?: unknown;
  readonly properties?: Readonly<Record<string, Node>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: Node | boolean;
  readonly items?: Node;
  readonly anyOf?: readonly Node[];
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minItems?: number;
  readonly $ref?: string;
}

/** Each table: a heading and the path of the object it documents; a field on another table's path links there. */
const TABLES: ReadonlyArray<{ heading: string; path: string }> = [
  { heading: 'The fleet', path: '' },
  { heading: 'A target: `targets[]`', path: 'targets[]' },
  { heading: 'OAuth client credentials: `targets[].auth.oauth`', path: 'targets[].auth.oauth' },
  { heading: 'Delegated OAuth: `targets[].auth.authorizationCode`', path: 'targets[].auth.authorizationCode' },
  { heading: 'The egress proxy: `proxy`', path: 'proxy' },
  { heading: 'Maintenance windows: `maintenance[]`', path: 'maintenance[]' },
  { heading: 'The status page: `statusPage`', path: 'statusPage' },
  { heading: 'The SLO: `slo`', path: 'slo' },
  { heading: 'OpenTelemetry export: `telemetry`', path: 'telemetry' },
];

/** GitHub's anchor for a heading: lowercase, punctuation and symbols dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A field's type in words, read from its schema: enum values, ranges, the shape of each alternative. */
function typeOf(n: Node): string {
  if (n.$ref !== undefined || (n.type === undefined && n.anyOf === undefined && n.enum === undefined)) return 'JSON';
  if (n.anyOf) return n.anyOf.map(alternative).join(' or ');
  if (n.enum) return n.enum.map((v) => `\`${String(v)}\``).join(', ');
  switch (n.type) {
    case 'string':
      if (n.format === 'uri') return 'URL';
      if (n.format === 'email') return 'email';
      return 'string';
    case 'integer':
    case 'number': {
      const lo = n.exclusiveMinimum ?? n.minimum;
      const hi = n.exclusiveMaximum ?? (n.maximum !== undefined && n.maximum < Number.MAX_SAFE_INTEGER ? n.maximum : undefined);
      if (n.exclusiveMinimum !== undefined || n.exclusiveMaximum !== undefined) return `${n.type} in (${lo ?? '…'}, ${hi ?? '…'})`;
      if (lo !== undefined && hi !== undefined) return `${n.type}, ${lo}–${hi}`;
      if (lo !== undefined) return `${n.type} ≥ ${lo}`;
      return n.type;
    }
    case 'boolean':
      return 'boolean';
    case 'array': {
      const items = n.items ? typeOf(n.items) : 'JSON';
      const least = n.minItems ? `, at least ${n.minItems}` : '';
      if (n.items?.type === 'object' && n.items.properties) return `list of objects${least}`;
      return `list of ${items === 'string' || items === 'URL' ? `${items}s` : items}${least}`;
    }
    case 'object':
      if (n.properties) return 'object';
      if (typeof n.additionalProperties === 'object') return `map of ${n.keyName ?? 'name'} → ${typeOf(n.additionalProperties)}`;
      return 'object';
  }
  return n.type ?? 'JSON';
}

/** One alternative of a union: an object as `{ key, optional? }`, a string with a fixed prefix as `"prefix…"`. */
function alternative(n: Node): string {
  if (n.type === 'object' && n.properties) {
    const keys = Object.keys(n.properties).map((k) => (n.required?.includes(k) ? k : `${k}?`));
    return `\`{ ${keys.join(', ')} }\``;
  }
  const prefix = n.type === 'string' && n.pattern ? /^\^([A-Za-z:/]+)/.exec(n.pattern)?.[1] : undefined;
  if (prefix) return `\`"${prefix}<…>"\``;
  return typeOf(n);
}

function defaultOf(n: Node, required: boolean): string {
  if (required) return 'Required';
  if (n.defaultText !== undefined) return n.defaultText;
  if (n.default === undefined) return 'none';
  if (typeof n.default === 'string') return `\`${n.default}\``;
  if (n.default !== null && typeof n.default === 'object' && !Array.isArray(n.default) && Object.keys(n.default).length) return 'none';
  return `\`${JSON.stringify(n.default)}\``;
}

interface Row {
  readonly path: string;
  readonly type: string;
  readonly description: string;
  readonly default: string;
}

/** The rows of one table: every field under `root`, nested objects flattened, other tables' roots linked. */
function rowsOf(node: Node, root: string, undocumented: string[]): Row[] {
  const rows: Row[] = [];
  const roots = new Map(TABLES.map((t) => [t.path, t.heading]));
  const visit = (n: Node, path: string) => {
    const props = n.properties ?? {};
    for (const [key, child] of Object.entries(props)) {
      const full = path ? `${path}.${key}` : key;
      const required = n.required?.includes(key) ?? false;
      if (!child.description) undocumented.push(full);
      const linked = roots.get(full) ?? (child.type === 'array' ? roots.get(`${full}[]`) : undefined);
      const type = linked
        ? `${child.type === 'array' ? 'list' : 'object'}: see [${linked.replace(/`/g, '')}](#${slug(linked)})`
        : typeOf(child);
      rows.push({
        path: root && full.startsWith(`${root}.`) ? full.slice(root.length + 1) : full,
        type,
        description: child.description ?? '',
        default: defaultOf(child, required),
      });
      if (linked) continue;
      if (child.type === 'object' && child.properties) visit(child, full);
      else if (child.type === 'object' && typeof child.additionalProperties === 'object' && child.additionalProperties.properties)
        visit(child.additionalProperties, `${full}.<${child.keyName ?? 'name'}>`);
      else if (child.type === 'array' && child.items?.type === 'object' && child.items.properties) visit(child.items, `${full}[]`);
    }
  };
  visit(node, root);
  return rows;
}

/** The node at a table's path (`targets[].auth.oauth`). */
function nodeAt(schema: Node, path: string): Node {
  let n = schema;
  for (const part of path ? path.split('.') : []) {
    const key = part.replace(/\[\]$/, '');
    const next = n.properties?.[key];
    if (!next) throw new Error(`the config schema has no ${path}: update TABLES in scripts/docs.ts`);
    n = part.endsWith('[]') ? next.items! : next;
  }
  return n;
}

/** Every table of the fleet config, from the schema; throws naming every field that has no description. */
export function configReference(): string {
  const schema = z.toJSONSchema(Fleet, { io: 'input', unrepresentable: 'any', reused: 'inline' }) as Node;
  const undocumented: string[] = [];
  const out = [
    '<!-- Written by `npm run docs` from the schemas in functions/base/config/schema/: change a field and its .meta() there, not here. -->',
  ];
  for (const t of TABLES) {
    const rows = rowsOf(nodeAt(schema, t.path), t.path, undocumented);
    out.push('', `### ${t.heading}`, '', '| Parameter | Type | Description | Default |', '| --- | --- | --- | --- |');
    for (const r of rows) out.push(`| \`${r.path}\` | ${cell(r.type)} | ${cell(r.description)} | ${cell(r.default)} |`);
  }
  if (undocumented.length)
    throw new Error(
      `config field(s) without a description: ${undocumented.join(', ')}. Add .meta({ description: '…' }) to each in functions/base/config/schema/`,
    );
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// The CLI's help

export function cliHelp(): string {
  const block = (heading: string, text: string) => ['', `### ${heading}`, '', '```text', text.trimEnd(), '```'];
  return [
    "<!-- Written by `npm run docs` from the CLI's help texts (functions/cli/help.ts, init-help.ts, login.ts, report.ts): the command prints the same. -->",
    ...block('`mcp-canary --help`', HELP),
    ...block('`mcp-canary init --help`', INIT_HELP),
    ...block('`mcp-canary login --help`', LOGIN_HELP),
    ...block('`mcp-canary report --help`', REPORT_HELP),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
  if (check) {
    const stale = await staleSections(read);
    for (const line of stale) process.stderr.write(`docs: ${line}\n`);
    return stale.length ? 1 : 0;
  }
  for (const s of SECTIONS) {
    const before = read(s.file);
    const after = writeSection(before, s.name, await s.render());
    if (after === before) continue;
    writeFileSync(join(ROOT, s.file), after);
    process.stderr.write(`docs: wrote the ${s.name} section of ${s.file}\n`);
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`docs: ${(e as Error).message}\n`);
      process.exit(2);
    },
  );
}
