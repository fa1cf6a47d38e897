// Every market's order book (aggregated price levels at full depth), held in memory and moved by
// the engine's journaled level changes in journal order (or, without the engine, by the core
// projector's announcements). Each market carries a sequence number: +1 per delta, so a client
// holding the snapshot of seq N applies deltas N+1, N+2, … and knows it missed one when a number
// is skipped. From the engine the number is the engine's book seq (engine/bookSequence.ts: journal
// records that moved the book), the same on every node and across restarts; without it the
// numbers are counted here and start again at 0 when the service starts.
// Levels carry absolute totals, so applying a change twice leaves the book as once: the start-up
// load may overlap announcements without harm.

import type { BookLevels } from '../../projections/core/queries/book.ts';
import { compareTexts } from '../../domain/money/decimal.ts';

export type Level = [price: string, quantity: string];

/** What the projector announces for one market and batch (kind `book`). */
export interface BookChange {
  market_id: string;
  /** The book's seq after the change, when the source numbers it (the engine); else the last + 1. */
  seq?: number;
  time_us: number;
  bids: Level[];
  offers: Level[];
}

interface BookSnapshot {
  market_id: string;
  seq: number;
  /** Price descending (best first). */
  bids: Level[];
  /** Price descending (best last), as on the Market object. */
  offers: Level[];
}

interface BookDelta extends BookSnapshot {
  /** Engine time of the newest step in this delta, UNIX microseconds. */
  time_us: number;
}

interface MarketBook {
  seq: number;
  bids: Map<string, string>;
  offers: Map<string, string>;
}

const ZERO = /^0(\.0*)?$/;

function isZero(quantity: string): boolean {
  return ZERO.test(quantity);
}

function compareDecimalText(a: string, b: string): number {
  return compareTexts(a, b);
}

function sortedDescending(levels: Map<string, string>): Level[] {
  return [...levels.entries()].sort((a, b) => compareDecimalText(b[0], a[0]));
}

export class OrderBooks {
  private readonly books = new Map<string, MarketBook>();

  private bookOf(marketId: string): MarketBook {
    let book = this.books.get(marketId);
    if (!book) {
      book = { seq: 0, bids: new Map(), offers: new Map() };
      this.books.set(marketId, book);
    }
    return book;
  }

  /** The start-up load: replaces the levels of the markets given (and their seq, when given). */
  load(books: ReadonlyArray<BookLevels & { seq?: number }>): void {
    for (const loaded of books) {
      const book = this.bookOf(loaded.market_id);
      book.bids = new Map(loaded.bids);
      book.offers = new Map(loaded.offers);
      if (loaded.seq !== undefined) book.seq = loaded.seq;
    }
  }

  /** The market's seq now (0 for a book never moved). */
  seqOf(marketId: string): number {
    return this.books.get(marketId)?.seq ?? 0;
  }

  /** Applies one announced change; returns the delta to publish (levels as sent, quantity "0" removes). */
  apply(change: BookChange): BookDelta {
    const book = this.bookOf(change.market_id);
    for (const [price, quantity] of change.bids) {
      if (isZero(quantity)) book.bids.delete(price);
      else book.bids.set(price, quantity);
    }
    for (const [price, quantity] of change.offers) {
      if (isZero(quantity)) book.offers.delete(price);
      else book.offers.set(price, quantity);
    }
    book.seq = change.seq ?? book.seq + 1;
    return {
      market_id: change.market_id,
      seq: book.seq,
      bids: [...change.bids].sort((a, b) => compareDecimalText(b[0], a[0])),
      offers: [...change.offers].sort((a, b) => compareDecimalText(b[0], a[0])),
      time_us: change.time_us,
    };
  }

  snapshot(marketId: string): BookSnapshot {
    const book = this.books.get(marketId);
    if (!book) return { market_id: marketId, seq: 0, bids: [], offers: [] };
    return {
      market_id: marketId,
      seq: book.seq,
      bids: sortedDescending(book.bids),
      offers: sortedDescending(book.offers),
    };
  }

  /** Offers best first (price ascending) and bids best first (price descending): what a taker walks. */
  ladder(marketId: string): { bids: Level[]; offers: Level[] } {
    const snapshot = this.snapshot(marketId);
    return { bids: snapshot.bids, offers: [...snapshot.offers].reverse() };
  }
}
