// Costing an order before it is placed (the `order_slip` and `betslip` channels): walk the
// opposite side of the book from the best price as the matcher would, then price the rest.
//   fills at once   levels taken best first while the price is acceptable (a limit order: at or
//                   better than its price; a market order: any, or up to its price when given)
//   resting         a limit order's remainder rests at its price; a market order's is dropped
//   risk            per contract: the price on a buy, max_price - price on a sell (docs/ENGINE.md "Funds");
//                   fills at their own prices, the resting remainder at the limit price
//   potential fee   the taker rate on what fills at once, the maker rate on the resting part
//                   (each level priced as one trade, rounded up to the cent as the engine does;
//                   a level made of several resting orders may cost a cent more per order)
//   cost            risk + potential fee, compared with the available balance
// The book is the public, aggregated one: the member's own resting orders are in it (the
// engine's self-trade prevention would cancel those instead of matching them).

import {
  compare,
  contractsTimesCents,
  decimalOf,
  decimalText,
  formatCents,
  formatNanos,
  money,
  perContract,
  plus,
  toFixedPlaces,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import type { FeeRates } from '../engine/fees.ts';
import { tradeFee } from '../engine/orders.ts';
import { riskCentsOf } from '../evolve/risk.ts';

/** A price level as the matcher sees it: price in cents, quantity in nano-contracts. */
export interface LevelUnits {
  cents: number;
  nanos: number;
}

export interface QuoteRequest {
  action: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  /** Limit price (required for a limit order); for a market order, the worst price it may reach. */
  priceCents: number | null;
  nanos: number;
  maxPriceCents: number;
  /** The opposite side, best first (offers ascending for a buy, bids descending for a sell). */
  opposite: readonly LevelUnits[];
  rates: FeeRates;
}

interface QuoteFill {
  cents: number;
  nanos: number;
}

interface Quote {
  fills: QuoteFill[];
  filledNanos: number;
  /** Σ contracts × price of the fills, dollars (for the average price). */
  filledPremium: Decimal;
  restingNanos: number;
  /** A market order's part that finds no acceptable liquidity and is dropped. */
  unfilledNanos: number;
  risk: Decimal;
  potentialFee: Decimal;
  cost: Decimal;
}

const riskCents = riskCentsOf;

function acceptable(request: QuoteRequest, cents: number): boolean {
  if (request.priceCents === null) return true;
  return request.action === 'buy' ? cents <= request.priceCents : cents >= request.priceCents;
}

export function quoteOrder(request: QuoteRequest): Quote {
  const fills: QuoteFill[] = [];
  let remaining = request.nanos;
  let filledPremium = ZERO;
  let risk = ZERO;
  let potentialFee = ZERO;
  for (const level of request.opposite) {
    if (remaining <= 0 || !acceptable(request, level.cents)) break;
    const nanos = Math.min(remaining, level.nanos);
    if (nanos <= 0) continue;
    fills.push({ cents: level.cents, nanos });
    remaining -= nanos;
    filledPremium = plus(filledPremium, contractsTimesCents(nanos, level.cents));
    risk = plus(risk, contractsTimesCents(nanos, riskCents(request.action, level.cents, request.maxPriceCents)));
    potentialFee = plus(potentialFee, tradeFee(request.rates.taker, nanos, level.cents, request.maxPriceCents).rounded);
  }
  let restingNanos = 0;
  let unfilledNanos = 0;
  if (remaining > 0 && request.orderType === 'limit' && request.priceCents !== null) {
    restingNanos = remaining;
    risk = plus(
      risk,
      contractsTimesCents(remaining, riskCents(request.action, request.priceCents, request.maxPriceCents)),
    );
    potentialFee = plus(
      potentialFee,
      tradeFee(request.rates.maker, remaining, request.priceCents, request.maxPriceCents).rounded,
    );
  } else if (remaining > 0) {
    unfilledNanos = remaining;
  }
  return {
    fills,
    filledNanos: request.nanos - remaining,
    filledPremium,
    restingNanos,
    unfilledNanos,
    risk,
    potentialFee,
    cost: plus(risk, potentialFee),
  };
}

/** Places of an order slip's average price (an order's `avg_price` shows up to 7). */
const AVERAGE_PRICE_PLACES = 7;

interface QuoteTexts {
  fills: Array<{ price: string; quantity: string }>;
  filled_quantity: string;
  average_price: string | null;
  resting_quantity: string;
  unfilled_quantity: string;
  risk: string;
  potential_fee: string;
  cost: string;
  available_balance: string;
  sufficient_funds: boolean;
}

/**
 * The quote as decimal strings. `moneyPlaces` null: money exact (`order_slip`); 2: money and the
 * average price rounded half up to two decimals (`betslip`). Funds are judged on the exact cost.
 */
export function quoteTexts(quote: Quote, availableBalance: string, moneyPlaces: 2 | null): QuoteTexts {
  const show = (value: Decimal) => (moneyPlaces === null ? money(value) : toFixedPlaces(value, moneyPlaces));
  const average =
    quote.filledNanos > 0
      ? perContract(quote.filledPremium, quote.filledNanos, moneyPlaces ?? AVERAGE_PRICE_PLACES)
      : null;
  return {
    fills: quote.fills.map((fill) => ({ price: formatCents(fill.cents), quantity: formatNanos(fill.nanos) })),
    filled_quantity: formatNanos(quote.filledNanos),
    average_price:
      average === null ? null : moneyPlaces === null ? decimalText(average) : toFixedPlaces(average, moneyPlaces),
    resting_quantity: formatNanos(quote.restingNanos),
    unfilled_quantity: formatNanos(quote.unfilledNanos),
    risk: show(quote.risk),
    potential_fee: show(quote.potentialFee),
    cost: show(quote.cost),
    available_balance: show(decimalOf(availableBalance)),
    sufficient_funds: compare(quote.cost, decimalOf(availableBalance)) <= 0,
  };
}
