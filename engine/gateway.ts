// What callers (REST, admin, OAuth, realtime, demo) see of the engine: submit one input, get
// that input's own outcome once it is durably journaled. The engine process implements it.

import type { StepAnswer } from '../domain/engine/engine.ts';
import type { EngineEvent } from '../domain/engine/events.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import type { Refusal } from '../domain/errors.ts';
import type { OrderView } from '../domain/views.ts';

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
}

/** A market's book levels whose totals moved, as absolute totals (quantity "0": the level emptied). */
export interface BookLevelsChange {
  market_id: string;
  /** Engine time of the newest step behind these totals (UNIX µs). */
  time_us: number;
  /** [price, quantity] decimal strings. */
  bids: Array<[string, string]>;
  offers: Array<[string, string]>;
}

/**
 * The order books as the engine holds them, for the public feed: levels moved by journaled steps
 * are announced once their append has landed (never before: nothing not durable is shown), and
 * `reset` after the engine reloaded its state (a subscriber then reads `snapshot()` again).
 */
export interface BookSource {
  snapshot(): BookLevelsChange[];
  onChange(listener: (change: { kind: 'levels'; books: BookLevelsChange[] } | { kind: 'reset' }) => void): () => void;
}
