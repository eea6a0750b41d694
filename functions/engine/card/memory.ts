/**
 * What the canary remembers of each Server Card between runs of one process (a warm Lambda; a CLI run
 * is one process, so it compares within that run only): the card and its ETag, by the card's URL. The next fetch sends `If-None-Match` with the
 * ETag; a 304 is the same card, and a card that changed is compared with the one remembered (drift).
 * Bounded: the oldest entry goes when a fleet's worth of cards is held.
 */
import type { ServerCard } from './card.ts';

export interface RememberedCard {
  readonly card: ServerCard;
  readonly etag: string | null;
}

const MAX_CARDS = 10_000;

export class CardMemory {
  private readonly cards = new Map<string, RememberedCard>();

  get(url: string): RememberedCard | undefined {
    return this.cards.get(url);
  }

  set(url: string, remembered: RememberedCard): void {
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
