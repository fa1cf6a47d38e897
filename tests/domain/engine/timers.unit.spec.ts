// The timer index: a tick acts on exactly the timed orders that are due, in the order they became
// timed (what a scan of every timed order did), whatever else has happened to the others.

import { expect } from 'chai';
import { seededRandom } from '../../../domain/random.ts';
import { anyDue } from '../../../domain/engine/timers.ts';
import { cancel, order, place, SECOND, tradingScenario } from './support.ts';

describe('engine timers (due-time index)', () => {
  it('each tick expires exactly the due good_till_time orders, in placement order, over a random history', () => {
    const random = seededRandom(0x71_3e);
    const s = tradingScenario('100000.00');
    const start = s.now;
    const expiries = new Map<string, number>();
    const placedOrder: string[] = [];
    let ticksThatExpired = 0;
    for (let step = 0; step < 400; step++) {
      const roll = random();
      if (roll < 0.6) {
        const id = `o${step}`;
        const expiresAt = s.now + Math.floor(random() * 120) * SECOND + SECOND;
        const outcome = s.when(
          place(
            random() < 0.5 ? 'a' : 'b',
            order(id, random() < 0.5 ? 'buy' : 'sell', random() < 0.5 ? '0.40' : '0.60', '1', {
              expiration: 'good_till_time',
              expiration_time: expiresAt,
            }),
          ),
        );
        if (outcome.ok && s.engine.state.orders.has(id)) {
          expiries.set(id, expiresAt);
          placedOrder.push(id);
        }
      } else if (roll < 0.7 && placedOrder.length > 0) {
        const id = placedOrder[Math.floor(random() * placedOrder.length)]!;
        const live = s.engine.state.orders.get(id);
        if (live) s.when(cancel(live.accountId, id));
      } else {
        const at = s.now + Math.floor(random() * 20) * SECOND;
        const live = new Set(s.engine.state.orders.keys());
        const due = placedOrder.filter((id) => live.has(id) && expiries.get(id)! <= at);
        if (due.length > 0) expect(anyDue(s.engine.state, at)).to.equal(true);
        const outcome = s.when({ kind: 'Tick' }, at);
        const expired = outcome.events.flatMap((e) =>
          e.type === 'OrderCancelled' && e.reason === 'expired' ? [e.order_id] : [],
        );
        expect(expired, `tick at +${(at - start) / SECOND}s`).to.deep.equal(due);
        if (due.length > 0) ticksThatExpired++;
        for (const id of s.engine.state.orders.keys())
          if (expiries.has(id)) expect(expiries.get(id)!).to.be.greaterThan(at);
      }
    }
    expect(ticksThatExpired).to.be.greaterThan(10); // the history exercised the index
  });
});
