// The one UUID check every transport uses for ids in paths, queries and channel payloads.

import { expect } from 'chai';
import { isUuid } from '../../domain/uuid.ts';

describe('isUuid', () => {
  it('accepts the 8-4-4-4-12 hexadecimal form in either case', () => {
    expect(isUuid('5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b')).to.equal(true);
    expect(isUuid('5F0C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B')).to.equal(true);
  });

  it('refuses anything else: braces, missing dashes, other letters, extra text, empty', () => {
    for (const text of [
      '{5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b}',
      '5f0c1a2b3c4d4e5f8a9b0c1d2e3f4a5b',
      '5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5g',
      '5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b\n',
      ' 5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
      '',
    ]) {
      expect(isUuid(text), JSON.stringify(text)).to.equal(false);
    }
  });
});
