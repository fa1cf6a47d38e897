// A per-order change's document is rendered on first read and only then: a change dropped for an
// account nobody watches costs no rendering; the relay (JSON) and a thread hand-over (structured
// clone) read it like any field.

import { expect } from 'chai';
import { MessageChannel } from 'node:worker_threads';
import { changesForWatchers, type ProjectionChange } from '../../../domain/readModel/change.ts';
import { renderedOnRead } from '../../../projections/core/slices/batch.ts';

describe('core projector: documents rendered on read', () => {
  it('renders a document once, when first read, by JSON and by a structured clone alike', async () => {
    let renders = 0;
    const change = renderedOnRead({ kind: 'order', account_id: 'a1', seq: 7 }, () => ({ id: 'o1', n: ++renders }));
    expect(renders).to.equal(0);
    expect(JSON.parse(JSON.stringify(change))).to.deep.equal({
      kind: 'order',
      account_id: 'a1',
      seq: 7,
      doc: { id: 'o1', n: 1 },
    });
    const { port1, port2 } = new MessageChannel();
    const received = new Promise((resolve) => port2.once('message', resolve));
    port1.postMessage(change);
    expect(await received).to.deep.equal({ kind: 'order', account_id: 'a1', seq: 7, doc: { id: 'o1', n: 1 } });
    port1.close();
    expect(renders).to.equal(1);
  });

  it('keeps order and fill changes of watched accounts only, every other change of everyone', () => {
    let renders = 0;
    const of = (kind: string, account: string): ProjectionChange => ({
      projector: 'core',
      kind,
      keys: { account_id: account },
      get doc() {
        return { n: ++renders };
      },
    });
    const changes = [
      of('order', 'a'),
      of('fill', 'b'),
      of('balance', 'b'),
      of('order', 'b'),
      of('fill', 'a'),
      of('market', 'x'),
    ];
    const kept = changesForWatchers(changes, new Set(['a']));
    expect(kept.map((c) => `${c.kind}:${c.keys.account_id}`)).to.deep.equal([
      'order:a',
      'balance:b',
      'fill:a',
      'market:x',
    ]);
    expect(renders).to.equal(0);
  });
});
