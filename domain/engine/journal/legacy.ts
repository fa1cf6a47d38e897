// The engine's outcome events as journal records of versions 1 to 3 hold them: REST-shaped
// snapshots of every entity a step changed. Nothing writes these any more; upcast.ts turns each
// journaled step of them into the facts the engine now states (events.ts).

import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  MarketBaseView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../views.ts';

export type LegacyEngineEvent =
  | { type: 'AccountOpened'; account: AccountView; balance: BalanceView }
  | { type: 'AccountUpdated'; account: AccountView; balance: BalanceView }
  | { type: 'SportEventScheduled'; event: SportEventView }
  | { type: 'SportEventStarted'; event: SportEventView }
  | { type: 'MarketListed'; market: MarketBaseView }
  | { type: 'MarketChanged'; market: MarketBaseView } // status, trading, result, last price
  | { type: 'OrderPlaced'; order: OrderView } // first snapshot of an order (any status, rejected included)
  | { type: 'OrderChanged'; order: OrderView } // every later change of the order
  | {
      type: 'TradeExecuted';
      trade_id: string;
      market_id: string;
      price: string;
      quantity: string;
      executed_at: number;
      provider: FillView;
      taker: FillView;
    }
  | { type: 'FillChanged'; fill: FillView } // closing, settlement, amendment, cancellation by the service
  | { type: 'PositionChanged'; position: PositionView }
  | { type: 'BalanceChanged'; balance: BalanceView }
  | { type: 'LedgerEntryRecorded'; entry: LedgerEntryView }
  | {
      type: 'MarketSettled';
      market_id: string;
      result: 'win' | 'lose' | 'void';
      settled_at: number;
      settlement_id: string;
    };

export type LegacyEngineEventType = LegacyEngineEvent['type'];
