// Stage 3 of the engine pipeline, the decider: runs each input through the domain's
// `Engine.step` (synchronous, deterministic, no I/O), in sequence order, and adds its outcome to
// the batch. The state moves ahead of the journal; the journal writer makes it durable. Before a
// batch goes to the journal, money's invariants are checked on the state it leaves.

import type { Logger } from 'pino';
import type { Engine } from '../domain/engine/engine.ts';
import { accountsNamedBy, type EngineEvent } from '../domain/engine/events.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import { assertBalanced } from '../domain/engine/ledger.ts';
import type { EngineState } from '../domain/engine/state.ts';
import { assert, present } from '../domain/assert.ts';
import type { Batch, RecordBooks } from './batch.ts';
import { BookSequence } from './bookSequence.ts';
import type { EngineReply } from './gateway.ts';
import type { Pending } from './sequencer.ts';

/**
 * Accounts a step touched, for read-your-writes: those its facts name, and the owners of the
 * orders it released or cancelled (those facts name the order only; a tick releasing an in-play
 * delay moves no money, so nothing else names the member).
 */
export function accountsOf(input: EngineInput, events: readonly EngineEvent[], state: EngineState): Set<string> {
  const ids = new Set<string>();
  if ('account_id' in input) ids.add(input.account_id);
  for (const event of events) {
    if (event.type !== 'OrderReleased' && event.type !== 'OrderCancelled') continue;
    const owner = state.orders.get(event.order_id)?.accountId ?? state.finishedOrders.get(event.order_id);
    if (owner !== undefined) ids.add(owner);
  }
  return accountsNamedBy(events, ids);
}

/** Postcondition of a step that changed state (a constant: no text is built per input). */
const STEP_TAKES_ITS_SEQ = 'a step with outcome events leaves the state at the sequence number it was given';

export class Decider {
  /** What a batch counts when it closes a record: the moves of the decided state's books. */
  readonly books: RecordBooks = {
    afterRecord: (timeUs, changes) => this.bookSequence.afterRecord(this.engine.state, timeUs, changes),
  };

  constructor(
    /** The live engine; replaced when the state is reloaded from the journal. */
    public engine: Engine,
    private readonly logger: Logger,
    /** Each market's book seq as the decided state stands; replaced with the engine. */
    public bookSequence: BookSequence = new BookSequence(),
  ) {}

  /**
   * Decides `slice` into `batch`, in order. When a step throws (a broken invariant: the state may
   * be half-changed) its caller gets the error, the batch is marked for a reload, and the inputs
   * after it come back undecided; otherwise nothing comes back.
   */
  decide(batch: Batch, slice: readonly Pending[]): Pending[] | undefined {
    const engine = this.engine;
    for (let index = 0; index < slice.length; index++) {
      const pending = present(slice[index], 'index < slice.length');
      const seq = engine.nextSeq;
      let outcome: ReturnType<Engine['step']>;
      try {
        outcome = engine.step({ seq, now_us: pending.nowUs, input: pending.input });
      } catch (error) {
        this.logger.error(
          { err: error, kind: pending.input.kind, seq },
          'engine step failed; reloading state from the journal',
        );
        pending.reject(error);
        batch.reload = true;
        return slice.slice(index + 1);
      }
      assert(outcome.events.length === 0 || engine.state.seq === seq, STEP_TAKES_ITS_SEQ);
      // The reply the caller gets once the step is durable (its position is set then); built
      // without spreads, with only the keys the outcome has.
      const reply: EngineReply = {
        ok: outcome.ok,
        events: outcome.events,
        position: 0n,
        seq: outcome.events.length > 0 ? seq : engine.state.seq,
      };
      if (outcome.error) reply.error = outcome.error;
      if (outcome.legs) reply.legs = outcome.legs;
      if (outcome.answer) reply.answer = outcome.answer;
      if (outcome.ok && outcome.events.length > 0)
        batch.addStep(pending, seq, reply, outcome.events, accountsOf(pending.input, outcome.events, engine.state));
      else batch.addAnswer(pending, reply);
    }
    return undefined;
  }

  /**
   * Money's invariants on the state a batch leaves, before any of it is journaled or answered:
   * all ledger accounts sum to zero, and the pool of a market settled in the batch is zero. The
   * violation, if any (a bug: the pipeline then stops rather than write a wrong state).
   */
  ledgerViolation(batch: Batch): Error | undefined {
    try {
      assertBalanced(this.engine.state, batch.settledMarkets());
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}
