import { apiKey, collect, createClient } from '@event-exchange/client';
const client = createClient({ baseUrl: process.env.EXCHANGE_URL ?? 'http://127.0.0.1:8080', wsUrl: process.env.EXCHANGE_WS_URL, credentials: apiKey(process.env.KEY_ID, process.env.PRIVATE_KEY) });
const market = (await collect(client.markets({ status: ['open'] }))).find((m) => m.title === 'Los Angeles Lakers to win');
const order = await client.placeOrder({ market_id: market.market_id, action: 'buy', order_type: 'limit', price: '0.55', quantity: '10' });
console.log(order.status, order.filled, order.avg_price);                      // e.g. filled 10 0.53 (against the demo makers)
for await (const fill of client.fills({ order_ids: [order.id] })) console.log('fill', fill.price, fill.filled, fill.total_fee);
const book = client.feed().orderBook(market.market_id);                         // snapshot + deltas; resyncs by itself
for await (const change of book) console.log(change.type, change.seq, 'best bid', book.bestBid, 'best offer', book.bestOffer);
