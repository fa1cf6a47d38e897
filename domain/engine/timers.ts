// Which timed orders are due: good_till_time expiries and the ends of in-play delays. The state
// keeps the set of timed orders (`timedOrderIds`, in the order they became timed); this derived
// index (never serialised, rebuilt from the state on first use) keeps their due times in a
// min-heap, so a timer tick touches only the orders that are due, not every timed order.
// Due orders are acted on in the set's order, exactly as a scan of the whole set would.

import { present } from '../assert.ts';
import type { EngineState, OrderState } from './state.ts';

interface DueEntry {
  dueUs: number;
  id: string;
}

interface TimerIndex {
  heap: DueEntry[];
  /** Position of each timed order in the set's order. */
  ranks: Map<string, number>;
  nextRank: number;
  /** Delayed orders whose delay has passed but whose market could not take them yet: looked at every tick. */
  waiting: Set<string>;
}

/** Stale heap entries (orders no longer timed) allowed beyond the live ones before the heap is rebuilt. */
const STALE_ENTRIES_SLACK = 1_024;

const indexes = new WeakMap<EngineState, TimerIndex>();

function dueTimesOf(order: OrderState): number[] {
  const times: number[] = [];
  if (order.expiration === 'good_till_time' && order.expirationTime !== null) times.push(order.expirationTime);
  if (order.status === 'delayed' && order.delayedUntil !== null) times.push(order.delayedUntil);
  return times;
}

function push(heap: DueEntry[], entry: DueEntry): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const above = present(heap[parent], 'a heap slot above a filled one is filled');
    if (above.dueUs <= entry.dueUs) break;
    heap[i] = above;
    i = parent;
  }
  heap[i] = entry;
}

function pop(heap: DueEntry[]): DueEntry | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || last === undefined) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    let child = left;
    let below = present(heap[left], 'a slot below heap.length is filled');
    const right = left + 1 < heap.length ? heap[left + 1] : undefined;
    if (right !== undefined && right.dueUs < below.dueUs) {
      child = left + 1;
      below = right;
    }
    if (below.dueUs >= last.dueUs) break;
    heap[i] = below;
    i = child;
  }
  heap[i] = last;
  return top;
}

function build(state: EngineState, previous?: TimerIndex): TimerIndex {
  const index: TimerIndex = { heap: [], ranks: new Map(), nextRank: 0, waiting: previous?.waiting ?? new Set() };
  for (const id of state.timedOrderIds) {
    index.ranks.set(id, index.nextRank++);
    const order = state.orders.get(id);
    if (order) for (const dueUs of dueTimesOf(order)) push(index.heap, { dueUs, id });
  }
  indexes.set(state, index);
  return index;
}

const indexOf = (state: EngineState): TimerIndex => indexes.get(state) ?? build(state);

/** Makes `order` timed (or adds a due time to an order already timed). */
export function addTimer(state: EngineState, order: OrderState): void {
  const fresh = !state.timedOrderIds.has(order.id);
  state.timedOrderIds.add(order.id);
  const index = indexes.get(state);
  if (!index) return; // built from the state on first use
  if (fresh) index.ranks.set(order.id, index.nextRank++);
  for (const dueUs of dueTimesOf(order)) push(index.heap, { dueUs, id: order.id });
}

/**
 * The timed orders that may need acting on at `nowUs`, in the set's order: those with a due time
 * reached since the last call, and delayed orders still waiting for their market.
 */
export function dueOrderIds(state: EngineState, nowUs: number): string[] {
  let index = indexOf(state);
  const liveMax = 2 * state.timedOrderIds.size + STALE_ENTRIES_SLACK;
  if (index.heap.length > liveMax || index.ranks.size > liveMax) index = build(state, index);
  const due = new Set<string>();
  for (const id of index.waiting) {
    if (state.timedOrderIds.has(id)) due.add(id);
    else index.waiting.delete(id);
  }
  for (let top = index.heap[0]; top !== undefined && top.dueUs <= nowUs; top = index.heap[0]) {
    pop(index.heap);
    if (state.timedOrderIds.has(top.id)) due.add(top.id);
  }
  const ranks = index.ranks;
  for (const id of due) if (!ranks.has(id)) ranks.set(id, index.nextRank++);
  const rankOf = (id: string): number => present(ranks.get(id), 'every due order was given a rank above');
  return [...due].sort((a, b) => rankOf(a) - rankOf(b));
}

/** After a tick: delayed orders that are due but still delayed wait for their market; the rest leave the waiting list. */
export function settleWaiting(state: EngineState, candidates: readonly string[]): void {
  const index = indexOf(state);
  for (const id of candidates) {
    const order = state.orders.get(id);
    if (order && order.status === 'delayed' && state.timedOrderIds.has(id)) index.waiting.add(id);
    else index.waiting.delete(id);
  }
}

/** Whether a tick at `nowUs` may find anything to act on (never false when something is due). */
export function anyDue(state: EngineState, nowUs: number): boolean {
  if (state.timedOrderIds.size === 0) return false;
  const index = indexOf(state);
  if (index.waiting.size > 0) return true;
  let top = index.heap[0];
  while (top !== undefined && !state.timedOrderIds.has(top.id)) {
    pop(index.heap); // an order no longer timed
    top = index.heap[0];
  }
  return top !== undefined && top.dueUs <= nowUs;
}
