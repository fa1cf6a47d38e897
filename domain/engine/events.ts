// The engine's outcome events. Each carries the snapshot of what it changed (see views.ts),
// so projectors upsert and the realtime layer forwards deltas without re-reading tables.
// Past-tense names; add a `v` field when a payload's shape changes.

import type {
  AccountView, BalanceView, FillView, LedgerEntryView, MarketStateView, OrderView,
  PositionView, SportEventView,
} from '../views.ts';

export type EngineEvent =
  | { type: 'AccountOpened'; account: AccountView; balance: BalanceView }
  | { type: 'AccountUpdated'; account: AccountView; balance: BalanceView }
  | { type: 'SportEventScheduled'; event: SportEventView }
  | { type: 'SportEventStarted'; event: SportEventView }
  | { type: 'MarketListed'; market: MarketStateView }
  | { type: 'MarketChanged'; market: MarketStateView } // status, trading, result, last price
  | { type: 'OrderPlaced'; order: OrderView } // first snapshot of an order (any status, rejected included)
  | { type: 'OrderChanged'; order: OrderView } // every later change of the order
  | { type: 'TradeExecuted'; trade_id: string; market_id: string; price: string; quantity: string; executed_at: number; provider: FillView; taker: FillView }
  | { type: 'FillChanged'; fill: FillView } // closing, settlement, amendment, cancellation by the service
  | { type: 'PositionChanged'; position: PositionView }
  | { type: 'BalanceChanged'; balance: BalanceView }
  | { type: 'LedgerEntryRecorded'; entry: LedgerEntryView }
  | { type: 'MarketSettled'; market_id: string; result: 'win' | 'lose' | 'void'; settled_at: number; settlement_id: string };

export type EngineEventType = EngineEvent['type'];
