// Peer addresses: one normaliser for every transport (Node's HTTP servers write IPv4-mapped
// addresses dotted, uWebSockets.js in hexadecimal), so an allowlist, a blocked network or a
// recorded order IP compares the same address the same way whichever door it came through.

import { expect } from 'chai';
import { normalizeIp } from '../../domain/address.ts';

describe('normalizeIp', () => {
  it('maps an IPv4-mapped address to its IPv4 address, in the dotted form Node writes', () => {
    expect(normalizeIp('::ffff:10.8.0.9')).to.equal('10.8.0.9');
    expect(normalizeIp('::FFFF:127.0.0.1')).to.equal('127.0.0.1');
  });

  it('maps an IPv4-mapped address in the hexadecimal forms uWebSockets.js writes', () => {
    expect(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001')).to.equal('127.0.0.1');
    expect(normalizeIp('0:0:0:0:0:ffff:0a08:0009')).to.equal('10.8.0.9');
    expect(normalizeIp('::ffff:c0a8:101')).to.equal('192.168.1.1');
  });

  it('leaves other addresses as they are; absent or empty is null', () => {
    expect(normalizeIp('127.0.0.1')).to.equal('127.0.0.1');
    expect(normalizeIp('2001:db8::1')).to.equal('2001:db8::1');
    expect(normalizeIp('0000:0000:0000:0000:0000:0000:0000:0001')).to.equal('0000:0000:0000:0000:0000:0000:0000:0001');
    expect(normalizeIp('')).to.equal(null);
    expect(normalizeIp(undefined)).to.equal(null);
    expect(normalizeIp(null)).to.equal(null);
  });
});
