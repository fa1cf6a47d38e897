// The engine decider: one sequenced input in, its outcome events out. Deterministic (time and
// sequence arrive on the input, ids derive from them), synchronous and free of I/O. A refused
// input changes nothing and yields no events; an accepted one changes the state in place and
// reports every changed entity as a snapshot event. `evolve` is replaying the inputs.

import { textProblemMessage, textProblemOf } from '../text.ts';
import type { ErrorInfo } from '../errors.ts';
import type { OrderView } from '../views.ts';
import { adjust, deposit, openAccount, updateAccount, withdraw } from './accounts.ts';
import { amendFill } from './amend.ts';
import { StepContext } from './context.ts';
import type { EngineEvent } from './events.ts';
import type { SequencedInput } from './inputs.ts';
import { changeMarketStatus, listMarket, resultMarket, scheduleSportEvent, startSportEvent, tick } from './markets.ts';
import { cancelOrder, liveOrderIdsOf, placeOrder, type OrderOutcome } from './orders.ts';
import {
  balanceView, fillView, marketView, orderView, positionView,
} from './snapshots.ts';
import { initialState } from './snapshot.ts';
import type { EngineState } from './state.ts';

/** Outcome of one leg of a batch (same shape as the gateway's LegOutcome). */
export interface LegResult { order_id: string; order?: OrderView; error?: ErrorInfo }

export interface StepOutcome {
  ok: boolean;
  error?: ErrorInfo;
  events: EngineEvent[];
  legs?: LegResult[];
}

export class Engine {
  /** The working set of a step, reused from one step to the next (steps never overlap). */
  private context: StepContext | null = null;

  constructor(public state: EngineState = initialState()) {}

  /** The sequence number the next journaled input gets. */
  get nextSeq(): number {
    return this.state.seq + 1;
  }

  step(sequenced: SequencedInput): StepOutcome {
    const problem = textProblemOf(sequenced.input);
    if (problem !== null) return { ok: false, error: { code: 'invalid', message: textProblemMessage(problem) }, events: [] };
    const ctx = this.context ??= new StepContext(this.state, sequenced.seq, sequenced.now_us);
    ctx.begin(this.state, sequenced.seq, sequenced.now_us);
    const input = sequenced.input;
    let error: ErrorInfo | null = null;
    let legs: LegResult[] | undefined;
    let outcomes: { id: string; outcome: OrderOutcome }[] | undefined;
    switch (input.kind) {
      case 'OpenAccount': error = openAccount(ctx, input); break;
      case 'UpdateAccount': error = updateAccount(ctx, input); break;
      case 'Deposit': error = deposit(ctx, input); break;
      case 'Withdraw': error = withdraw(ctx, input); break;
      case 'Adjust': error = adjust(ctx, input); break;
      case 'PlaceOrder': {
        const outcome = placeOrder(ctx, input.account_id, input.order, input.limits);
        if (outcome.error) error = outcome.error;
        else outcomes = [{ id: input.order.order_id, outcome }];
        break;
      }
      case 'PlaceOrders':
        outcomes = input.orders.map((order) => ({ id: order.order_id, outcome: placeOrder(ctx, input.account_id, order, input.limits) }));
        break;
      case 'CancelOrder': {
        const outcome = cancelOrder(ctx, input.account_id, input.order_id);
        if (outcome.error) error = outcome.error;
        else outcomes = [{ id: input.order_id, outcome }];
        break;
      }
      case 'CancelOrders':
        outcomes = input.order_ids.map((id) => ({ id, outcome: cancelOrder(ctx, input.account_id, id) }));
        break;
      case 'CancelAccountOrders':
        if (!ctx.state.accounts.has(input.account_id)) {
          error = { code: 'not_found', message: 'Account not found' };
          break;
        }
        outcomes = liveOrderIdsOf(ctx, input.account_id, input.market_id, input.cancel_on_disconnect_only)
          .map((id) => ({ id, outcome: cancelOrder(ctx, input.account_id, id) }));
        break;
      case 'ScheduleSportEvent': error = scheduleSportEvent(ctx, input); break;
      case 'StartSportEvent': error = startSportEvent(ctx, input); break;
      case 'ListMarket': error = listMarket(ctx, input); break;
      case 'ChangeMarketStatus': error = changeMarketStatus(ctx, input); break;
      case 'ResultMarket': error = resultMarket(ctx, input); break;
      case 'AmendFill': error = amendFill(ctx, input); break;
      case 'Tick': tick(ctx); break;
      default: {
        const never: never = input;
        error = { code: 'invalid', message: `unknown input ${(never as { kind: string }).kind}` };
      }
    }
    if (error) {
      if (ctx.touchedAnything) throw new Error(`input ${input.kind} refused after changing state`);
      return { ok: false, error, events: [] };
    }
    const events = assemble(ctx);
    if (events.length > 0) this.state.seq = sequenced.seq;
    if (outcomes) legs = legsOf(outcomes, events);
    return legs ? { ok: true, events, legs } : { ok: true, events };
  }
}

/** Each leg answers with its order's snapshot from the step's events (built afresh if it has none). */
function legsOf(outcomes: { id: string; outcome: OrderOutcome }[], events: EngineEvent[]): LegResult[] {
  let views: Map<string, OrderView> | null = null;
  if (outcomes.length > 1) {
    views = new Map();
    for (const event of events) if (event.type === 'OrderPlaced' || event.type === 'OrderChanged') views.set(event.order.id, event.order);
  }
  const legs: LegResult[] = [];
  for (const { id, outcome } of outcomes) {
    if (outcome.error) {
      legs.push({ order_id: id, error: outcome.error });
      continue;
    }
    const order = outcome.order;
    const view = order ? (views ? views.get(order.id) : lastOrderView(events, order.id)) ?? orderView(order) : undefined;
    legs.push(view ? { order_id: id, order: view } : { order_id: id });
  }
  return legs;
}

/** The last snapshot of order `id` among `events` (a one-order step has a handful of events). */
function lastOrderView(events: EngineEvent[], id: string): OrderView | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if ((event.type === 'OrderPlaced' || event.type === 'OrderChanged') && event.order.id === id) return event.order;
  }
  return undefined;
}

/** The step's events in a fixed order: lifecycle, orders, trades, fills, ledger, positions, balances, markets. */
function assemble(ctx: StepContext): EngineEvent[] {
  const events: EngineEvent[] = ctx.lifecycle.length > 0 ? ctx.lifecycle.slice() : [];
  for (const order of ctx.placedOrders.items) events.push({ type: 'OrderPlaced', order: orderView(order) });
  for (const order of ctx.changedOrders.items) events.push({ type: 'OrderChanged', order: orderView(order) });
  for (const trade of ctx.trades) events.push(trade);
  for (const fill of ctx.changedFills.items) events.push({ type: 'FillChanged', fill: fillView(fill) });
  for (const entry of ctx.ledger) events.push(entry);
  for (const exposure of ctx.changedPositions.items) {
    events.push({ type: 'PositionChanged', position: positionView(exposure, ctx.state.markets.get(exposure.marketId)!, ctx.seq) });
  }
  for (const account of ctx.changedBalances.items) events.push({ type: 'BalanceChanged', balance: balanceView(account, ctx.seq) });
  for (const market of ctx.changedMarkets.items) events.push({ type: 'MarketChanged', market: marketView(market) });
  for (const settled of ctx.settled) events.push(settled);
  return events;
}
