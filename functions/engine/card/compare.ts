/**
 * Pure: what a Server Card says against what the server answered this run (its handshake: the
 * `server/discover` result on 2026-07-28, `initialize` on 2025-11-25; and tools/list), and against the
 * card read before. Each finding is one phrase; the caller makes them warnings.
 */
import { shownName } from '../../base/common/names.ts';
import type { ServerCard } from './card.ts';

/** What this run's handshake and listing showed. */
export interface Handshake {
  readonly server: { readonly name: string; readonly version: string } | null;
  /** The revision negotiated, exactly. */
  readonly revision: string | null;
  /** The versions `server/discover` offered (2026-07-28), or null on a 2025 handshake. */
  readonly offered: readonly string[] | null;
  /** The capability names the server declared, `experimental` left out. */
  readonly capabilities: readonly string[];
  /** The tools tools/list named, or null when the run did not list them (or listed them behind an auth wall). */
  readonly tools: readonly string[] | null;
}

const list = (xs: readonly string[]) =>
  xs
    .slice(0, 6)
    .map((x) => shownName(x, 60))
    .join(', ') + (xs.length > 6 ? ', …' : '');
const handshakeName = (h: Handshake) => (h.offered ? 'server/discover' : 'initialize');

/** Where the card and this run's answers disagree. */
export function contradictions(card: ServerCard, h: Handshake): string[] {
  const found: string[] = [];
  if (h.server) {
    if (!sameName(card, h.server.name))
      found.push(`the card names the server "${shownName(card.name)}", ${handshakeName(h)} "${shownName(h.server.name)}"`);
    if (bareVersion(card.version) !== bareVersion(h.server.version))
      found.push(`the card says version ${shownName(card.version)}, ${handshakeName(h)} ${shownName(h.server.version)}`);
  }
  if (card.protocolVersions) {
    if (h.offered) {
      const onlyCard = card.protocolVersions.filter((v) => !h.offered!.includes(v));
      const onlyServer = h.offered.filter((v) => !card.protocolVersions!.includes(v));
      if (onlyCard.length || onlyServer.length)
        found.push(`the card lists protocol versions ${list(card.protocolVersions)}, server/discover offers ${list(h.offered)}`);
    } else if (h.revision && !card.protocolVersions.includes(h.revision)) {
      found.push(`the card lists protocol versions ${list(card.protocolVersions)}, and the server negotiated ${shownName(h.revision)}`);
    }
  }
  const onlyCard = card.capabilities.filter((c) => !h.capabilities.includes(c));
  const onlyServer = h.capabilities.filter((c) => !card.capabilities.includes(c));
  if (onlyCard.length) found.push(`the card declares ${list(onlyCard)}, which ${handshakeName(h)} does not`);
  if (onlyServer.length) found.push(`${handshakeName(h)} declares ${list(onlyServer)}, which the card does not`);
  if (card.tools && h.tools) {
    const missing = card.tools.filter((t) => !h.tools!.includes(t));
    const unlisted = h.tools.filter((t) => !card.tools!.includes(t));
    if (missing.length) found.push(`the card lists tool(s) ${list(missing)} that tools/list does not`);
    if (unlisted.length) found.push(`tools/list names ${list(unlisted)}, which the card's static tools do not`);
  }
  return found;
}

/** What changed in the card since it was last read. */
export function cardDrift(was: ServerCard, now: ServerCard): string[] {
  const changes: string[] = [];
  if (was.name !== now.name) changes.push(`name "${shownName(was.name)}" → "${shownName(now.name)}"`);
  if (was.version !== now.version) changes.push(`version ${shownName(was.version)} → ${shownName(now.version)}`);
  const diff = (what: string, a: readonly string[] | null, b: readonly string[] | null) => {
    if (a === null && b === null) return;
    const added = (b ?? []).filter((x) => !(a ?? []).includes(x));
    const removed = (a ?? []).filter((x) => !(b ?? []).includes(x));
    if (added.length) changes.push(`${what} added: ${list(added)}`);
    if (removed.length) changes.push(`${what} removed: ${list(removed)}`);
  };
  diff('protocol versions', was.protocolVersions, now.protocolVersions);
  diff('capabilities', was.capabilities, now.capabilities);
  diff('tools', was.tools, now.tools);
  return changes;
}

/** The card's reverse-DNS name, its last part or its title is the server's name (case, punctuation and one containing the other aside). */
function sameName(card: ServerCard, server: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const s = norm(server);
  if (s === '') return true;
  const forms = [card.name, card.name.slice(card.name.lastIndexOf('/') + 1), ...(card.title ? [card.title] : [])].map(norm).filter(Boolean);
  return forms.some((f) => f === s || f.includes(s) || s.includes(f));
}

function bareVersion(v: string): string {
  return v.trim().replace(/^v(?=\d)/i, '');
}
