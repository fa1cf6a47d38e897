// The token buckets behind the request rate limits: burst and refill, a cost larger than the
// bucket, and the bounded table: filling it with other keys never resets a bucket still
// refilling (the table refuses a newcomer instead), and a bucket that refilled makes room.

import { expect } from 'chai';
import { BURST_SECONDS, TABLE_FULL, TokenBuckets } from '../../../commands/limits/tokenBuckets.ts';

describe('TokenBuckets', () => {
  it('lets a burst of two seconds through, then one request per 1/rate seconds', () => {
    const buckets = new TokenBuckets(10);
    const rate = 5;
    for (let i = 0; i < rate * BURST_SECONDS; i += 1) expect(buckets.take('a', 1, rate, 0)).to.equal(0);
    expect(buckets.take('a', 1, rate, 0)).to.equal(200);
    expect(buckets.take('a', 1, rate, 199)).to.equal(1);
    expect(buckets.take('a', 1, rate, 200)).to.equal(0);
    expect(buckets.refillMs('a', rate, 200)).to.equal(2000);
  });

  it('a cost over the whole bucket passes only when it is full, and leaves it in debt', () => {
    const buckets = new TokenBuckets(10);
    expect(buckets.take('a', 25, 5, 0)).to.equal(0);
    expect(buckets.take('a', 1, 5, 2000)).to.equal(1200); // 15 owed, 10 refilled: 6 more are needed
    expect(buckets.take('a', 1, 5, 3200)).to.equal(0);
  });

  it('rate 0 is no limit', () => {
    const buckets = new TokenBuckets(1);
    for (let i = 0; i < 100; i += 1) expect(buckets.take('a', 1, 0, 0)).to.equal(0);
    expect(buckets.size).to.equal(0);
  });

  it('a full table never forgets a bucket still refilling: newcomers are refused until one has refilled', () => {
    const buckets = new TokenBuckets(3);
    const rate = 1; // a bucket of 2, refilled in 2 s
    expect(buckets.take('victim', 2, rate, 0)).to.equal(0);
    expect(buckets.take('x1', 1, rate, 0)).to.equal(0);
    expect(buckets.take('x2', 1, rate, 0)).to.equal(0);
    // an attacker's further keys cannot push the victim's empty bucket out
    for (let i = 0; i < 100; i += 1) expect(buckets.take(`y${i}`, 1, rate, 500 + i)).to.equal(TABLE_FULL);
    expect(buckets.take('victim', 1, rate, 700)).to.be.greaterThan(0);
    // x1 and x2 (one token used) are full again at 1 s; the victim (two used) is not
    expect(buckets.take('z1', 1, rate, 1000)).to.equal(0);
    expect(buckets.take('z2', 1, rate, 1000)).to.equal(0);
    expect(buckets.take('z3', 1, rate, 1000)).to.equal(TABLE_FULL);
    expect(buckets.take('victim', 2, rate, 1000)).to.be.greaterThan(0);
    expect(buckets.size).to.equal(3);
  });

  it('sweep forgets the buckets that have refilled, and only those', () => {
    const buckets = new TokenBuckets(10);
    buckets.take('a', 1, 1, 0);
    buckets.take('b', 2, 1, 0);
    buckets.sweep(1, 1000);
    expect(buckets.size).to.equal(1);
    expect(buckets.take('b', 1, 1, 1000)).to.equal(0);
    expect(buckets.take('b', 1, 1, 1000)).to.be.greaterThan(0);
  });

  it('a clock moved back refills from then on, not from the later time', () => {
    const buckets = new TokenBuckets(10);
    expect(buckets.take('a', 2, 1, 10_000)).to.equal(0);
    expect(buckets.take('a', 1, 1, 0)).to.equal(1000);
    expect(buckets.take('a', 1, 1, 1000)).to.equal(0);
  });
});
