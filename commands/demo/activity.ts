// DEMO=1: after seeding, the two demo market makers keep the order books moving at a gentle pace
// so a newcomer watching `orderbook` or `ticker` sees them change: every DEMO_TICK_MS one quoted
// market gets a new quote from each maker around a drifting mid price, and now and then one maker
// takes the other's offer or bid (a trade). Each maker keeps at most DEMO_QUOTES_KEPT_PER_MARKET
// of its quotes resting per market, cancelling the oldest. Orders go through the engine like any
// member's: the makers are trading programs on the client package (@event-exchange/client),
// placing and cancelling over /api/v1 with an API key each (registered from a key pair made here;
// the service never sees the private key; revoked when the activity stops). The markets and
// makers come from the seed's marker stream.
// A market the operator closed, halted or settled refuses the makers' orders: that is said once
// in the log, the market is then skipped quietly, and activity resumes if it accepts orders again.

import {
  apiKey,
  createClient,
  ExchangeError,
  generateKeyPair,
  type ExchangeClient,
  type OrderInput,
} from '@event-exchange/client';
import { formatCents } from '../../domain/money/decimal.ts';
import { issueApiKey, revokeApiKey } from '../credentials/apiKeys.ts';
import type { AppContext } from '../context.ts';
import { valueOrThrow } from '../result.ts';
import { DEMO_STREAM } from './seed.ts';

const DEMO_TICK_MS = 1_500;
const DEMO_QUOTES_KEPT_PER_MARKET = 12;
/** One tick in this many crosses the spread (a trade). */
const TRADE_EVERY_TICKS = 3;
const MID_CENTS_MIN = 30;
const MID_CENTS_MAX = 70;

export interface DemoActivity {
  stop(): Promise<void>;
}

interface MarketState {
  midCents: number;
  resting: Map<string, string[]>; // maker account → its resting quote ids, oldest first
}

const MAKER_USER_AGENT = 'exchange-demo-maker/1';

function limitOrder(marketId: string, action: 'buy' | 'sell', cents: number, quantity: number): OrderInput {
  return {
    market_id: marketId,
    action,
    order_type: 'limit',
    price: formatCents(cents),
    quantity: String(quantity),
    device_id: 'demo-activity',
  };
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/** A read-write key for a maker, from a key pair made here, and a client trading with it. */
async function makerClient(
  ctx: AppContext,
  baseUrl: string,
  accountId: string,
): Promise<{ keyId: string; client: ExchangeClient }> {
  const pair = generateKeyPair();
  const { key_id: keyId } = valueOrThrow(
    await issueApiKey(ctx, { account_id: accountId, scope: 'read_write', public_key: pair.publicKey }),
  );
  return {
    keyId,
    client: createClient({ baseUrl, credentials: apiKey(keyId, pair.privateKey), userAgent: MAKER_USER_AGENT }),
  };
}

/**
 * Starts the job when the seed recorded its makers and quoted markets; otherwise does nothing.
 * `baseUrl` is the service's own REST address (the makers trade over /api/v1).
 */
export async function startDemoActivity(
  ctx: AppContext,
  options: { baseUrl: string; tickMs?: number },
): Promise<DemoActivity> {
  const tickMs = options.tickMs ?? DEMO_TICK_MS;
  const marks = await ctx.store.readStream(DEMO_STREAM);
  const seeded = marks.find((mark) => mark.type === 'DemoSeeded')?.data as
    { market_makers?: string[]; quoted_markets?: string[] } | undefined;
  const makers = seeded?.market_makers ?? [];
  const marketIds = seeded?.quoted_markets ?? [];
  if (makers.length < 2 || marketIds.length === 0) {
    ctx.logger.info('demo activity: no quoted demo markets recorded by the seed; the books stay still');
    return { stop: async () => undefined };
  }
  const [alpha, beta] = makers as [string, string];
  const clients = new Map<string, ExchangeClient>();
  const keyIds: string[] = [];
  for (const maker of [alpha, beta]) {
    const { keyId, client } = await makerClient(ctx, options.baseUrl, maker);
    clients.set(maker, client);
    keyIds.push(keyId);
  }
  const markets = new Map<string, MarketState>(marketIds.map((id) => [id, { midCents: 46, resting: new Map() }]));
  let ticks = 0;
  const refusing = new Set<string>(); // markets whose refusal was logged; quiet until they accept again
  let running: Promise<void> | undefined;
  let stopped = false;

  const quote = async (
    marketId: string,
    state: MarketState,
    maker: string,
    action: 'buy' | 'sell',
    cents: number,
  ): Promise<void> => {
    const client = clients.get(maker)!;
    const order = await client.placeOrder(limitOrder(marketId, action, cents, randomInt(5, 60)));
    const resting = state.resting.get(maker) ?? [];
    resting.push(order.id);
    state.resting.set(maker, resting);
    const stale = resting.splice(0, Math.max(0, resting.length - DEMO_QUOTES_KEPT_PER_MARKET));
    if (stale.length > 0) await client.cancelOrders(stale);
  };

  const tick = async (marketId: string): Promise<void> => {
    const state = markets.get(marketId)!;
    state.midCents = Math.min(MID_CENTS_MAX, Math.max(MID_CENTS_MIN, state.midCents + randomInt(-1, 1)));
    const [bidder, offerer] = ticks % 2 === 0 ? [alpha, beta] : [beta, alpha];
    await quote(marketId, state, bidder, 'buy', state.midCents - randomInt(1, 3));
    await quote(marketId, state, offerer, 'sell', state.midCents + randomInt(1, 3));
    if (ticks % TRADE_EVERY_TICKS === 0) {
      // the bidder takes the best offer it just saw placed (a trade at the offer's price)
      await clients.get(bidder)!.placeOrder(limitOrder(marketId, 'buy', state.midCents + 3, randomInt(1, 10)));
    }
  };

  const timer = setInterval(() => {
    if (running || stopped) return; // one tick at a time; a slow engine skips ticks
    ticks += 1;
    const marketId = marketIds[ticks % marketIds.length]!;
    running = tick(marketId)
      .then(() => {
        if (refusing.delete(marketId))
          ctx.logger.info(
            { market_id: marketId },
            'demo activity: the market accepts orders again; the makers quote it',
          );
      })
      .catch((error: unknown) => {
        // 422: the engine refused the order (market closed, halted, settled)
        if (!(error instanceof ExchangeError && error.status === 422))
          ctx.logger.warn({ err: error }, 'demo activity tick failed');
        else if (!refusing.has(marketId)) {
          refusing.add(marketId);
          ctx.logger.info(
            { market_id: marketId, reason: error.error },
            "demo activity: the market refuses the makers' orders; skipping it until it accepts them again",
          );
        }
      })
      .finally(() => {
        running = undefined;
      });
  }, tickMs);
  timer.unref();
  ctx.logger.info({ markets: marketIds.length, tickMs }, 'demo activity: market makers keep quoting and trading');
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      for (const keyId of keyIds) {
        await revokeApiKey(ctx, keyId)
          .then(valueOrThrow)
          .catch((error: unknown) =>
            ctx.logger.debug({ err: error, key_id: keyId }, 'demo activity: revoking a maker key failed'),
          );
      }
    },
  };
}
