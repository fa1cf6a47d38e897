// What one contract risks and wins at a price: a buy risks the price and wins max_price - price;
// a sell the other way round. Every rule that needs either calls these.

/** Per contract at `priceCents`, what a side risks: the price bought, max_price - price sold. */
export function riskCentsOf(action: 'buy' | 'sell', priceCents: number, maxPriceCents: number): number {
  return action === 'buy' ? priceCents : maxPriceCents - priceCents;
}

/** Per contract at `priceCents`, what a side wins: max_price - price bought, the price sold. */
export function toWinCentsOf(action: 'buy' | 'sell', priceCents: number, maxPriceCents: number): number {
  return action === 'buy' ? maxPriceCents - priceCents : priceCents;
}
