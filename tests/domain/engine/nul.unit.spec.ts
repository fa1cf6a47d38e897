// The engine refuses any input holding a NUL character (U+0000) before touching its state: a
// journaled NUL would stop every projection transaction that writes it to PostgreSQL text.

import { expect } from 'chai';
import { messageOf } from '../../../domain/errors.ts';
import { Engine } from '../../../domain/engine/engine.ts';
import { stateHash } from '../../../domain/engine/snapshot.ts';
import { account, deposit, market, order, place, sportEvent, T0 } from './support.ts';

describe('engine: NUL characters in inputs', () => {
  it('refuses the input as invalid, naming the field, with no events and the state unchanged', () => {
    const engine = new Engine();
    let now = T0;
    for (const input of [account('a'), deposit('a', '100'), sportEvent(), market()]) {
      expect(engine.step({ seq: engine.nextSeq, now_us: (now += 1000), input }).ok).to.equal(true);
    }
    const hash = stateHash(engine.state);
    const cases: Array<[Parameters<Engine['step']>[0]['input'], string]> = [
      [
        place('a', order('o1', 'buy', '0.40', '1', { client_order_id: 'x\u0000' })),
        'order.client_order_id must not contain NUL characters',
      ],
      [
        {
          kind: 'PlaceOrders',
          account_id: 'a',
          orders: [order('o2', 'buy', '0.40', '1'), order('o3', 'buy', '0.40', '1', { device_id: '\u0000' })],
        },
        'orders[1].device_id must not contain NUL characters',
      ],
      [account('b\u0000'), 'account_id must not contain NUL characters'],
    ];
    for (const [input, message] of cases) {
      const outcome = engine.step({ seq: engine.nextSeq, now_us: (now += 1000), input });
      expect(outcome.ok).to.equal(false);
      expect(outcome.events).to.deep.equal([]);
      expect(messageOf(outcome.error!)).to.equal(message);
    }
    expect(stateHash(engine.state)).to.equal(hash);
  });
});
