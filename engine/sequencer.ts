// Stage 1 of the engine pipeline, the sequencer: the one bounded queue every input enters, in
// arrival order, stamped with the service clock's time (the engine itself never reads a clock).
// The batch builder takes inputs from its head in slices of bounded work; a stopped engine (shut
// down, fenced, or a broken invariant) refuses every input waiting and every new one.

import { present } from '../domain/assert.ts';
import type { Clock } from '../domain/clock.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import { EngineBusyError, EngineStoppedError, type EngineReply } from './gateway.ts';

/**
 * Inputs waiting to be decided, at most: past it a new write is refused at once (EngineBusyError,
 * REST 503 with Retry-After) instead of growing memory while the journal is slow.
 */
export const ENGINE_QUEUE_INPUTS_MAX = 50_000;
/**
 * Work decided between two yields to I/O while an append is in flight, in orders: an input
 * counts the orders it places or cancels (a batch of 100 legs weighs 100), any other input 1.
 */
export const DECIDE_SLICE = 64;

/** An input waiting for its answer. */
export interface Pending {
  input: EngineInput;
  nowUs: number;
  resolve(reply: EngineReply): void;
  reject(error: unknown): void;
}

/** The weight of an input in DECIDE_SLICE's unit: orders placed or cancelled, else 1. */
export function workOf(input: EngineInput): number {
  if (input.kind === 'PlaceOrders') return Math.max(1, input.orders.length);
  if (input.kind === 'CancelOrders') return Math.max(1, input.order_ids.length);
  return 1;
}

/** How many inputs at the head of `queue` make one slice: at least one, at most `limit`, within DECIDE_SLICE's work. */
export function sliceLength(queue: readonly Pending[], limit: number): number {
  let work = 0;
  let count = 0;
  while (count < queue.length && count < limit) {
    work += workOf(present(queue[count], 'count < queue.length').input);
    if (count > 0 && work > DECIDE_SLICE) break;
    count++;
  }
  return count;
}

export class Sequencer {
  private readonly queue: Pending[] = [];
  private stoppedReason: string | undefined;

  /** `onInput` is told each time an input joins the queue (the pipeline starts draining). */
  constructor(
    private readonly clock: Clock,
    private readonly onInput: () => void,
    private readonly inputsMax = ENGINE_QUEUE_INPUTS_MAX,
  ) {}

  /** Inputs waiting. */
  get length(): number {
    return this.queue.length;
  }

  /** Why the engine stopped; undefined while it runs. */
  get stopped(): string | undefined {
    return this.stoppedReason;
  }

  /** Queues one input stamped with the clock's time; refused at once when stopped or full. */
  submit(input: EngineInput): Promise<EngineReply> {
    if (this.stoppedReason !== undefined) return Promise.reject(new EngineStoppedError(this.stoppedReason));
    if (this.queue.length >= this.inputsMax) return Promise.reject(new EngineBusyError(this.inputsMax));
    return new Promise<EngineReply>((resolve, reject) => {
      this.queue.push({ input, nowUs: this.clock.nowUs(), resolve, reject });
      this.onInput();
    });
  }

  /** The next slice from the head: at least one input when any waits, at most `limit`, within DECIDE_SLICE. */
  takeSlice(limit: number): Pending[] {
    return this.queue.splice(0, sliceLength(this.queue, limit));
  }

  /** Puts inputs taken but not decided back at the head, in their order. */
  putBack(inputs: readonly Pending[]): void {
    this.queue.unshift(...inputs);
  }

  /** Stops taking inputs (the first reason stays) and refuses every input waiting with `refusal`. */
  halt(refusal: EngineStoppedError): void {
    this.stoppedReason ??= refusal.reason;
    for (const pending of this.queue.splice(0)) pending.reject(refusal);
  }
}
