/**
 * A list read entry by entry. The SDK checks a whole `tools/list` page against the MCP schema, so one
 * tool with a broken `inputSchema` failed the run even when the canary calls another tool. When the SDK
 * refuses a page for that, the pages of its walk are read here from the wire's record (each page's JSON
 * as it came), each entry checked against the spec's `Tool` on its own, and the walk goes on from the
 * last page's `nextCursor`. An unusable entry is named (its tool and the path inside it) and judged only
 * where it matters: the canary's own tool fails the step naming both; any other is left out of the list
 * and named in the step's line.
 */
import { SdkError, SdkErrorCode, specTypeSchemas, type Tool } from '@modelcontextprotocol/client';
import { shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass, Revision } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';

/** One entry the spec's `Tool` refuses: its name (or its place), and where inside it and why. */
export interface BadEntry {
  readonly name: string | null;
  readonly index: number;
  /** `inputSchema.type: Invalid input: expected "object"` — the first few issues. */
  readonly problems: readonly string[];
}

export interface TolerantList {
  readonly tools: Tool[];
  readonly bad: BadEntry[];
  readonly cacheScope: unknown;
}

/** Walks of the SDK's after a refused page, at most: a cursor that never ends is the server's loop. */
const MAX_WALKS = 20;

/**
 * `walk(cursor)` is the SDK's own listing from `cursor` (its pages land in `exchanges` from `from()` on).
 * Rethrows anything but the SDK's refusal of a page, and that too when no single entry explains it.
 */
export async function listEntryByEntry(
  walk: (cursor: string | undefined) => Promise<{ tools: Tool[]; cacheScope?: unknown }>,
  exchanges: () => readonly Exchange[],
  era: Revision,
): Promise<TolerantList> {
  const tools: Tool[] = [];
  const bad: BadEntry[] = [];
  let cacheScope: unknown;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < MAX_WALKS; n++) {
    const from = exchanges().length;
    try {
      const r = await walk(cursor);
      tools.push(...r.tools);
      cacheScope ??= r.cacheScope;
      break;
    } catch (e) {
      if (!(e instanceof SdkError && e.code === SdkErrorCode.InvalidResult)) throw e;
      const pages = exchanges()
        .slice(from)
        .filter((x) => x.rpcMethod === 'tools/list');
      let next: string | undefined;
      const before = bad.length;
      for (const x of pages) {
        const page = pageOf(x.answerText);
        if (!page) throw e;
        cacheScope ??= page.cacheScope;
        for (const entry of page.tools) {
          const checked = specTypeSchemas.Tool['~standard'].validate(entry);
          const problems = checked.issues ? checked.issues.slice(0, 3).map(describeIssue) : eraProblems(entry, era);
          if (!checked.issues && problems.length === 0) tools.push(checked.value as Tool);
          else bad.push({ name: nameOf(entry), index: tools.length + bad.length, problems });
        }
        next = page.nextCursor;
      }
      // No single entry explains the refusal: the page itself is broken, as the SDK said.
      if (bad.length === before) throw e;
      if (next === undefined || seen.has(next)) break;
      seen.add(next);
      cursor = next;
    }
  }
  return { tools, bad, cacheScope };
}

/**
 * What the era's own schema asks beyond the spec type the SDK exports: on 2025-11-25 an `outputSchema` is
 * an object schema (`type: "object"`), where 2026-07-28 allows any.
 */
function eraProblems(entry: unknown, era: Revision): string[] {
  const out = (entry as { outputSchema?: { type?: unknown } }).outputSchema;
  if (era !== Revision.legacy || out === undefined || out.type === 'object') return [];
  return [`outputSchema.type: expected "object" on ${Revision.legacy}`];
}

/** A tools/list page's frame from its JSON text: a `tools` array and an optional string `nextCursor`. */
function pageOf(text: string | null | undefined): { tools: unknown[]; nextCursor?: string; cacheScope?: unknown } | null {
  if (!text) return null;
  try {
    const result = (JSON.parse(text) as { result?: { tools?: unknown; nextCursor?: unknown; cacheScope?: unknown } }).result;
    if (!result || !Array.isArray(result.tools)) return null;
    return {
      tools: result.tools,
      ...(typeof result.nextCursor === 'string' ? { nextCursor: result.nextCursor } : {}),
      cacheScope: result.cacheScope,
    };
  } catch {
    return null;
  }
}

/** The canary tool's own entry is unusable: the step fails naming the tool and where its definition breaks. */
export function canaryEntryBroken(wanted: string, bad: readonly BadEntry[]): Fault | null {
  const own = bad.find((b) => b.name === wanted);
  if (!own) return null;
  return {
    failure: FailureClass.protocol,
    retryable: false,
    detail: `tools/list: the canary tool ${shownName(wanted)} is listed with a definition that breaks the MCP schema (${own.problems.join('; ')}) — no agent can use it`,
  };
}

/** `; 2 other entries unusable and left out: list_pairs (inputSchema.type: …), #3 (name: …)`, for the step's line. */
export function badEntriesWords(bad: readonly BadEntry[]): string {
  if (bad.length === 0) return '';
  const named = bad
    .slice(0, 3)
    .map((b) => `${b.name === null ? `entry #${b.index}` : shownName(b.name, 60)} (${b.problems.join('; ')})`)
    .join(', ');
  return `; ${bad.length} entr${bad.length === 1 ? 'y' : 'ies'} unusable and left out: ${named}${bad.length > 3 ? ', …' : ''}`;
}

function nameOf(entry: unknown): string | null {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : null;
}

function describeIssue(issue: {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}): string {
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
  return `${path ? `${oneLine(path, 80)}: ` : ''}${oneLine(issue.message, 120)}`;
}
