// A tiny market maker on @event-exchange/client: every TICK_MS it cancels its quotes on one market
// and quotes a bid and an offer SPREAD_CENTS apart around a mid that drifts by a cent, as one
// batch with cancel_on_disconnect (if this program dies, the service cancels its quotes). It
// prints its quotes and each of its fills (from the feed's private `fills` channel) as JSON
// lines. Ctrl-C (SIGINT) or SIGTERM cancels everything it has on the market and leaves.
//
//   EXCHANGE_URL=http://127.0.0.1:8080 EXCHANGE_WS_URL=ws://127.0.0.1:8081/socket \
//   KEY_ID=... PRIVATE_KEY=... MARKET_ID=... node examples/market-maker.mjs

import { apiKey, createClient } from '@event-exchange/client';

const env = process.env;
const TICK_MS = Number(env.TICK_MS ?? 1_500);
const SPREAD_CENTS = Number(env.SPREAD_CENTS ?? 4);
const SIZE = env.SIZE ?? '10';
let midCents = Number(env.MID_CENTS ?? 50);

const client = createClient({
  baseUrl: env.EXCHANGE_URL ?? 'http://127.0.0.1:8080',
  wsUrl: env.EXCHANGE_WS_URL,
  credentials: apiKey(env.KEY_ID, env.PRIVATE_KEY),
  userAgent: 'example-market-maker/1',
});
const marketId = env.MARKET_ID;
const print = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);
const dollars = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`; // decimal strings, never floats
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const feed = client.feed();
void (async () => {
  for await (const event of feed.fills()) {
    if (event.type === 'update' && event.fill.market_id === marketId)
      print({ event: 'fill', action: event.fill.action, price: event.fill.price, filled: event.fill.filled });
  }
})();

let running = true;
const stop = () => {
  running = false;
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

while (running) {
  await client.cancelAll({ marketIds: [marketId] });
  midCents = Math.min(90, Math.max(10, midCents + Math.floor(Math.random() * 3) - 1));
  const bid = dollars(midCents - SPREAD_CENTS / 2);
  const offer = dollars(midCents + SPREAD_CENTS / 2);
  const results = await client.placeOrders([
    { market_id: marketId, action: 'buy', order_type: 'limit', price: bid, quantity: SIZE, cancel_on_disconnect: true },
    {
      market_id: marketId,
      action: 'sell',
      order_type: 'limit',
      price: offer,
      quantity: SIZE,
      cancel_on_disconnect: true,
    },
  ]);
  const refused = results.filter((leg) => 'errors' in leg);
  print(
    refused.length === 0
      ? { event: 'quoted', bid, offer, size: SIZE }
      : { event: 'refused', errors: refused.flatMap((leg) => leg.errors) },
  );
  for (let waited = 0; running && waited < TICK_MS; waited += 50) await sleep(50);
}
const cancelled = await client.cancelAll({ marketIds: [marketId] });
print({ event: 'stopped', cancelled: cancelled.length });
await feed.close();
process.exit(0);
