// Stage 5 of the engine pipeline, the publisher: once a batch is durable, publishes what it
// changed of the live view (liveView.ts: live orders, balances, positions), answers each caller
// with its outcome and the journal position holding it, notes every account it touched
// (read-your-writes: the view has passed the position before it is noted), and announces the
// book levels the batch moved to the public feed (never before the append landed: nothing not
// durable is shown; one change per market and journal record, with the market's book seq). After a
// reload from the journal the view is rebuilt from the state and the feed is told to read the
// books afresh. It is also the feed's view of the books (BookSource).

import type { Logger } from 'pino';
import { defined } from '../domain/assert.ts';
import type { EngineState } from '../domain/engine/state.ts';
import { FastOrderBook } from '../domain/book/fast.ts';
import type { Batch } from './batch.ts';
import { levelText } from './bookSequence.ts';
import type { JournalWriter } from './journalWriter.ts';
import type { BookLevelsChange, BookSource, LiveView, Place, WriteTracker } from './gateway.ts';
import { PublishedView, stage, type ViewDelta } from './liveView.ts';

export type BookChange = { kind: 'levels'; books: BookLevelsChange[] } | { kind: 'reset' };

export class Publisher implements BookSource {
  private readonly listeners = new Set<(change: BookChange) => void>();
  private readonly view: PublishedView;
  /** Each market's book seq as published (the last durable record that moved it). */
  private bookSeqs: Map<string, number>;

  constructor(
    private readonly writes: WriteTracker,
    private readonly logger: Logger,
    /** The live engine's state (the decider's, which a reload replaces). */
    private readonly state: () => EngineState,
    /** The journal position the state stands at (-1: none yet). */
    position = -1n,
    /** The journal places of live orders recovery knows. */
    places?: ReadonlyMap<string, Place>,
    /** Each market's book seq as recovery left it. */
    bookSeqs?: ReadonlyMap<string, number>,
  ) {
    this.view = new PublishedView(state(), position, places);
    this.bookSeqs = new Map(bookSeqs);
  }

  /** The journal places of the live orders the view knows (for a snapshot). */
  places(): ReadonlyMap<string, Place> {
    return this.view.places();
  }

  /** The live state as of the last durable batch (read-only). */
  get live(): LiveView {
    return this.view;
  }

  /** What a batch just decided changed of the live view (the state as it leaves it), to publish once it is durable. */
  stage(batch: Batch, state: EngineState): ViewDelta {
    return stage(batch, state);
  }

  /**
   * Answers every caller of a batch once its records landed: an input whose step was journaled
   * gets its record's position, any other the journal's head position.
   */
  answer(
    batch: Batch,
    journal: Pick<JournalWriter, 'position' | 'recordPosition'> & { readonly exactPositions?: boolean },
  ): void {
    const { records, answered } = batch;
    const recordPositions: bigint[] = [];
    for (let i = 0; i < records.length; i++) recordPositions.push(journal.recordPosition(i, records.length));
    if (records.length > 0 && batch.view)
      this.view.apply(batch.view, journal.exactPositions === false ? null : recordPositions, journal.position);
    for (const item of answered) {
      const position =
        item.record === null
          ? journal.position
          : defined(recordPositions[item.record], 'an answered step names a record of its batch');
      if (item.accounts) for (const accountId of item.accounts) this.writes.note(accountId, position);
      item.reply.position = position;
      item.pending.resolve(item.reply);
    }
    if (records.length > 0) this.publishLevels(batch);
  }

  /** Refuses every caller of a batch that will not be journaled. */
  fail(batch: Batch, error: unknown): void {
    for (const item of batch.answered) item.pending.reject(error);
  }

  /** The state was reloaded from the journal (at `position`): the view is rebuilt, every subscriber reads snapshot() again. */
  reset(
    position: bigint = this.view.position,
    places?: ReadonlyMap<string, Place>,
    bookSeqs: ReadonlyMap<string, number> = this.bookSeqs,
  ): void {
    this.view.reset(this.state(), position, places);
    this.bookSeqs = new Map(bookSeqs);
    this.tell({ kind: 'reset' });
  }

  snapshot(): BookLevelsChange[] {
    const out: BookLevelsChange[] = [];
    for (const market of this.state().markets.values()) {
      if (!(market.book instanceof FastOrderBook)) continue;
      out.push({
        market_id: market.id,
        seq: this.bookSeqs.get(market.id) ?? 0,
        time_us: 0,
        bids: market.book.levels('buy').map(levelText),
        offers: market.book.levels('sell').map(levelText),
      });
    }
    return out;
  }

  onChange(listener: (change: BookChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publishLevels(batch: Batch): void {
    const books: BookLevelsChange[] = batch.bookChanges;
    if (books.length === 0) return;
    for (const change of books) this.bookSeqs.set(change.market_id, change.seq);
    if (this.listeners.size > 0) this.tell({ kind: 'levels', books });
  }

  private tell(change: BookChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error({ err: error }, 'book listener failed');
      }
    }
  }
}
