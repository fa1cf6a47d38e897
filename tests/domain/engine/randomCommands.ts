// The random command histories the engine's property tests draw from: the accounts and markets a
// history plays on, one weighted case per command kind, and the engine inputs of the kinds every
// such test turns into input the same way. Each test picks its own kinds, weights and values.

import fc from 'fast-check';
import type { EngineInput, MarketFields, OrderRequest } from '../../../domain/engine/inputs.ts';
import { account, deposit, market, sportEvent, withdraw } from './support.ts';

export const ACCOUNTS = ['a', 'b', 'c'];
export const MARKETS = ['m1', 'm2'];

/**
 * Where every random history starts: each account opened with `cash`, the sport event `ev`, the
 * market m1 (with a points cost) and m2 (pre-open, with `m2Fields`).
 */
export function historyStart(cash: string, m2Fields: Partial<MarketFields> = {}): EngineInput[] {
  return [
    ...ACCOUNTS.map((id) => account(id)),
    ...ACCOUNTS.map((id) => deposit(id, cash)),
    sportEvent(),
    market('m1', { points_cost: 1 }),
    market('m2', { ...m2Fields, status: 'pre_open' }),
  ];
}

export const anyAccount = fc.constantFrom(...ACCOUNTS);
export const anyMarket = fc.constantFrom(...MARKETS);
export const anySide = fc.constantFrom('buy' as const, 'sell' as const);
/** A price from 1 to 99 cents, written as the engine takes it (`0.07`). */
export const anyPrice = fc.integer({ min: 1, max: 99 }).map((cents) => `0.${String(cents).padStart(2, '0')}`);

/** One weighted case of `fc.oneof`: a command of `kind` whose fields are drawn from `fields`. */
export function commandCase<K extends string, T extends object>(
  weight: number,
  kind: K,
  fields: { [F in keyof T]: fc.Arbitrary<T[F]> },
): { weight: number; arbitrary: fc.Arbitrary<{ kind: K } & T> } {
  return {
    weight,
    arbitrary: fc.record({ kind: fc.constant(kind), ...fields }) as unknown as fc.Arbitrary<{ kind: K } & T>,
  };
}

/**
 * The order commands of a history: limit orders (weight 10) of one of `limitQuantities`, market
 * orders (weight 3) of 1, 4 or 0.7, and cancels (weight 3) of a placed order picked by an index.
 */
export function orderCases(limitQuantities: string[]) {
  return [
    commandCase(10, 'limit', {
      who: anyAccount,
      m: anyMarket,
      side: anySide,
      price: anyPrice,
      qty: fc.constantFrom(...limitQuantities),
    }),
    commandCase(3, 'market', { who: anyAccount, m: anyMarket, side: anySide, qty: fc.constantFrom('1', '4', '0.7') }),
    commandCase(3, 'cancel', { who: anyAccount, index: fc.nat() }),
  ] as const;
}

/** What a random history has placed and filled so far, for the commands that pick one by an index. */
export class HistorySoFar {
  readonly placed: { who: string; id: string }[] = [];
  readonly fills: string[] = [];

  /** `request`, noted as placed by `who` for the cancels that follow. */
  noted(who: string, request: OrderRequest): OrderRequest {
    this.placed.push({ who, id: request.order_id });
    return request;
  }

  /** The placed order an index picks (counting round), if anything was placed. */
  placedAt(index: number): { who: string; id: string } | undefined {
    return this.placed[index % Math.max(this.placed.length, 1)];
  }

  /** The fill an index picks (counting round), or `none` before the first. */
  fillAt(index: number): string {
    return this.fills[index % Math.max(this.fills.length, 1)] ?? 'none';
  }
}

/** The command kinds that become the same engine input in every property test. */
export type CommonCommand =
  | { kind: 'withdraw'; who: string; amount: string }
  | { kind: 'adjust'; who: string; amount: string }
  | { kind: 'status'; m: string; status: 'open' | 'pre_open' | 'closed' | 'scheduled' | 'cancelled'; trading: boolean }
  | { kind: 'result'; m: string; result: 'win' | 'lose' | 'void' }
  | { kind: 'amend'; index: number; price: string }
  | { kind: 'start' }
  | { kind: 'tick' };

/**
 * The engine input of a common command, the history's `i`th (entry ids are `w<i>`, `j<i>`); an
 * amendment picks one of the history's fills by its index.
 */
export function commonInput(cmd: CommonCommand, i: number, history: HistorySoFar): EngineInput {
  switch (cmd.kind) {
    case 'withdraw':
      return withdraw(cmd.who, cmd.amount, `w${i}`);
    case 'adjust':
      return { kind: 'Adjust', account_id: cmd.who, entry_id: `j${i}`, amount: cmd.amount, reason: null };
    case 'status':
      return { kind: 'ChangeMarketStatus', market_id: cmd.m, status: cmd.status, trading: cmd.trading };
    case 'result':
      return { kind: 'ResultMarket', market_id: cmd.m, result: cmd.result };
    case 'amend':
      return { kind: 'AmendFill', trade_id: history.fillAt(cmd.index), price: cmd.price };
    case 'start':
      return { kind: 'StartSportEvent', event_id: 'ev' };
    case 'tick':
      return { kind: 'Tick' };
    default: {
      const never: never = cmd;
      throw new Error(String(never));
    }
  }
}
