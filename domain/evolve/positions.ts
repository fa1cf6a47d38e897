// How facts change a position's record (PositionRecord: one account in one market). The engine's
// exposures extend it; both the engine and the read models' fold call these (see orders.ts).

import { minus, plus, plusContractsTimesCents, ZERO, type Decimal } from '../money/decimal.ts';
import type { PositionRecord } from '../readModel/records.ts';
import type { TransferKind } from '../engine/events.ts';

export function positionRecordOf(accountId: string, marketId: string, nowUs: number): PositionRecord {
  return { accountId, marketId, positionNanos: 0, openPremium: ZERO, realizedPnl: ZERO, fees: ZERO, updatedAt: nowUs };
}

/** One side of a trade: `nanos` bought or sold, of which `openingNanos` open a lot at `priceCents`. */
export function positionTraded(
  position: PositionRecord,
  action: 'buy' | 'sell',
  nanos: number,
  openingNanos: number,
  priceCents: number,
): void {
  position.positionNanos += action === 'buy' ? nanos : -nanos;
  position.openPremium = plusContractsTimesCents(position.openPremium, openingNanos, priceCents);
}

/** LotClosed: `nanos` of a lot opened at `lotPriceCents` leave the open premium. */
export function positionLotClosed(position: PositionRecord, nanos: number, lotPriceCents: number): void {
  position.openPremium = plusContractsTimesCents(position.openPremium, nanos, -lotPriceCents);
}

/** FillAmended: a wholly open fill of `action` from `nanosBefore` at `priceBefore` to `nanos` at `priceCents` (its lot is all of it). */
export function positionAmended(
  position: PositionRecord,
  action: 'buy' | 'sell',
  nanosBefore: number,
  priceBefore: number,
  nanos: number,
  priceCents: number,
): void {
  position.positionNanos += (action === 'buy' ? 1 : -1) * (nanos - nanosBefore);
  position.openPremium = plusContractsTimesCents(
    plusContractsTimesCents(position.openPremium, nanosBefore, -priceBefore),
    nanos,
    priceCents,
  );
}

/**
 * A transfer of `kind` in the position's market: `amount` (>= 0) and `signed` (into the member's
 * cash when positive). Fees and refunds move its fees, PnL its realised PnL; a settlement
 * transfer closes every open contract (the result settled them, or the void unwound them).
 */
export function positionTransferred(
  position: PositionRecord,
  kind: TransferKind,
  amount: Decimal,
  signed: Decimal,
): void {
  if (kind === 'fee') position.fees = plus(position.fees, amount);
  else if (kind === 'fee_refund') position.fees = minus(position.fees, amount);
  else position.realizedPnl = plus(position.realizedPnl, signed);
  if (kind === 'settlement') positionClosedOut(position);
}

/** Every open contract settled or unwound. */
export function positionClosedOut(position: PositionRecord): void {
  position.positionNanos = 0;
  position.openPremium = ZERO;
}

/** Whether a transfer of `kind` belongs to a position (money in or out of the exchange does not). */
export function movesPosition(kind: TransferKind): boolean {
  return kind !== 'deposit' && kind !== 'withdrawal' && kind !== 'adjustment';
}
