/**
 * Pure: which listed tools `mcp-canary init` may propose as the canary, in order. A good canary is
 * read-only and cheap: annotated `readOnlyHint: true` (and not `destructiveHint: true`) in every listing
 * of its name — the gate `check` itself applies (probe/tool.ts) — and callable without asking anyone for
 * arguments: none required, or each required one filled from its own schema (`default`, `examples`,
 * `enum`, `const`). A tool not annotated read-only is only ever called after the user says yes; one
 * annotated `destructiveHint: true` never is.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { shownName } from '../../base/common/names.ts';

/** `read-only`: init calls it; `ask`: only after a yes; `never`: annotated destructive, never called. */
export type Gate = 'read-only' | 'ask' | 'never';

export interface Candidate {
  readonly name: string;
  readonly gate: Gate;
  /** The arguments filled from the schema, or null when a required one has nothing to fill it with. */
  readonly arguments: Record<string, unknown> | null;
  /** Required arguments the schema gives no value for. */
  readonly unfilled: readonly string[];
  readonly hasOutputSchema: boolean;
  /** Why it stands where it does, in one short phrase. */
  readonly why: string;
}

/** Names that say "cheap and about the server itself": ranked first among equals. */
const CHEAP_NAME = /(^|[_.-])(ping|health|status|version|info|whoami|list|get)([_.-]|$)/i;

/** Every distinct tool name, best canary first: read-only before ask before never, fillable before not, fewer arguments first. */
export function rankCandidates(tools: readonly Tool[]): Candidate[] {
  const byName = new Map<string, Tool[]>();
  for (const t of tools) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
  const candidates = [...byName.entries()].map(([name, listings]) => candidateOf(name, listings));
  return candidates.sort((a, b) => score(a) - score(b) || a.name.localeCompare(b.name));
}

/** The first candidate init may call after a yes, or null. */
export function bestToAsk(candidates: readonly Candidate[]): Candidate | null {
  return candidates.find((c) => c.gate === 'ask' && c.arguments !== null) ?? null;
}

function candidateOf(name: string, listings: readonly Tool[]): Candidate {
  const gate = gateOf(listings);
  const fill = fillArguments(listings[0]!.inputSchema);
  const hasOutputSchema = listings.every((t) => t.outputSchema !== undefined);
  const args = fill.unfilled.length === 0 ? fill.value : null;
  const why = [
    gate === 'read-only' ? 'read-only' : gate === 'never' ? 'annotated destructiveHint: true' : annotationWords(listings),
    listings.length > 1 ? `listed ${listings.length} times` : null,
    fill.unfilled.length > 0
      ? `needs ${fill.unfilled.map((u) => shownName(u, 40)).join(', ')} (no default, example or enum)`
      : Object.keys(fill.value).length > 0
        ? `arguments from its schema: ${Object.keys(fill.value)
            .map((k) => shownName(k, 40))
            .join(', ')}`
        : 'no arguments needed',
  ];
  return { name, gate, arguments: args, unfilled: fill.unfilled, hasOutputSchema, why: why.filter(Boolean).join('; ') };
}

/** The call step's rule (every listing of the name read-only), and none annotated destructive. */
function gateOf(listings: readonly Tool[]): Gate {
  // destructiveHint beside readOnlyHint contradicts itself: the destructive word wins here.
  if (listings.some((t) => t.annotations?.destructiveHint === true)) return 'never';
  if (listings.every((t) => t.annotations?.readOnlyHint === true)) return 'read-only';
  return 'ask';
}

function annotationWords(listings: readonly Tool[]): string {
  const a = listings.find((t) => t.annotations?.readOnlyHint !== true)?.annotations;
  // MCP's defaults: a tool not annotated read-only may write, and may be destructive.
  if (!a) return 'no annotations (by MCP defaults it may write)';
  return 'not annotated readOnlyHint: true';
}

function score(c: Candidate): number {
  const gate = { 'read-only': 0, ask: 1000, never: 2000 }[c.gate];
  const fill = c.arguments === null ? 500 : Object.keys(c.arguments).length * 10;
  return gate + fill + (c.hasOutputSchema ? 0 : 2) + (CHEAP_NAME.test(c.name) ? 0 : 1);
}

interface Filled {
  readonly value: Record<string, unknown>;
  readonly unfilled: string[];
}

/** The required properties of an object schema, each from its own default, examples, enum or const (nested objects too). */
export function fillArguments(schema: unknown, prefix = ''): Filled {
  const s = asObject(schema);
  const properties = asObject(s?.properties) ?? {};
  const required = Array.isArray(s?.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
  const value: Record<string, unknown> = {};
  const unfilled: string[] = [];
  for (const key of required) {
    const filled = valueFromSchema(properties[key], `${prefix}${key}`);
    if (filled.unfilled.length > 0) unfilled.push(...filled.unfilled);
    else value[key] = filled.value;
  }
  return { value, unfilled };
}

function valueFromSchema(schema: unknown, path: string): { value: unknown; unfilled: string[] } {
  const s = asObject(schema);
  if (!s) return { value: undefined, unfilled: [path] };
  if ('default' in s) return { value: s.default, unfilled: [] };
  if (Array.isArray(s.examples) && s.examples.length > 0) return { value: s.examples[0], unfilled: [] };
  if ('const' in s) return { value: s.const, unfilled: [] };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { value: s.enum[0], unfilled: [] };
  if (s.type === 'object' || asObject(s.properties)) {
    const inner = fillArguments(s, `${path}.`);
    return { value: inner.value, unfilled: inner.unfilled };
  }
  return { value: undefined, unfilled: [path] };
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
