// Member login passwords set by the operator: stored only as scrypt hashes; the latest wins.

import { expect } from 'chai';
import { passwordStream, setPassword, verifyPassword } from '../../../commands/accounts/password.ts';
import { MemoryEventStore } from '../../../eventstore/memory.ts';

const ACCOUNT = '6f1c1d1e-0000-4000-8000-000000000001';

describe('account passwords', () => {
  it('verifies the latest password, never stores it in clear', async () => {
    const store = new MemoryEventStore();
    expect(await verifyPassword(store, ACCOUNT, 'anything')).to.equal(false);
    await setPassword(store, ACCOUNT, 'first secret', 1);
    expect(await verifyPassword(store, ACCOUNT, 'first secret')).to.equal(true);
    expect(await verifyPassword(store, ACCOUNT, 'First secret')).to.equal(false);
    await setPassword(store, ACCOUNT, 'second secret', 2);
    expect(await verifyPassword(store, ACCOUNT, 'first secret')).to.equal(false);
    expect(await verifyPassword(store, ACCOUNT, 'second secret')).to.equal(true);
    const stored = JSON.stringify((await store.readStream(passwordStream(ACCOUNT))).map((e) => e.data));
    expect(stored).to.not.include('secret');
    expect(stored).to.include('scrypt$');
  });
});
