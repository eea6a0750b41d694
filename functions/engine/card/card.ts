/**
 * Pure: an MCP Server Card (SEP-2127) read into what the canary compares. A card is served at the
 * origin's `/.well-known/mcp/server-card` as JSON: `name` (reverse-DNS, `io.acme/rates`) and `version`
 * required, `title`, `remotes[]` (each `type`, `url`, `supportedProtocolVersions`), `capabilities`
 * (ServerCapabilities), static `tools[]` (dynamic when `capabilities.tools.listChanged` is true).
 * Everything read is server-supplied text: cut to one bounded line here, escaped where it is shown.
 */
import { oneLine } from '../../base/common/redact.ts';

/** The well-known path of SEP-2127, at the origin's root (RFC 8615). */
export const SERVER_CARD_PATH = '/.well-known/mcp/server-card';

export interface ServerCard {
  readonly name: string;
  readonly version: string;
  readonly title: string | null;
  /** The protocol versions the card lists for this target's remote, or null when it names none for it. */
  readonly protocolVersions: readonly string[] | null;
  /** The top-level capability names (`tools`, `resources`, …), `experimental` left out. */
  readonly capabilities: readonly string[];
  /** The static tool names, or null when the card lists none or says they change at runtime. */
  readonly tools: readonly string[] | null;
}

/** The card's URL for a target: its origin's well-known location. */
export function serverCardUrl(targetUrl: string): string {
  return `${new URL(targetUrl).origin}${SERVER_CARD_PATH}`;
}

/** The card, or why the JSON is not one (one phrase). */
export function readCard(json: unknown, targetUrl: string): ServerCard | { problem: string } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { problem: 'not a JSON object' };
  const c = json as Record<string, unknown>;
  if (typeof c.name !== 'string' || c.name === '') return { problem: 'no "name"' };
  if (typeof c.version !== 'string' || c.version === '') return { problem: 'no "version"' };
  const caps = c.capabilities !== null && typeof c.capabilities === 'object' ? (c.capabilities as Record<string, unknown>) : {};
  const dynamic = (caps.tools as { listChanged?: unknown } | undefined)?.listChanged === true;
  const tools =
    Array.isArray(c.tools) && !dynamic ? c.tools.map((t) => (t as { name?: unknown })?.name).filter((n) => typeof n === 'string') : null;
  return {
    name: oneLine(c.name, 120),
    version: oneLine(c.version, 60),
    title: typeof c.title === 'string' ? oneLine(c.title, 120) : null,
    protocolVersions: remoteVersions(c.remotes, targetUrl),
    capabilities: Object.keys(caps)
      .filter((k) => k !== 'experimental')
      .map((k) => oneLine(k, 40))
      .sort(),
    tools: tools ? tools.map((n) => oneLine(n as string, 80)).sort() : null,
  };
}

/**
 * The `supportedProtocolVersions` of the remote this target speaks to: the one whose URL is the
 * target's (query and trailing slash aside), else the only streamable-http remote.
 */
function remoteVersions(remotes: unknown, targetUrl: string): string[] | null {
  if (!Array.isArray(remotes)) return null;
  const bare = (u: string) => {
    try {
      const x = new URL(u);
      return `${x.origin}${x.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u;
    }
  };
  const entries = remotes.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object');
  const same = entries.find((r) => typeof r.url === 'string' && bare(r.url) === bare(targetUrl));
  const http = entries.filter((r) => r.type === 'streamable-http');
  const remote = same ?? (http.length === 1 ? http[0] : undefined);
  const versions = remote?.supportedProtocolVersions;
  if (!Array.isArray(versions)) return null;
  return versions.filter((v): v is string => typeof v === 'string').map((v) => oneLine(v, 40));
}
