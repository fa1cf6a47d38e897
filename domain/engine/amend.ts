// Fill amendment by the service: a trade's price and/or size is corrected on both of its fills.
// Only a trade whose fills are both still wholly open (nothing closed, nothing closing, market
// not resulted) can be amended; the lots, positions, fees and liabilities follow the new values,
// fee differences are charged (`fee`) or refunded (`fee_refund`), and `original_*` keep the execution.

import type { Refusal } from '../errors.ts';
import {
  contractsTimesCents,
  FEE_DECIMAL_PLACES,
  formatCents,
  formatNanos,
  isNegative,
  isPositive,
  isZero,
  minus,
  negated,
  parsePriceCents,
  parseQuantityNanos,
  plus,
  toFixedPlaces,
} from '../money/decimal.ts';
import type { StepContext } from './context.ts';
import { pointsFor } from './fees.ts';
import { liabilityOf, refreshLiability } from './funds.ts';
import type { EngineInput } from './inputs.ts';
import { FEES, transfer } from './ledger.ts';
import { tradeFee } from './orders.ts';
import type { FillState, MarketState } from './state.ts';
import { assert, present } from '../assert.ts';
import { accountTradeAmended, riskCentsOf } from '../evolve/accounts.ts';
import { fillAmended } from '../evolve/fills.ts';
import { positionAmended } from '../evolve/positions.ts';
import { exposureAmended } from '../evolve/books.ts';

export function amendFill(ctx: StepContext, input: Extract<EngineInput, { kind: 'AmendFill' }>): Refusal | null {
  const state = ctx.state;
  const fill = state.fills.get(input.trade_id);
  if (!fill) {
    return state.settledFills.has(input.trade_id) ? { code: 'fill_not_amendable' } : { code: 'fill_not_found' };
  }
  if (input.price === undefined && input.filled === undefined) return { code: 'price_or_filled_required' };
  const market = present(state.markets.get(fill.marketId), "an unsettled fill's market is listed");
  const counterpart = present(state.fills.get(fill.counterpartFillId), 'both fills of a trade are unsettled together');
  const pair: FillState[] = [fill, counterpart];
  if (pair.some((f) => f.status !== 'open' || f.closingNanos > 0 || f.closedNanos > 0 || f.expiredNanos > 0)) {
    return { code: 'fill_not_amendable' };
  }
  let priceCents = fill.priceCents;
  if (input.price !== undefined) {
    const price = parsePriceCents(input.price, market.maxPriceCents);
    if (!price.ok) return price.error;
    priceCents = price.value;
  }
  let nanos = fill.nanos;
  if (input.filled !== undefined) {
    const quantity = parseQuantityNanos(input.filled);
    if (!quantity.ok) return quantity.error;
    nanos = quantity.value;
  }
  // Judge both sides before changing anything.
  const plans = pair.map((f) => planOf(ctx, market, f, priceCents, nanos));
  if (plans.some((p) => !p.fundable)) return { code: 'insufficient_funds' };

  for (const plan of plans) amended(ctx, market, plan, priceCents, nanos);
  return null;
}

/** One fill of the trade amended as `plan` judged it: the fact, its position and lot, the fee moved, the account's totals. */
function amended(ctx: StepContext, market: MarketState, plan: AmendPlan, priceCents: number, nanos: number): void {
  const max = market.maxPriceCents;
  const { f, account, exposure, lot } = plan;
  const riskCentsOld = riskCentsOf(f.action, f.priceCents, max);
  const riskCentsNew = riskCentsOf(f.action, priceCents, max);
  const riskedOld = contractsTimesCents(f.nanos, riskCentsOld);
  const riskedNew = contractsTimesCents(nanos, riskCentsNew);
  const points = pointsFor(riskedNew, market.pointsCost);
  ctx.emit({
    type: 'FillAmended',
    fill_id: f.id,
    account_id: account.id,
    market_id: market.id,
    price: formatCents(priceCents),
    quantity: formatNanos(nanos),
    fee: toFixedPlaces(plan.fee.unrounded, FEE_DECIMAL_PLACES),
    points,
  });
  positionAmended(exposure, f.action, lot.nanos, lot.priceCents, nanos, priceCents);
  assert(exposure.positionNanos === plan.positionNanos, 'an amendment moves the position as judged');
  lot.nanos = nanos;
  lot.priceCents = priceCents;
  if (!isZero(plan.feeDelta)) {
    const charge = isPositive(plan.feeDelta);
    transfer(ctx, account, negated(plan.feeDelta), FEES, charge ? 'fee' : 'fee_refund', {
      id: ctx.nextId('ledger'),
      accountId: account.id,
      type: charge ? 'fee' : 'fee_refund',
      amount: negated(plan.feeDelta),
      eventId: market.eventId,
      marketId: market.id,
      feeSource: 'trade',
      tradeId: f.id,
      ...(charge ? {} : { feeId: f.feeEntryId ?? null }),
    });
  }
  accountTradeAmended(account, f.nanos, riskCentsOld, nanos, riskCentsNew);
  exposureAmended(exposure, riskedOld, riskedNew, f.points, points);
  fillAmended(f, priceCents, nanos, plan.fee.unrounded, plan.fee.rounded, points, ctx.now);
  ctx.fillChanged(f);
  refreshLiability(account, exposure, max);
  ctx.positionChanged(exposure);
  ctx.balanceChanged(account);
}

type AmendPlan = ReturnType<typeof planOf>;

/** What amending one fill of the trade to `nanos` at `priceCents` would do to its account, and whether the account can fund it. */
function planOf(ctx: StepContext, market: MarketState, f: FillState, priceCents: number, nanos: number) {
  const max = market.maxPriceCents;
  const account = present(ctx.state.accounts.get(f.accountId), "a fill's account is open");
  const exposure = present(
    account.exposures.get(market.id),
    "an unsettled fill's account has an exposure in its market",
  );
  const lot = present(
    exposure.lots.find((l) => l.fillId === f.id),
    'a wholly open fill is one lot',
  );
  const direction = f.action === 'buy' ? 1 : -1;
  const positionNanos = exposure.positionNanos + direction * (nanos - lot.nanos);
  const openPremium = plus(
    minus(exposure.openPremium, contractsTimesCents(lot.nanos, lot.priceCents)),
    contractsTimesCents(nanos, priceCents),
  );
  const rate = f.liquidity === 'provider' ? account.rates.maker : account.rates.taker;
  const fee = tradeFee(rate, nanos, priceCents, max);
  const feeDelta = minus(fee.rounded, f.tradeFee);
  const liability = plus(
    minus(account.liability, exposure.liability),
    liabilityOf({ ...exposure, positionNanos, openPremium }, max),
  );
  const fundable = !isNegative(minus(minus(account.cash, feeDelta), liability));
  return { f, account, exposure, lot, positionNanos, openPremium, fee, feeDelta, fundable };
}
