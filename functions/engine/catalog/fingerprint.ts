/**
 * A tool catalog's fingerprint: per tool, short stable hashes of the parts an agent depends on, so a
 * warning can say *which* part changed without the config holding whole schemas.
 *
 *   get_rate → "d:1f0c2a9e;i:7b3d0c11;o:-;a:5e2f9a04;r:1"
 *
 * `d` description, `i` inputSchema, `o` outputSchema, `a` annotations (`-` when absent), `r` whether
 * the tool is annotated `readOnlyHint: true` (1) or not (0) — kept in clear so "readOnlyHint turned
 * false" can be named, which a hash alone cannot say.
 */
import { createHash } from 'node:crypto';
import { FINGERPRINT_PATTERN, HASH_HEX_CHARS } from '../../base/config/schema/catalog.ts';

/** The parts a fingerprint names, in the order the string carries them. */
export const CatalogPart = {
  description: 'd',
  inputSchema: 'i',
  outputSchema: 'o',
  annotations: 'a',
} as const;
export type CatalogPart = keyof typeof CatalogPart;
export const catalogParts = Object.keys(CatalogPart) as CatalogPart[];

/** What of a listed tool the fingerprint reads (the SDK's `Tool` fits). */
export interface ToolShape {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

export interface Fingerprint {
  readonly parts: Readonly<Record<CatalogPart, string>>;
  readonly readOnly: boolean;
}

/**
 * JSON with object keys sorted at every depth and no whitespace, so two schemas that differ only in
 * key order or formatting hash the same. Hand-written: RFC 8785 libraries exist (`canonicalize`), but
 * not among this project's dependencies, and sorting keys is all a fingerprint needs (numbers keep
 * JSON.stringify's form, which is RFC 8785's for finite numbers).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_HEX_CHARS);
}

/**
 * A description's words, not its layout: a re-wrapped or re-indented description is the same text to
 * an agent, a changed word is not.
 */
function normalizeDescription(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export function fingerprintTool(tool: ToolShape): string {
  const part = (v: unknown) => (v === undefined || v === null ? '-' : hash(canonicalJson(v)));
  const d = tool.description === undefined ? '-' : hash(normalizeDescription(tool.description));
  const readOnly = (tool.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true;
  return `d:${d};i:${part(tool.inputSchema)};o:${part(tool.outputSchema)};a:${part(tool.annotations)};r:${readOnly ? 1 : 0}`;
}

/** `{ "<tool>": "<fingerprint>" }`, tools in name order (stable output for diffs and config files). */
export function fingerprintCatalog(tools: readonly ToolShape[]): Record<string, string> {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Object.fromEntries(sorted.map((t) => [t.name, fingerprintTool(t)]));
}

/** The parts of a fingerprint string; `null` when it is not one. */
export function parseFingerprint(s: string): Fingerprint | null {
  if (!FINGERPRINT_PATTERN.test(s)) return null;
  const fields = Object.fromEntries(s.split(';').map((f) => [f.slice(0, 1), f.slice(2)]));
  const parts = Object.fromEntries(catalogParts.map((p) => [p, fields[CatalogPart[p]]!])) as Record<CatalogPart, string>;
  return { parts, readOnly: fields.r === '1' };
}
