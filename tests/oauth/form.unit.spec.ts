// The token endpoint's form reader gives exactly the pairs URLSearchParams gives (the reference
// reading of application/x-www-form-urlencoded), on a seeded fuzz of bodies with escapes,
// malformed escapes, '+', a leading '?' and non-ASCII, and refuses past its parameter limit.

import { expect } from 'chai';
import { formPairs } from '../../oauth/router.ts';
import { seededRandom } from '../../domain/random.ts';

const PIECES = [
  'a',
  'b',
  '=',
  '&',
  '+',
  '%',
  '2',
  'B',
  'F',
  'f',
  '0',
  '%2',
  '%zz',
  '%C3%A9',
  '%FF',
  '%E2%82',
  '%20',
  'é',
  '€',
  ' ',
  '\u{1F600}',
  '%%',
  'x',
  '?',
];

describe('token endpoint form reader', () => {
  it('reads the same pairs as URLSearchParams on 50,000 random bodies', () => {
    const random = seededRandom(20_261_125);
    for (let i = 0; i < 50_000; i++) {
      let body = '';
      const length = Math.floor(random() * 12);
      for (let j = 0; j < length; j++) body += PIECES[Math.floor(random() * PIECES.length)];
      expect(formPairs(body, 1_000), JSON.stringify(body)).to.deep.equal([...new URLSearchParams(body)]);
    }
  });

  it('reads the usual token request and refuses more pairs than the limit', () => {
    expect(formPairs('grant_type=client_credentials&scope=market_data+events', 10)).to.deep.equal([
      ['grant_type', 'client_credentials'],
      ['scope', 'market_data events'],
    ]);
    expect(formPairs('a=1&b=2&c=3', 2)).to.equal(null);
    expect(formPairs('', 2)).to.deep.equal([]);
  });
});
