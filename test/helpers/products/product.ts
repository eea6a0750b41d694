/**
 * What the harness needs to know about one real product MCP server from npm: how to start it against
 * a loopback upstream, which read-only tool a canary calls on it, how its upstream API answers, and
 * how the product reports that upstream's failures to an MCP client.
 */
import type { UpstreamApi, UpstreamState } from './upstream.ts';

export type Revision = '2026-07-28' | '2025-11-25';

/** How a product tells its MCP client that the upstream failed. */
export type Report =
  /** a tools/call result with `isError: true` */
  | 'isError'
  /** a JSON-RPC error answer to tools/call (e.g. -32603) */
  | 'json-rpc-error'
  /** an ordinary result whose text is the upstream's error body */
  | 'ordinary-result';

export interface StartArgs {
  readonly port: number;
  /** The stub's base URL, e.g. `http://127.0.0.1:41234`. */
  readonly upstream: string;
}

export interface Product {
  /** Names the test file, the namespace run and the canary targets. */
  readonly name: string;
  /** The npm package and its exact version (a devDependency). */
  readonly pkg: string;
  /** The server's entry point, relative to node_modules. */
  readonly entry: string;
  args(a: StartArgs): string[];
  /** The server's environment (the harness adds PATH, HOME and the telemetry switches). */
  env(a: StartArgs): Record<string, string>;
  /** The MCP endpoint's path. */
  readonly path: string;
  /** The upstream API key the server is given: it must appear in no output of the canary. */
  readonly key: string;
  /** The bearer the canary sends to the MCP endpoint, if the server requires one. */
  readonly mcpToken?: string;
  /** The revisions the server speaks, newest first (what `auto` settles on): each is run pinned besides `auto`. */
  readonly speaks: readonly Revision[];
  /** The canary tool: annotated `readOnlyHint: true` by the product. */
  readonly tool: {
    readonly name: string;
    readonly arguments: Record<string, unknown>;
    readonly expectText?: string;
    readonly expectJson?: Record<string, unknown>;
  };
  readonly upstream: UpstreamApi;
  /** How the product reports a revoked key and a dead upstream (seen by running it). */
  readonly reports: { readonly revoked: Report; readonly dead: Report };
  /** The upstream's (or product's) own words the verdict's detail must carry. */
  readonly words: { readonly revoked: RegExp; readonly dead: RegExp };
}

const REVISIONS: readonly Revision[] = ['2026-07-28', '2025-11-25'];

/**
 * The canary targets of one upstream state, one per revision setting: `auto`, every revision the server
 * speaks, and (healthy state only) the ones it does not, which must be `revision`.
 */
export function canaryTargets(p: Product, state: UpstreamState): { name: string; revision: 'auto' | Revision }[] {
  const pins = REVISIONS.filter((r) => p.speaks.includes(r) || state === 'healthy');
  return [{ name: `${p.name}-auto`, revision: 'auto' }, ...pins.map((r) => ({ name: `${p.name}-${r}`, revision: r }))];
}
