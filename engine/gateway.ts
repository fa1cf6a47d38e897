// What callers (REST, admin, OAuth, realtime, demo) see of the engine: submit one input, get
// that input's own outcome once it is durably journaled. The engine process implements it.

import type { StepAnswer } from '../domain/engine/engine.ts';
import type { EngineEvent } from '../domain/engine/events.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import type { Refusal } from '../domain/errors.ts';
import type { AccountStatus, BalanceView, OrderView, PositionView } from '../domain/views.ts';

/** Outcome of one leg of PlaceOrders / CancelOrders, in request order. */
export interface LegOutcome {
  order_id: string;
  order?: OrderView; // the order as the engine left it (a rejected order included)
  error?: Refusal; // when the leg was refused without creating an order (e.g. unknown order on cancel)
}

export interface EngineReply {
  /** False when the input as a whole was refused (error set, no state changed, nothing journaled). */
  ok: boolean;
  error?: Refusal;
  /** This input's outcome facts, in order. */
  events: EngineEvent[];
  /** Per-leg outcomes for PlaceOrders / CancelOrders (the orders as the engine left them). */
  legs?: LegOutcome[];
  /** For operator inputs: what they changed, as the REST views show it (rendered from the engine's state). */
  answer?: StepAnswer;
  /** Global event-store position of the journal record holding these events (read-your-writes). */
  position: bigint;
  /** Engine sequence number assigned to the input. */
  seq: number;
}

/** The engine has stopped (shut down, fenced by another writer, or a broken invariant): nothing more is decided. */
export class EngineStoppedError extends Error {
  constructor(readonly reason: string) {
    super(`engine stopped: ${reason}`);
    this.name = 'EngineStoppedError';
  }
}

/** The engine's input queue is full: the write was not taken; retry shortly. */
export class EngineBusyError extends Error {
  constructor(readonly queueInputsMax: number) {
    super(`engine busy: ${queueInputsMax} inputs are waiting`);
    this.name = 'EngineBusyError';
  }
}

/**
 * Each account's last write, for read-your-writes: the engine notes every account a durable step
 * touched at that step's journal position, and that account's next read waits for the read
 * models to pass it. The composition root makes one (commands/writeTracker.ts).
 */
export interface WriteTracker {
  note(accountId: string, position: bigint): void;
  lastFor(accountId: string): bigint | undefined;
}

export interface EngineGateway {
  /** Stamps the time from the service clock, sequences, decides, journals, answers. */
  submit(input: EngineInput): Promise<EngineReply>;
  /** The live state as of the last durable step (absent: every read goes to the read models). */
  readonly live?: LiveView;
  /**
   * Resolves once this node's state (its live view, the accounts' last writes it noted) has passed
   * every write acknowledged before the call, on any node (bounded wait); absent or at once on the writer.
   */
  sync?(): Promise<void>;
}

/**
 * A live order in the engine's published view: its REST view (rendered on first read, frozen)
 * and its place in the journal, the sort key of `GET /orders` (the position of the journal record
 * whose step accepted it, and the index of that fact among the record's facts), exactly as the
 * read models store it. The key is null for an order accepted before this process recovered its
 * state (the snapshot does not keep it): lists that would hold one are answered by the read models.
 */
export interface LiveOrder {
  readonly id: string;
  readonly accountId: string;
  readonly key: readonly [position: bigint, index: number] | null;
  readonly view: Readonly<OrderView>;
}

/** A live order's journal place: record position, then index among the record's facts. */
export type Place = readonly [bigint, number];

/** Orders places: negative when `a` comes first in the journal. */
export function comparePlaces(a: Place, b: Place): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1];
}

/** An open (non-zero) position in the published view, with its `GET /positions` sort key. */
export interface LivePosition {
  readonly view: Readonly<PositionView>;
  /** Contracts held (|position|), as the read model's numeric column holds them: the cursor's first part. */
  readonly contracts: string;
  readonly contractsNanos: number;
}

/**
 * One account in the published view, as of the view's last landed batch: read it synchronously
 * (the view moves on between turns of the event loop); its balance and positions are values that
 * never change (a change publishes new ones).
 */
export interface LiveAccount {
  readonly id: string;
  readonly userId: string;
  readonly status: AccountStatus;
  readonly balance: Readonly<BalanceView>;
  /** Open positions, largest first by contracts, ties by market id (the order of `GET /positions`). */
  readonly positions: readonly LivePosition[];
  /** Live orders by journal place (those without a key before every other). */
  readonly orders: LiveOrders;
  /** How many of `orders` have no key. */
  readonly unkeyedOrders: number;
}

/** An account's live orders as the view stands (read synchronously). */
export interface LiveOrders {
  readonly size: number;
  /** Visits the orders placed before `before` (all when null), most recent first, until `visit` answers false. */
  newestFirst(before: readonly [bigint, number] | null, visit: (order: LiveOrder) => boolean): void;
}

/**
 * The engine's live state as of its last durable batch, for reads: published by the publisher
 * once a batch's append has landed (never before: nothing not durable is shown), from views
 * rendered when the batch was decided. Read-only for readers, and read synchronously: it changes
 * only between turns of the event loop, and every order view, balance and position it hands out is
 * immutable.
 */
export interface LiveView {
  /** Journal position of the last step the view holds (every step up to it is in, none after). */
  readonly position: bigint;
  /**
   * Engine sequence number of that step: every order, balance and position in the view reflects
   * the steps up to it, so a change of one of them stamped with this seq or an earlier one (as the
   * read models' change announcements are) is already in the view.
   */
  readonly seq: number;
  account(accountId: string): LiveAccount | undefined;
  /** The account's live order with that id. */
  order(accountId: string, orderId: string): LiveOrder | undefined;
}

/** A market's book levels whose totals moved, as absolute totals (quantity "0": the level emptied). */
export interface BookLevelsChange {
  market_id: string;
  /**
   * The market's book seq after this change: journal records that moved its book (engine/bookSequence.ts),
   * the same on every node; +1 from the market's previous change.
   */
  seq: number;
  /** Engine time of the newest step behind these totals (UNIX µs). */
  time_us: number;
  /** [price, quantity] decimal strings. */
  bids: Array<[string, string]>;
  offers: Array<[string, string]>;
}

/**
 * The order books as the engine holds them, for the public feed: levels moved by journaled steps
 * are announced once their append has landed (never before: nothing not durable is shown), one
 * change per market and journal record, and `reset` after the engine reloaded its state (a
 * subscriber then reads `snapshot()` again: every market's levels and seq).
 */
export interface BookSource {
  snapshot(): BookLevelsChange[];
  onChange(listener: (change: { kind: 'levels'; books: BookLevelsChange[] } | { kind: 'reset' }) => void): () => void;
}
