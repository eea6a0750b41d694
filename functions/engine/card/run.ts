/**
 * The Server Card of a run that reached the server (SEP-2127): read at the origin's well-known location
 * after the verdict's timing, compared with this run's handshake and listing, and with the card read
 * before (its ETag sent as `If-None-Match`). Warnings only (`server_card`): a card never changes the
 * outcome, and a card that cannot be read is never a failure — it warns only when a card was served
 * before (a 404 then says it is no longer served); a server that never served one is not asked twice
 * for it to be heard.
 */
import type { RunContext } from '../../base/common/run-context.ts';
import { WarningKind, type Warning } from '../../base/common/verdict.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { Connections } from '../../base/net/connections.ts';
import { readCard, serverCardUrl } from './card.ts';
import { cardDrift, contradictions, type Handshake } from './compare.ts';
import { processCards, type CardMemory } from './memory.ts';
import { fetchCard } from './read.ts';

/** Findings per run before the rest are counted in one line: a rewritten card must not flood a ticket. */
export const MAX_CARD_WARNINGS = 6;

/** The card's own timeout, below the request timeout: it is read after the verdict, and billed time is time. */
export const CARD_TIMEOUT_MS = 3_000;

export async function serverCardWarnings(
  target: Target,
  handshake: Handshake,
  ctx: RunContext,
  memory: CardMemory = processCards,
): Promise<Warning[]> {
  const url = serverCardUrl(target.url);
  const timeoutMs = Math.min(target.timeoutMs, CARD_TIMEOUT_MS, ctx.remainingMs());
  const before = memory.get(url);
  if (timeoutMs < 1 || (!before && memory.absentRecently(url, ctx.wallNow()))) return [];
  const connections = new Connections(timeoutMs, ctx.fetch, ctx.reach);
  const host = new URL(target.url).hostname.replace(/^\[|\]$/g, '');
  const read = await fetchCard(url, before?.etag ?? null, {
    fetch: connections.fetch(ctx.middleware),
    guard: {
      allowPrivateNetwork: target.auth?.oauth?.allowPrivateNetwork ?? false,
      loopbackAllowed: host === 'localhost' || /^127\./.test(host) || host === '::1',
    },
    timeoutMs,
    budget: ctx.signal,
  }).finally(() => connections.close());
  const findings: string[] = [];
  let card = before?.card;
  if (read.kind === 'absent') {
    memory.markAbsent(url, ctx.wallNow());
    if (before) findings.push(`no longer served (HTTP ${read.status}) at ${url}`);
    card = undefined;
  } else if (read.kind === 'failed') {
    // Never asked to be read: a server without a card (or an origin that answers every path) is not warned about.
    if (before) findings.push(`could not be read this run at ${url}: ${read.why}`);
    else if (read.served) findings.push(`served at ${url} but not a card: ${read.why}`);
    else memory.markAbsent(url, ctx.wallNow());
    card = undefined;
  } else if (read.kind === 'card') {
    const parsed = readCard(read.json, target.url);
    if ('problem' in parsed) {
      memory.forget(url);
      findings.push(`served at ${url} but not a card: ${parsed.problem}`);
      card = undefined;
    } else {
      if (before) {
        const drift = cardDrift(before.card, parsed);
        if (drift.length) findings.push(`changed since it was last read: ${drift.join('; ')}`);
      }
      memory.set(url, { card: parsed, etag: read.etag });
      card = parsed;
    }
  }
  if (card) findings.push(...contradictions(card, handshake).map((c) => `contradicts the server: ${c}`));
  const warnings = findings.slice(0, MAX_CARD_WARNINGS).map((f) => ({ kind: WarningKind.serverCard, detail: `server card: ${f}` }));
  if (findings.length > MAX_CARD_WARNINGS)
    warnings.push({ kind: WarningKind.serverCard, detail: `server card: ${findings.length - MAX_CARD_WARNINGS} more finding(s)` });
  return warnings;
}
