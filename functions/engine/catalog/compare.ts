/**
 * The live `tools/list` against the recorded catalog → one `catalog_drift` warning per changed tool.
 * Pure: no I/O. A warning never changes the outcome; it reaches the ticket tier, never the pager.
 */
import { WarningKind, type Warning } from '../../base/common/verdict.ts';
import { oneLine } from '../../base/common/redact.ts';
import { catalogParts, fingerprintTool, parseFingerprint, type CatalogPart, type ToolShape } from './fingerprint.ts';
import { credentialId } from './credential.ts';
import type { CatalogSetting, ToolFingerprints } from '../../base/config/schema/catalog.ts';

/** Warnings per run before the rest are summed up in one: a rewritten catalog must not flood a ticket. */
export const MAX_DRIFT_WARNINGS = 20;

const PART_WORDS: Record<CatalogPart, string> = {
  description: 'description',
  inputSchema: 'input schema',
  outputSchema: 'output schema',
  annotations: 'annotations',
};

export interface CompareOptions {
  /** The canary tool: its removal is `tool_missing` (a page), not drift; readOnlyHint dropped on it is called out. */
  readonly canaryTool?: string | undefined;
  /** A flow's other tools, held to the same: each one's removal is `tool_missing` already. */
  readonly flowTools?: readonly string[];
}

/** One change, in words, before it becomes a Warning (exported for the CLI and tests). */
export interface ToolChange {
  readonly tool: string;
  readonly change: 'added' | 'removed' | 'changed';
  readonly parts: readonly CatalogPart[];
  /** readOnlyHint was true when recorded and is not any more. */
  readonly readOnlyDropped: boolean;
}

export function diffCatalog(live: readonly ToolShape[], recorded: ToolFingerprints, opts: CompareOptions = {}): ToolChange[] {
  const changes: ToolChange[] = [];
  const liveByName = new Map(live.map((t) => [t.name, t]));
  for (const [name, fp] of Object.entries(recorded)) {
    const tool = liveByName.get(name);
    if (!tool) {
      // The canary tool gone is `tool_missing` already, and pages: no second word for it here.
      if (name !== opts.canaryTool && !opts.flowTools?.includes(name))
        changes.push({ tool: name, change: 'removed', parts: [], readOnlyDropped: false });
      continue;
    }
    const was = parseFingerprint(fp);
    const now = parseFingerprint(fingerprintTool(tool));
    if (!was || !now) continue; // the schema checked the recorded form; the live one is ours
    const parts = catalogParts.filter((p) => was.parts[p] !== now.parts[p]);
    const readOnlyDropped = was.readOnly && !now.readOnly;
    if (parts.length > 0 || readOnlyDropped) changes.push({ tool: name, change: 'changed', parts, readOnlyDropped });
  }
  for (const t of live) {
    if (!Object.hasOwn(recorded, t.name)) changes.push({ tool: t.name, change: 'added', parts: [], readOnlyDropped: false });
  }
  return changes.sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}

function describeChange(c: ToolChange, canaryTools: readonly string[]): string {
  const name = JSON.stringify(oneLine(c.tool, 80));
  if (c.change === 'added') return `catalog drift: tool ${name} added`;
  if (c.change === 'removed') return `catalog drift: tool ${name} removed`;
  const words = c.parts.map((p) => PART_WORDS[p]).join(', ');
  let detail = `catalog drift: tool ${name} changed: ${words}`;
  if (c.readOnlyDropped) {
    detail += canaryTools.includes(c.tool)
      ? ' — readOnlyHint is no longer true on the canary tool: the canary will refuse to call it (unsafe_tool)'
      : ' — readOnlyHint is no longer true';
  }
  return detail;
}

/** The recorded map to compare with, for the credential this run speaks with. */
export function recordedFor(
  catalog: CatalogSetting,
  headers: Readonly<Record<string, string>>,
): { map: ToolFingerprints } | { missing: string } {
  if (!('byCredential' in catalog) || typeof catalog.byCredential !== 'object') return { map: catalog as ToolFingerprints };
  const id = credentialId(headers);
  const map = (catalog.byCredential as Record<string, ToolFingerprints>)[id];
  return map ? { map } : { missing: id };
}

/**
 * The warnings of one run: compares `live` with the recorded catalog for the run's credential. A
 * per-credential catalog with no entry for this credential is one warning saying how to record it.
 */
export function compareCatalog(
  live: readonly ToolShape[],
  catalog: CatalogSetting,
  headers: Readonly<Record<string, string>>,
  opts: CompareOptions = {},
): Warning[] {
  const recorded = recordedFor(catalog, headers);
  if ('missing' in recorded) {
    return [
      {
        kind: WarningKind.catalogDrift,
        detail: `catalog drift: no catalog recorded for this credential (${recorded.missing}); the tool list is private per credential. Record it with \`mcp-canary snapshot\` and the same headers`,
      },
    ];
  }
  const changes = diffCatalog(live, recorded.map, opts);
  const warnings: Warning[] = changes.slice(0, MAX_DRIFT_WARNINGS).map((c) => ({
    kind: WarningKind.catalogDrift,
    detail: describeChange(c, [...(opts.canaryTool !== undefined ? [opts.canaryTool] : []), ...(opts.flowTools ?? [])]),
  }));
  if (changes.length > MAX_DRIFT_WARNINGS) {
    warnings.push({
      kind: WarningKind.catalogDrift,
      detail: `catalog drift: ${changes.length - MAX_DRIFT_WARNINGS} more tool(s) changed; run \`mcp-canary snapshot\` to see the whole catalog`,
    });
  }
  return warnings;
}
