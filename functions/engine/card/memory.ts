/**
 * What the canary remembers of each Server Card between runs of one process (a warm Lambda; a CLI run
 * is one process, so it compares within that run only): the card and its ETag, by the card's URL. The next fetch sends `If-None-Match` with the
 * ETag; a 304 is the same card, and a card that changed is compared with the one remembered (drift).
 * A location that served no card is remembered too, and asked again only after an hour. Bounded: the
 * oldest entry goes when a fleet's worth of cards is held.
 */
import type { ServerCard } from './card.ts';

export interface RememberedCard {
  readonly card: ServerCard;
  readonly etag: string | null;
}

const MAX_CARDS = 10_000;

/** How long a location that served no card is not asked again: a server without a card costs one GET an hour. */
export const ABSENT_RECHECK_MS = 60 * 60 * 1000;

export class CardMemory {
  private readonly cards = new Map<string, RememberedCard>();
  private readonly absent = new Map<string, number>();

  /** No card was served at `url` within the last hour (`now`: wall-clock ms). */
  absentRecently(url: string, now: number): boolean {
    const since = this.absent.get(url);
    return since !== undefined && now - since < ABSENT_RECHECK_MS;
  }

  /** No card at `url` this run: it is asked again in an hour. */
  markAbsent(url: string, now: number): void {
    this.cards.delete(url);
    this.absent.delete(url);
    this.absent.set(url, now);
    if (this.absent.size > MAX_CARDS) this.absent.delete(this.absent.keys().next().value!);
  }

  get(url: string): RememberedCard | undefined {
    return this.cards.get(url);
  }

  set(url: string, remembered: RememberedCard): void {
    this.absent.delete(url);
    this.cards.delete(url);
    this.cards.set(url, remembered);
    if (this.cards.size > MAX_CARDS) this.cards.delete(this.cards.keys().next().value!);
  }

  forget(url: string): void {
    this.cards.delete(url);
  }
}

/** The warm process's memory. */
export const processCards = new CardMemory();
