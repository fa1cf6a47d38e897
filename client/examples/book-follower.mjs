// Follows one market's order book with @event-exchange/client: the client keeps the book from
// the snapshot and the deltas and joins again by itself on a gap or after a reconnect; this
// prints the best bid and offer after every change as JSON lines. Ctrl-C leaves.
//
//   EXCHANGE_URL=http://127.0.0.1:8080 EXCHANGE_WS_URL=ws://127.0.0.1:8081/socket \
//   KEY_ID=... PRIVATE_KEY=... MARKET_ID=... node examples/book-follower.mjs

import { apiKey, createClient } from '@event-exchange/client';

const env = process.env;
const client = createClient({
  baseUrl: env.EXCHANGE_URL ?? 'http://127.0.0.1:8080',
  wsUrl: env.EXCHANGE_WS_URL,
  credentials: apiKey(env.KEY_ID, env.PRIVATE_KEY),
  userAgent: 'example-book-follower/1',
});
const feed = client.feed();
const book = feed.orderBook(env.MARKET_ID);
process.on('SIGINT', () => void feed.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void feed.close().then(() => process.exit(0)));

for await (const change of book) {
  process.stdout.write(
    `${JSON.stringify({
      event: change.type,
      ...(change.type === 'snapshot' ? { reason: change.reason } : {}),
      seq: change.seq,
      best_bid: book.bestBid ?? null,
      best_offer: book.bestOffer ?? null,
      levels: book.bids.length + book.offers.length,
    })}\n`,
  );
}
