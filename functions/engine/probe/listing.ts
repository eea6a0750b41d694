/**
 * Pure: what tools/list said, in on-call's words — the server without the tools capability, the listing
 * that names the canary tool, the one that does not (look-alike characters shown as code points).
 */
import type { Tool } from '@modelcontextprotocol/client';
import { hasLookAlike, shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import { faulted, passed, type Fault, type StepResult } from '../../base/common/step.ts';
import { FailureClass, type NegotiatedRevision } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';
import type { Session } from './session.ts';

/** What tools/list gave the call step: the whole list, every listing of the canary tool, how often the wire named it. */
export interface Listing {
  readonly tools: readonly Tool[];
  readonly listings: readonly Tool[];
  readonly onWire: number;
}

/**
 * Never list what the server does not advertise. A server of resources or prompts only is a valid MCP
 * server: healthy, unless the target names a canary tool it cannot have (then `tool_missing`). Null when
 * the server advertises tools.
 */
export function capabilitiesWithoutTools(s: Session, canaryTool: string | undefined, identity: string): StepResult<null> | null {
  const caps = s.client.getServerCapabilities();
  if (caps?.tools) return null;
  const offered =
    Object.keys(caps ?? {})
      .filter((k) => k !== 'experimental')
      .map((k) => oneLine(k, 30))
      .join(', ') || 'none';
  if (canaryTool === undefined)
    return passed(null, `${identity}: connected; the server advertises no tools capability (capabilities: ${offered}), so nothing to list`);
  return faulted({
    failure: FailureClass.toolMissing,
    retryable: false,
    detail: `tools/list: the server does not advertise the tools capability (capabilities: ${offered}), so it has no ${canaryTool}`,
  });
}

/**
 * How many times the pages of one tools/list walk named `wanted` on the wire, before the client dropped
 * any: every page counts (a name listed once per page is listed twice), not only the last. A page whose
 * names were not recorded counts what the client kept, so the answer is never below `kept`.
 */
export function namedOnWire(exchanges: readonly Exchange[], wanted: string | undefined, kept: number): number {
  if (wanted === undefined) return kept;
  const pages = exchanges.filter((x) => x.rpcMethod === 'tools/list' && x.toolNames);
  const named = pages.reduce((n, x) => n + x.toolNames!.filter((t) => t === wanted).length, 0);
  return Math.max(named, kept);
}

export function listedDetail(tools: readonly Tool[], canaryTool: string | undefined): string {
  return `${tools.length} tool(s)${canaryTool !== undefined ? `, including ${shownName(canaryTool)}` : ''}`;
}

/** tools/list does not name the canary tool: what it does name, look-alike characters shown as code points. */
export function toolMissing(wanted: string, tools: readonly Tool[], onWire: boolean, revision: NegotiatedRevision | null): Fault {
  return { failure: FailureClass.toolMissing, retryable: false, detail: missingDetail(wanted, tools, onWire, revision) };
}

function missingDetail(wanted: string, tools: readonly Tool[], onWire: boolean, revision: NegotiatedRevision | null): string {
  // The server listed it, and the client dropped it: on 2026-07-28 the SDK excludes a tool whose
  // inputSchema declares an invalid x-mcp-header (SEP-2243); no agent on this era can call it.
  if (onWire)
    return `tools/list: the server lists "${shownName(wanted, 60)}", but its definition is unusable on ${revision}: the client excludes it (an invalid x-mcp-header declaration in its inputSchema, SEP-2243)`;
  const names = tools.slice(0, 8).map((t) => shownName(t.name, 60));
  const lookAlike = tools.some((t) => hasLookAlike(t.name)) ? '; names with characters outside ASCII are shown as code points' : '';
  return `tools/list: no tool named "${shownName(wanted)}" among ${tools.length} (${names.join(', ')}${tools.length > 8 ? ', …' : ''})${lookAlike}`;
}
