// Each market's order book sequence number, the `seq` of the feed's order book: how many journal
// records held a step that moved a level of the market's book. It is a function of the journal
// alone (a record is the journal's unit, and the same steps move the same levels), so every node
// counts the same whether it decided the steps, replayed them from zero, or started from a
// snapshot (which keeps the counts) and replayed the tail: a client that reconnects to another
// node finds the same `seq` for the same book. The engine's writer counts a record when it
// closes it, recovery when it has replayed one.

import { FastOrderBook, type ChangedLevel } from '../domain/book/fast.ts';
import type { EngineState } from '../domain/engine/state.ts';
import { formatCents, formatNanos } from '../domain/money/decimal.ts';
import type { BookLevelsChange } from './gateway.ts';

/** A level as the feed shows it: [price, quantity] decimal strings. */
export const levelText = (level: { priceCents: number; totalNanos: number }): [string, string] => [
  formatCents(level.priceCents),
  formatNanos(level.totalNanos),
];

export class BookSequence {
  private readonly seqs: Map<string, number>;

  constructor(seqs?: Iterable<readonly [string, number]>) {
    this.seqs = new Map(seqs);
  }

  /** The market's seq: journal records that moved its book (0: none yet). */
  seqOf(marketId: string): number {
    return this.seqs.get(marketId) ?? 0;
  }

  /** Every market whose book has moved, with its seq (what a snapshot keeps). */
  entries(): Map<string, number> {
    return new Map(this.seqs);
  }

  /**
   * Once one journal record's steps have been applied to `state`: takes the levels each book
   * marked since the last record and counts one for every market that moved. With `changes`,
   * each moved market's levels as they stand now are added to it with the new seq, at `timeUs`
   * (the newest step of the record).
   */
  afterRecord(state: EngineState, timeUs: number, changes?: BookLevelsChange[]): void {
    for (const market of state.markets.values()) {
      if (!(market.book instanceof FastOrderBook)) continue;
      const levels = market.book.takeChangedLevels();
      if (levels.length === 0) continue;
      const seq = (this.seqs.get(market.id) ?? 0) + 1;
      this.seqs.set(market.id, seq);
      if (changes) changes.push(changeOf(market.id, seq, timeUs, levels));
    }
  }
}

/** Forgets what the books marked without counting it (a state decoded from a snapshot marks every level it rebuilds). */
export function forgetBookLevels(state: EngineState): void {
  for (const market of state.markets.values())
    if (market.book instanceof FastOrderBook) market.book.takeChangedLevels();
}

function changeOf(marketId: string, seq: number, timeUs: number, levels: readonly ChangedLevel[]): BookLevelsChange {
  const change: BookLevelsChange = { market_id: marketId, seq, time_us: timeUs, bids: [], offers: [] };
  for (const level of levels) (level.side === 'buy' ? change.bids : change.offers).push(levelText(level));
  return change;
}
