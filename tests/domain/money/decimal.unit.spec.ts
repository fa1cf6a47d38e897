// Decimal rules: prices in whole cents below max_price, quantities rounded to nine places, the
// rounding helpers, and agreement of the matcher's scaled integers with the decimal path.

import { expect } from 'chai';
import fc from 'fast-check';
import {
  ceilCent,
  compareTexts,
  contractsTimesCents,
  decimalOf,
  decimalText,
  floorCent,
  formatCents,
  formatNanos,
  money,
  parseMoneyAmount,
  parsePriceCents,
  parseQuantityNanos,
  percentToRate,
  quotient,
} from '../../../domain/money/decimal.ts';
import { messageOf } from '../../../domain/errors.ts';
import { feeOf } from '../../../domain/money/fees.ts';
import { Big } from '../../../domain/money/big.ts';

describe('decimal rules', () => {
  describe('prices', () => {
    const cases: [unknown, number | undefined, string, number | string][] = [
      // text, max cents, `ok` or the refusal code, value or error text
      ['0.42', 100, 'ok', 42],
      ['0.4200', 100, 'ok', 42],
      ['.5', 100, 'price_malformed', 'price must be a decimal string'],
      ['1.', 100, 'price_malformed', 'price must be a decimal string'],
      ['0.99', 100, 'ok', 99],
      ['0.001', 100, 'price_sub_cent', 'price must be a whole number of cents (at most two decimal places)'],
      ['0.425', 100, 'price_sub_cent', 'price must be a whole number of cents (at most two decimal places)'],
      ['0', 100, 'price_not_positive', 'price must be greater than 0'],
      ['-0.10', 100, 'price_not_positive', 'price must be greater than 0'],
      ['1.00', 100, 'price_at_or_above_max', "price must be less than the market's max_price (1.00)"],
      ['1.50', 100, 'price_at_or_above_max', "price must be less than the market's max_price (1.00)"],
      [0.42, 100, 'price_malformed', 'price must be a decimal string'],
      ['1e-2', 100, 'price_malformed', 'price must be a decimal string'],
      ['abc', 100, 'price_malformed', 'price must be a decimal string'],
    ];
    for (const [text, max, expectation, value] of cases) {
      it(`${JSON.stringify(text)} below ${max} -> ${expectation}`, () => {
        const parsed = parsePriceCents(text, max);
        if (expectation === 'ok') expect(parsed).to.deep.equal({ ok: true, value });
        else {
          expect(parsed.ok).to.equal(false);
          if (!parsed.ok) {
            expect(parsed.error.code).to.equal(expectation);
            expect(messageOf(parsed.error)).to.equal(value);
          }
        }
      });
    }
  });

  describe('quantities (more than nine places rounded half up)', () => {
    const cases: [string, number | string][] = [
      ['10', 10_000_000_000],
      ['1.5', 1_500_000_000],
      ['0.0000000015', 2],
      ['0.0000000014', 1],
      ['0.0000000004', 'quantity must be greater than 0'],
      ['0', 'quantity must be greater than 0'],
      ['-1', 'quantity must be greater than 0'],
      ['1000001', 'quantity must not exceed 1000000'],
      ['x', 'quantity must be a decimal string'],
    ];
    for (const [text, expected] of cases) {
      it(`${text} -> ${expected}`, () => {
        const parsed = parseQuantityNanos(text);
        if (typeof expected === 'number') expect(parsed).to.deep.equal({ ok: true, value: expected });
        else expect(parsed.ok ? 'ok' : messageOf(parsed.error)).to.equal(expected);
      });
    }
  });

  it('money amounts are whole cents and positive (signed ones non-zero)', () => {
    expect(parseMoneyAmount('10.50').ok).to.equal(true);
    expect(parseMoneyAmount('10.505').ok).to.equal(false);
    expect(parseMoneyAmount('0').ok).to.equal(false);
    expect(parseMoneyAmount('-5', true).ok).to.equal(true);
    expect(parseMoneyAmount('0', true).ok).to.equal(false);
  });

  it('rounds liabilities up (towards +infinity) and the available balance down', () => {
    const table: [string, string, string][] = [
      // value, ceilCent, floorCent
      ['1.231', '1.24', '1.23'],
      ['-1.231', '-1.23', '-1.24'],
      ['1.23', '1.23', '1.23'],
      ['0.001', '0.01', '0.00'],
    ];
    for (const [value, up, down] of table) {
      expect(money(ceilCent(new Big(value))), value).to.equal(up);
      expect(money(floorCent(new Big(value))), value).to.equal(down);
    }
  });

  it('scaled integers agree with the decimal path', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999 }),
        fc.integer({ min: 1, max: 1_000_000_000_000_000 }),
        (cents, nanos) => {
          const price = formatCents(cents);
          const quantity = formatNanos(nanos);
          expect(parsePriceCents(price)).to.deep.equal({ ok: true, value: cents });
          expect(parseQuantityNanos(quantity)).to.deep.equal({ ok: true, value: nanos });
          expect(contractsTimesCents(nanos, cents).eq(new Big(quantity).times(price))).to.equal(true);
        },
      ),
    );
  });

  it('parses any plain decimal text exactly as big.js rounds it', () => {
    const text = fc
      .tuple(fc.stringMatching(/^\d{1,8}$/), fc.stringMatching(/^\d{0,12}$/))
      .map(([whole, fraction]) => (fraction ? `${whole}.${fraction}` : whole));
    fc.assert(
      fc.property(text, (quantity) => {
        const rounded = new Big(quantity).round(9, Big.roundHalfUp);
        const parsed = parseQuantityNanos(quantity);
        if (rounded.lte(0) || rounded.gt(1_000_000)) expect(parsed.ok).to.equal(false);
        else expect(parsed).to.deep.equal({ ok: true, value: Number(rounded.times(1e9).toFixed(0)) });
        const price = parsePriceCents(quantity);
        const cents = new Big(quantity).times(100);
        if (price.ok) expect(price.value).to.equal(Number(cents.toFixed(0)));
        else expect(cents.eq(cents.round(0)) && cents.gt(0) && cents.lt(100_000)).to.equal(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('divides half up at the places asked, turns percent settings into exact rates, compares texts by value', () => {
    expect(decimalText(quotient(decimalOf('2'), decimalOf('3'), 6))).to.equal('0.666667');
    expect(decimalText(quotient(decimalOf('-1'), decimalOf('8'), 2))).to.equal('-0.13'); // half away from zero
    expect(decimalText(percentToRate(1.5))).to.equal('0.015');
    expect(decimalText(percentToRate(0.1))).to.equal('0.001');
    expect(compareTexts('0.50', '0.5')).to.equal(0);
    expect(compareTexts('10', '9.99')).to.equal(1);
  });

  it('rounds a fee to nine places half up and charges it rounded up to the cent, as plain big.js does', () => {
    const rate = fc.constantFrom('0.02', '0.015', '0.0075', '0.01', '0.024', '0.005');
    fc.assert(
      fc.property(
        rate,
        fc.integer({ min: 1, max: 5_000_000_000_000 }),
        fc.integer({ min: 1, max: 50_000 }),
        (r, nanos, cents) => {
          const exact = new Big(nanos).times(cents).div(1e11).times(r);
          const unrounded = exact.round(9, Big.roundHalfUp);
          const fee = feeOf(decimalOf(r), nanos, cents);
          expect(fee.unrounded.eq(unrounded)).to.equal(true);
          expect(fee.rounded.eq(unrounded.round(2, Big.roundUp))).to.equal(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
