// The engine's records as the fact that makes each states it: an account (AccountOpened), a sport
// event (SportEventScheduled), a market (MarketListed), each with what the engine keeps beside the
// record (liabilities and fee rates, an event's markets, a market's book and indexes), in the
// key order the state's snapshots and hash have always had. The engine makes its records with
// these, and the fold of its whole state (state.ts) makes them from the journal's facts.

import { FastOrderBook } from '../book/fast.ts';
import { centsToDecimal, ZERO } from '../money/decimal.ts';
import { emptyMarketCatalogue } from '../readModel/records.ts';
import type { EngineEvent } from '../engine/events.ts';
import { feeRates } from '../engine/fees.ts';
import type { AccountState, MarketState, SportEventState } from '../engine/state.ts';
import { accountDetailsSet } from './accounts.ts';
import { marketListedFields, sportEventScheduledFields } from './markets.ts';

type Fact<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

/** The fee rates of the account's schedule and tier. */
export function ratesOf(account: AccountState): AccountState['rates'] {
  return feeRates({
    fee_schedule: account.feeSchedule,
    base_fee_percent: account.baseFeePercent,
    maker_factor: account.makerFactor,
    taker_factor: account.takerFactor,
    loyalty_tier: account.loyaltyTier,
  });
}

/** What an account opened without them has of the details an input may give, in the account's key order. */
export const OPENING_DETAILS = {
  status: 'active',
  firstName: null,
  lastName: null,
  email: null,
  jurisdiction: 'us',
  feeSchedule: 'fixed_percent',
  baseFeePercent: null,
  makerFactor: null,
  takerFactor: null,
} as const satisfies Partial<AccountState>;

/** AccountOpened: the account with the fact's details, no cash, no liabilities, its fee rates. */
export function accountStateOf(fact: Fact<'AccountOpened'>, nowUs: number): AccountState {
  const account: AccountState = {
    id: fact.account_id,
    userId: fact.user_id,
    ...OPENING_DETAILS,
    loyaltyTier: 'rookie',
    points: 0,
    createdAt: nowUs,
    updatedAt: nowUs,
    cash: ZERO,
    totals: { deposits: ZERO, withdrawals: ZERO, adjustments: ZERO, fees: ZERO, settlementPnl: ZERO, traded: ZERO },
    tradeCount: 0,
    liability: ZERO,
    buyOrderLiability: ZERO,
    sellOrderLiability: ZERO,
    exposures: new Map(),
    rates: feeRates({
      fee_schedule: 'fixed_percent',
      base_fee_percent: null,
      maker_factor: null,
      taker_factor: null,
      loyalty_tier: 'rookie',
    }),
  };
  accountDetailsSet(account, fact, nowUs);
  account.rates = ratesOf(account);
  return account;
}

/** SportEventScheduled: the event, not started, with no markets yet. */
export function sportEventStateOf(fact: Fact<'SportEventScheduled'>): SportEventState {
  return { ...sportEventScheduledFields(fact), marketIds: [], eventFeePercent: null };
}

/** MarketListed (`maxPriceCents`: its max_price in cents): the market with an empty book, an empty catalogue, no fee percents. */
export function marketStateOf(
  fact: Fact<'MarketListed'>,
  maxPriceCents: number,
  nowUs: number,
  seq: number,
): MarketState {
  return {
    ...marketListedFields(fact, maxPriceCents, centsToDecimal(maxPriceCents), nowUs, seq),
    book: new FastOrderBook(maxPriceCents),
    liveOrderIds: new Set(),
    accountIds: new Set(),
    fillIds: new Set(),
    ...emptyMarketCatalogue(),
    settlementFeePercent: null,
    eventFeePercent: null,
    groupFeePercent: null,
  };
}
