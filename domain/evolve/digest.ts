// A digest of records: each record's own fields (the record interfaces of
// domain/readModel/records.ts, not what the engine or a read model keeps beside them) in a fixed
// order, decimals as their exact text, hashed. Two holders of the same records (the engine's
// state, a fold of its journal) have the same digest: what a property test and an auditor check.

import { createHash } from 'node:crypto';
import { decimalText, isDecimal } from '../money/decimal.ts';
import type {
  AccountRecord,
  FillRecord,
  MarketRecord,
  OrderRecord,
  PositionRecord,
  SportEventRecord,
} from '../readModel/records.ts';

type Keys<T> = readonly (keyof T & string)[];

/** Compile-time check that a key list names every key of its record (and nothing else). */
type Exhaustive<T, K extends readonly string[]> =
  Exclude<keyof T, K[number]> extends never ? (Exclude<K[number], keyof T> extends never ? K : never) : never;
const keysOf =
  <T>() =>
  <const K extends readonly string[]>(keys: Exhaustive<T, K>): Keys<T> =>
    keys as unknown as Keys<T>;

export const ORDER_RECORD_KEYS = keysOf<OrderRecord>()([
  'id',
  'accountId',
  'marketId',
  'action',
  'orderType',
  'status',
  'quantityNanos',
  'filledNanos',
  'priceCents',
  'totalValue',
  'clientOrderId',
  'deviceId',
  'ipAddress',
  'expiration',
  'expirationTime',
  'expiresAt',
  'acceptedAt',
  'delayedUntil',
  'insertedAt',
  'placedPreStart',
  'cancellationReason',
  'rejectionReason',
  'cancelOnDisconnect',
  'seq',
]);
/** A fill's fields both keep (the fee entry and the settlement-side fee share are the read models' alone). */
export const FILL_RECORD_KEYS = keysOf<Omit<FillRecord, 'feeEntryId' | 'settlementFee'>>()([
  'id',
  'orderId',
  'accountId',
  'marketId',
  'eventId',
  'clientOrderId',
  'action',
  'liquidity',
  'status',
  'priceCents',
  'nanos',
  'originalNanos',
  'originalPriceCents',
  'amended',
  'lastModifiedAt',
  'closingNanos',
  'closedNanos',
  'expiredNanos',
  'closedPnl',
  'expiredPnl',
  'tradeFee',
  'unroundedFee',
  'feeRefunded',
  'points',
  'settlementsCount',
  'placedPreStart',
  'preStart',
  'deviceId',
  'ipAddress',
  'maxPriceCents',
  'openedAt',
  'expiresAt',
  'settledAt',
  'insertedAt',
  'updatedAt',
  'seq',
]);
export const POSITION_RECORD_KEYS = keysOf<PositionRecord>()([
  'accountId',
  'marketId',
  'positionNanos',
  'openPremium',
  'realizedPnl',
  'fees',
  'updatedAt',
]);
export const ACCOUNT_RECORD_KEYS = keysOf<AccountRecord>()([
  'id',
  'userId',
  'status',
  'firstName',
  'lastName',
  'email',
  'jurisdiction',
  'feeSchedule',
  'baseFeePercent',
  'makerFactor',
  'takerFactor',
  'loyaltyTier',
  'points',
  'createdAt',
  'updatedAt',
  'cash',
  'totals',
  'tradeCount',
]);
export const MARKET_RECORD_KEYS = keysOf<MarketRecord>()([
  'id',
  'eventId',
  'title',
  'shortTitle',
  'question',
  'rules',
  'symbol',
  'groupingId',
  'groupingName',
  'featured',
  'status',
  'trading',
  'maxPriceCents',
  'maxPrice',
  'inPlayDelaySec',
  'pointsCost',
  'result',
  'settledAt',
  'lastTradedCents',
  'createdAt',
  'updatedAt',
  'seq',
  'settlementFeePercent',
  'eventFeePercent',
  'groupFeePercent',
  'description',
  'groupTitle',
  'specifier',
  'positionLabel',
  'poweredBy',
  'filters',
  'tradingFilters',
  'keywords',
  'participants',
  'statDetail',
  'featuredHome',
  'manualProbability',
  'archivedAt',
]);
export const SPORT_EVENT_RECORD_KEYS = keysOf<SportEventRecord>()([
  'id',
  'title',
  'shortTitle',
  'eventType',
  'sport',
  'competition',
  'participants',
  'start',
  'startedAt',
  'eventFeePercent',
]);

function canonical(value: unknown): unknown {
  if (isDecimal(value)) return decimalText(value);
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** One record's fields named by `keys`, in that order, as comparable text. */
export function recordText<T>(record: T, keys: Keys<T>): string {
  return JSON.stringify(keys.map((key) => canonical(record[key])));
}

/** The records a holder keeps, by kind. */
export interface RecordSet {
  orders: Iterable<OrderRecord>;
  fills: Iterable<FillRecord>;
  positions: Iterable<PositionRecord>;
  accounts: Iterable<AccountRecord>;
  markets: Iterable<MarketRecord>;
  sportEvents: Iterable<SportEventRecord>;
}

/** The SHA-256 of every record's text, kind by kind, each kind's records in their texts' order. */
export function recordsHash(records: RecordSet): string {
  const hash = createHash('sha256');
  const kind = <T>(name: string, items: Iterable<T>, keys: Keys<T>) => {
    const texts = [...items].map((item) => recordText(item, keys)).sort();
    hash.update(`${name}\n${texts.join('\n')}\n`);
  };
  kind('orders', records.orders, ORDER_RECORD_KEYS);
  kind('fills', records.fills, FILL_RECORD_KEYS as Keys<FillRecord>);
  kind('positions', records.positions, POSITION_RECORD_KEYS);
  kind('accounts', records.accounts, ACCOUNT_RECORD_KEYS);
  kind('markets', records.markets, MARKET_RECORD_KEYS);
  kind('sportEvents', records.sportEvents, SPORT_EVENT_RECORD_KEYS);
  return hash.digest('hex');
}
