// Shared test vocabulary for the engine: input builders and a small given/when/then driver over
// the pure decider (time and sequence supplied by the test).

import { Engine, type StepOutcome } from '../../../domain/engine/engine.ts';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import type { EngineInput, MarketFields, OrderRequest } from '../../../domain/engine/inputs.ts';
import type { BalanceView, FillView, LedgerEntryView, OrderView } from '../../../domain/views.ts';
import { FoldedViews } from '../../support/views.ts';

export const T0 = 1_800_000_000_000_000; // UNIX µs
export const SECOND = 1_000_000;

export function account(id: string, fields: Extract<EngineInput, { kind: 'OpenAccount' }>['fields'] = {}): EngineInput {
  return { kind: 'OpenAccount', account_id: id, user_id: `user-${id}`, fields };
}

let entryCounter = 0;
export function deposit(id: string, amount: string, entryId = `dep-${++entryCounter}`): EngineInput {
  return { kind: 'Deposit', account_id: id, entry_id: entryId, amount };
}

export function withdraw(id: string, amount: string, entryId = `wd-${++entryCounter}`): EngineInput {
  return {
    kind: 'Withdraw',
    account_id: id,
    entry_id: entryId,
    amount,
    method: null,
    reason: null,
    sub_method: null,
  };
}

export function sportEvent(id = 'ev', start = T0 + 3600 * SECOND): EngineInput {
  return {
    kind: 'ScheduleSportEvent',
    event: {
      event_id: id,
      title: `Event ${id}`,
      start,
      short_title: null,
      event_type: null,
      sport: 'soccer',
      competition: null,
      participants: [],
    },
  };
}

export function market(id = 'm', fields: Partial<MarketFields> = {}): EngineInput {
  return {
    kind: 'ListMarket',
    market: {
      market_id: id,
      event_id: 'ev',
      title: `Market ${id}`,
      max_price: '1.00',
      status: 'open',
      trading: true,
      in_play_delay_sec: 0,
      points_cost: 0,
      grouping_id: 'g',
      grouping_name: null,
      symbol: null,
      question: null,
      rules: null,
      short_title: null,
      featured: false,
      ...fields,
    },
  };
}

export function order(
  orderId: string,
  action: 'buy' | 'sell',
  price: string | null,
  quantity: string,
  extra: Partial<OrderRequest> = {},
): OrderRequest {
  return {
    order_id: orderId,
    market_id: 'm',
    action,
    order_type: price === null ? 'market' : 'limit',
    price,
    quantity,
    client_order_id: null,
    device_id: null,
    ip_address: null,
    expiration: null,
    expiration_time: null,
    cancel_on_disconnect: false,
    ...extra,
  };
}

export function place(accountId: string, request: OrderRequest): EngineInput {
  return { kind: 'PlaceOrder', account_id: accountId, order: request };
}

export function cancel(accountId: string, orderId: string): EngineInput {
  return { kind: 'CancelOrder', account_id: accountId, order_id: orderId };
}

/**
 * Drives the pure engine: every input gets the next sequence and a time one millisecond later (or
 * `at`). What clients would read is folded from the facts as the projectors fold them (`views`).
 */
export class Scenario {
  readonly engine = new Engine();
  now = T0;
  readonly history: { input: EngineInput; now_us: number; outcome: StepOutcome }[] = [];
  readonly views = new FoldedViews();

  given(...inputs: EngineInput[]): this {
    for (const input of inputs) {
      const outcome = this.when(input);
      if (!outcome.ok) throw new Error(`given ${input.kind} refused: ${JSON.stringify(outcome.error)}`);
    }
    return this;
  }

  when(input: EngineInput, at?: number): StepOutcome {
    this.now = at ?? this.now + 1000;
    const seq = this.engine.nextSeq;
    const outcome = this.engine.step({ seq, now_us: this.now, input });
    this.history.push({ input, now_us: this.now, outcome });
    if (outcome.ok && outcome.events.length > 0) this.views.step(seq, this.now, outcome.events);
    return outcome;
  }

  /** The account's balance as read models show it. */
  balance(accountId: string): BalanceView {
    return this.views.balance(accountId);
  }

  order(orderId: string): OrderView {
    return this.views.order(orderId);
  }

  fills(accountId?: string): FillView[] {
    return this.views.fills(accountId);
  }

  /** Ledger entries recorded so far, in order. */
  ledger(accountId?: string): LedgerEntryView[] {
    return this.views.ledger(accountId);
  }

  events(): EngineEvent[] {
    return this.history.flatMap((h) => h.outcome.events);
  }
}

/** A market with two funded members `a` and `b`. */
export function tradingScenario(
  cash = '100.00',
  marketFields: Partial<MarketFields> = {},
  accountFields = {},
): Scenario {
  return new Scenario().given(
    account('a', accountFields),
    account('b', accountFields),
    deposit('a', cash),
    deposit('b', cash),
    sportEvent(),
    market('m', marketFields),
  );
}

/** The usual start of an engine run: accounts a and b with 100 each, the sport event `ev` and market `m`. */
export function twoFundedAccountsAndAMarket(): EngineInput[] {
  return [account('a'), account('b'), deposit('a', '100'), deposit('b', '100'), sportEvent(), market()];
}
