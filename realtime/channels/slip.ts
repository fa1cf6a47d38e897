// `order_slip:{user_id}` and `betslip:{user_id}` (needs `orders.read`): the client pushes
// `quote` with an order body shaped as `POST /api/v1/orders` and gets its costing in the reply
// (`{slip}`): what fills at once and at which prices, the average price, the resting remainder,
// risk, potential fee and cost against the member's available balance. The costing is computed
// from the live book this feed holds (the same levels `orderbook` publishes) and pushed again as
// `slip` whenever that market's book moves and the costing changes. Nothing is placed.
// `betslip` is the older name: the same answer with money rounded to two decimals.

import { isUuid } from '../../domain/uuid.ts';
import { messageOf } from '../../domain/errors.ts';
import { feeRates, type FeeTerms } from '../../domain/engine/fees.ts';
import {
  formatCents,
  formatNanos,
  parseMaxPriceCents,
  parsePriceCents,
  parseQuantityNanos,
} from '../../domain/money/decimal.ts';
import { quoteOrder, quoteTexts, type LevelUnits } from '../../domain/slip/quote.ts';
import { getBalance } from '../../projections/core/queries/accounts.ts';
import type { Queryable } from '../../projections/core/queries/db.ts';
import type { Feed } from '../feed.ts';
import type { Level } from '../state/books.ts';
import { refuse, type Channel, type InReply, type JoinContext } from './channel.ts';
import { memberFor, type ReadYourWrites } from './private.ts';

interface SlipOrder {
  market_id: string;
  action: 'buy' | 'sell';
  order_type: 'limit' | 'market';
  priceCents: number | null;
  nanos: number;
  maxPriceCents: number;
}

type Parsed = { ok: true; order: SlipOrder } | { ok: false; reply: InReply };

const invalid = (error: string): Parsed => ({
  ok: false,
  reply: { status: 'error', response: { reason: 'invalid order', error } },
});

/** The order body's fields the costing reads, checked as POST /api/v1/orders checks them. */
function parseOrder(body: Record<string, unknown>, feed: Feed): Parsed {
  const { market_id: marketId, action, order_type: orderType, price, quantity } = body;
  if (typeof marketId !== 'string' || !isUuid(marketId)) return invalid('market_id must be a market UUID');
  if (action !== 'buy' && action !== 'sell') return invalid('action must be buy or sell');
  if (orderType !== 'limit' && orderType !== 'market') return invalid('order_type must be limit or market');
  const maxPrice = feed.markets.maxPrice(marketId.toLowerCase());
  if (maxPrice === undefined)
    return { ok: false, reply: { status: 'error', response: { reason: 'unknown market', market_id: marketId } } };
  const max = parseMaxPriceCents(maxPrice);
  if (!max.ok) return invalid(messageOf(max.error));
  let priceCents: number | null = null;
  if (price !== undefined && price !== null) {
    const parsed = parsePriceCents(price, max.value);
    if (!parsed.ok) return invalid(messageOf(parsed.error));
    priceCents = parsed.value;
  }
  if (orderType === 'limit' && priceCents === null) return invalid('price is required for limit orders');
  const nanos = parseQuantityNanos(quantity);
  if (!nanos.ok) return invalid(messageOf(nanos.error));
  return {
    ok: true,
    order: {
      market_id: marketId.toLowerCase(),
      action,
      order_type: orderType,
      priceCents,
      nanos: nanos.value,
      maxPriceCents: max.value,
    },
  };
}

function unitsOf(levels: readonly Level[]): LevelUnits[] {
  const units: LevelUnits[] = [];
  for (const [price, quantity] of levels) {
    const cents = parsePriceCents(price);
    const nanos = parseQuantityNanos(quantity);
    if (cents.ok && nanos.ok) units.push({ cents: cents.value, nanos: nanos.value });
  }
  return units;
}

function slipChannel(
  name: 'order_slip' | 'betslip',
  feed: Feed,
  db: Queryable,
  readYourWrites: ReadYourWrites,
): Channel {
  const moneyPlaces = name === 'betslip' ? 2 : null;
  return {
    name,
    suffixed: true,
    async join(ctx: JoinContext) {
      const member = memberFor(ctx, ['orders.read']);
      if ('ok' in member) return member;
      const accountId = member.account_id;
      feed.balances.retain(accountId);
      try {
        await readYourWrites(accountId);
        if (!ctx.current()) {
          feed.balances.release(accountId);
          return refuse('abandoned'); // replaced or left meanwhile: nobody hears the answer
        }
        feed.balances.seed(accountId, await getBalance(db, accountId));
      } catch (error) {
        feed.balances.release(accountId);
        throw error;
      }
      let order: SlipOrder | null = null;
      let lastSent = '';
      let stopListening: (() => void) | undefined;

      const cost = (): Record<string, unknown> | null => {
        if (!order) return null;
        const balance = feed.balances.latest(accountId);
        if (!balance) return null;
        const book = feed.books.ladder(order.market_id);
        const quote = quoteOrder({
          action: order.action,
          orderType: order.order_type,
          priceCents: order.priceCents,
          nanos: order.nanos,
          maxPriceCents: order.maxPriceCents,
          opposite: unitsOf(order.action === 'buy' ? book.offers : book.bids),
          rates: feeRates(balance as unknown as FeeTerms),
        });
        return {
          market_id: order.market_id,
          action: order.action,
          order_type: order.order_type,
          price: order.priceCents === null ? null : formatCents(order.priceCents),
          quantity: formatNanos(order.nanos),
          ...quoteTexts(quote, String(balance.available_balance ?? '0'), moneyPlaces),
          book_seq: feed.books.snapshot(order.market_id).seq,
        };
      };

      const repush = (): void => {
        const slip = cost();
        if (!slip) return;
        const { book_seq: _seq, ...comparable } = slip;
        const text = JSON.stringify(comparable);
        if (text === lastSent) return;
        lastSent = text;
        ctx.push('slip', { slip });
      };

      return {
        ok: true,
        topics: [],
        response: () => ({}),
        session: {
          handleIn(event, payload) {
            if (event !== 'quote') return { status: 'error', response: { reason: 'unmatched event', event } };
            const parsed = parseOrder(payload, feed);
            if (!parsed.ok) return parsed.reply;
            if (order?.market_id !== parsed.order.market_id) {
              stopListening?.();
              stopListening = feed.onBook(parsed.order.market_id, repush);
            }
            order = parsed.order;
            const slip = cost();
            if (!slip) return { status: 'error', response: { reason: 'unavailable' } };
            const { book_seq: _seq, ...comparable } = slip;
            lastSent = JSON.stringify(comparable);
            return { status: 'ok', response: { slip } };
          },
          leave() {
            stopListening?.();
            feed.balances.release(accountId);
          },
        },
      };
    },
  };
}

export function slipChannels(feed: Feed, db: Queryable, readYourWrites: ReadYourWrites): Channel[] {
  return [slipChannel('order_slip', feed, db, readYourWrites), slipChannel('betslip', feed, db, readYourWrites)];
}
