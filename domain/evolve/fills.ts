// How facts change a fill's record (FillRecord): opened by a trade, its lot closed by later
// trades or settled at the market's result, resettled, voided, amended. The engine and the read
// models' fold both call these (see orders.ts).

import { ceilCent, decimalOf, plus, ZERO, type Decimal } from '../money/decimal.ts';
import type { FillRecord, OrderRecord } from '../readModel/records.ts';
import type { EngineEvent } from '../engine/events.ts';

type Traded = Extract<EngineEvent, { type: 'Traded' }>;

/** A fill's record with the links between the two fills of its trade (what the engine keeps of each). */
export interface TradeFill extends FillRecord {
  tradeId: string; // the trade both fills belong to
  counterpartFillId: string;
}

/**
 * The fill one side of a Traded fact opens: `maker` says which side; `order` is the side's order
 * (its terms), `eventId` and `maxPriceCents` its market's. `fee` and `unroundedFee` are the side's
 * fee (the fact's, at nine places, and charged up to the cent); `feeEntryId` the fee's ledger entry
 * when it is known (null: the Transferred fact of kind fee that follows names it).
 */
export function fillOfTrade(
  fact: Traded,
  maker: boolean,
  order: OrderRecord,
  eventId: string,
  maxPriceCents: number,
  priceCents: number,
  nanos: number,
  closingNanos: number,
  unroundedFee: Decimal,
  fee: Decimal,
  feeEntryId: string | null,
  nowUs: number,
  seq: number,
): TradeFill {
  const open = nanos - closingNanos > 0;
  const makerSide = fact.taker_side === 'buy' ? 'sell' : 'buy';
  return {
    id: maker ? fact.maker_fill_id : fact.taker_fill_id,
    tradeId: fact.trade_id,
    counterpartFillId: maker ? fact.taker_fill_id : fact.maker_fill_id,
    orderId: order.id,
    accountId: order.accountId,
    marketId: fact.market_id,
    eventId,
    clientOrderId: order.clientOrderId,
    action: maker ? makerSide : fact.taker_side,
    liquidity: maker ? 'provider' : 'taker',
    status: open ? 'open' : 'settled',
    priceCents,
    nanos,
    originalNanos: nanos,
    originalPriceCents: priceCents,
    amended: false,
    lastModifiedAt: null,
    closingNanos,
    closedNanos: 0,
    expiredNanos: 0,
    closedPnl: ZERO,
    expiredPnl: ZERO,
    tradeFee: fee,
    unroundedFee,
    feeRefunded: ZERO,
    points: maker ? fact.maker_points : fact.taker_points,
    settlementsCount: 0,
    placedPreStart: order.placedPreStart,
    preStart: fact.pre_start,
    deviceId: order.deviceId,
    ipAddress: order.ipAddress,
    maxPriceCents,
    openedAt: nowUs,
    expiresAt: order.expiresAt,
    settledAt: open ? null : nowUs,
    insertedAt: nowUs,
    updatedAt: nowUs,
    seq,
    feeEntryId,
  };
}

/** The fee a Traded fact states for one side (nine places) and what it charges (up to the cent). */
export function tradeFeeOf(text: string): { unrounded: Decimal; rounded: Decimal } {
  const unrounded = decimalOf(text);
  return { unrounded, rounded: ceilCent(unrounded) };
}

/** Contracts of the fill's opening part not yet closed or settled. */
export function openNanosOf(fill: FillRecord): number {
  return fill.nanos - fill.closingNanos - fill.closedNanos - fill.expiredNanos;
}

/** LotClosed: `nanos` of its lot closed by a later trade, realising `pnl`; settled once nothing is open. */
export function fillLotClosed(fill: FillRecord, nanos: number, pnl: Decimal, nowUs: number): void {
  fill.closedNanos += nanos;
  fill.closedPnl = plus(fill.closedPnl, pnl);
  fill.settlementsCount += 1;
  if (openNanosOf(fill) === 0) {
    fill.status = 'settled';
    fill.settledAt = nowUs;
  }
}

/** LotSettled: `nanos` of its lot settled at the market's result, realising `pnl`. */
export function fillLotSettled(fill: FillRecord, nanos: number, pnl: Decimal, nowUs: number): void {
  fill.expiredNanos += nanos;
  fill.expiredPnl = plus(fill.expiredPnl, pnl);
  fill.settlementsCount += 1;
  fillResulted(fill, nowUs);
}

/** Its market resulted: an open fill is settled (its lot, if any, by a LotSettled fact). */
export function fillResulted(fill: FillRecord, nowUs: number): void {
  if (fill.status !== 'open') return;
  fill.status = 'settled';
  fill.settledAt = nowUs;
}

/** LotResettled: the market resulted again; its settled lot realises `pnl` more. */
export function fillLotResettled(fill: FillRecord, pnl: Decimal): void {
  fill.expiredPnl = plus(fill.expiredPnl, pnl);
  fill.settlementsCount += 1;
}

/** FillVoided: unwound at zero PnL, its trade fee refunded. */
export function fillVoided(fill: FillRecord): void {
  fill.feeRefunded = fill.tradeFee;
  fill.closedPnl = ZERO;
  fill.expiredPnl = ZERO;
  fill.status = 'cancelled';
  fill.settledAt = null;
}

/** FillAmended: the trade's price and/or size corrected, with the fee and points they make. */
export function fillAmended(
  fill: FillRecord,
  priceCents: number,
  nanos: number,
  unroundedFee: Decimal,
  fee: Decimal,
  points: number,
  nowUs: number,
): void {
  fill.priceCents = priceCents;
  fill.nanos = nanos;
  fill.tradeFee = fee;
  fill.unroundedFee = unroundedFee;
  fill.points = points;
  fill.amended = true;
  fill.lastModifiedAt = nowUs;
}

/** SettlementFeeBooked: the fill's share of a settlement-side fee (negative: of a refund). */
export function fillSettlementFeeShared(fill: FillRecord, share: Decimal): void {
  fill.settlementFee = plus(fill.settlementFee ?? ZERO, share);
}
