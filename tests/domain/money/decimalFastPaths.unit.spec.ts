// The exact fast paths of domain/money/decimal.ts (safe-integer arithmetic on big.js digits,
// formulas at a common power of ten, texts written straight from integers) give exactly what
// plain big.js gives, for small values (the fast path) and for long ones (the big.js fallback).

import { expect } from 'chai';
import fc from 'fast-check';
import {
  abs,
  ceilCent,
  compare,
  contractsTimesCents,
  decimalText,
  isDecimal,
  isNegative,
  isPositive,
  isZero,
  contractsTimesCentsLessMoney,
  contractsTimesCentsMoney,
  floorCent,
  formatCents,
  formatNanos,
  fromInteger,
  integerAt,
  lastExponent,
  minus,
  money,
  negated,
  perContract,
  perContractMoney,
  plus,
  plusContractsTimesCents,
  round9,
  roundedMoney,
  times,
  timesRatio,
  toFixedPlaces,
  wholeQuotient,
  type Decimal,
} from '../../../domain/money/decimal.ts';
import { Big } from '../../../domain/money/big.ts';

/** Plain big.js money text: at least two decimals, exact beyond. */
function referenceMoney(value: Decimal): string {
  const text = value.toFixed();
  const point = text.indexOf('.');
  if (point < 0) return `${text}.00`;
  if (text.length - point - 1 === 1) return `${text}0`;
  return text === '-0.00' ? '0.00' : text;
}

/** Decimals from a few digits to 30, with 0 to 14 places, either sign. */
const decimal = fc
  .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,30}$/), fc.integer({ min: 0, max: 14 }))
  .map(([negative, digits, places]) => {
    const padded = digits.padStart(places + 1, '0');
    const text = places > 0 ? `${padded.slice(0, -places)}.${padded.slice(-places)}` : padded;
    return new Big(`${negative ? '-' : ''}${text}`);
  });
const small = fc
  .tuple(fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }), fc.integer({ min: 0, max: 11 }))
  .map(([integer, places]) => new Big(integer).div(new Big(10).pow(places)));
const anyDecimal = fc.oneof(decimal, small);
const nanos = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000_000_000_000 }),
  fc.integer({ min: 1, max: 50 }).map((n) => n * 1_000_000_000),
);
const cents = fc.integer({ min: 1, max: 100_000 });
const runs = { numRuns: 3000 };

describe('decimal fast paths agree with big.js', () => {
  it('plus, minus, times, negated, compare', () => {
    fc.assert(
      fc.property(anyDecimal, anyDecimal, (x, y) => {
        expect(plus(x, y).eq(x.plus(y)), `${x} + ${y}`).to.equal(true);
        expect(minus(x, y).eq(x.minus(y)), `${x} - ${y}`).to.equal(true);
        expect(times(x, y).eq(x.times(y)), `${x} * ${y}`).to.equal(true);
        expect(negated(x).eq(x.times(-1))).to.equal(true);
        expect(compare(x, y)).to.equal(x.cmp(y));
        expect(money(plus(x, y))).to.equal(referenceMoney(x.plus(y)));
      }),
      runs,
    );
  });

  it('rounding to the cent and to nine places, and the money text', () => {
    fc.assert(
      fc.property(anyDecimal, (x) => {
        expect(ceilCent(x).eq(x.round(2, x.s < 0 ? Big.roundDown : Big.roundUp))).to.equal(true);
        expect(floorCent(x).eq(x.round(2, x.s < 0 ? Big.roundUp : Big.roundDown))).to.equal(true);
        expect(round9(x).eq(x.round(9, Big.roundHalfUp))).to.equal(true);
        expect(money(x)).to.equal(referenceMoney(x));
        for (const places of [0, 2, 9]) expect(toFixedPlaces(x, places)).to.equal(x.toFixed(places));
      }),
      runs,
    );
  });

  it('integers at a common exponent and rounded money texts from them', () => {
    fc.assert(
      fc.property(anyDecimal, fc.integer({ min: 0, max: 4 }), fc.boolean(), (x, extra, up) => {
        const exponent = lastExponent(x) - extra;
        const integer = integerAt(x, exponent);
        if (!Number.isSafeInteger(integer)) return; // does not fit: callers fall back to decimals
        expect(fromInteger(integer, exponent).eq(x)).to.equal(true);
        const rounded = roundedMoney(integer, exponent, up);
        if (rounded !== null) expect(rounded).to.equal(referenceMoney(up ? ceilCent(x) : floorCent(x)));
      }),
      runs,
    );
  });

  it('ratios: timesRatio, perContract, perContractMoney, wholeQuotient', () => {
    const positive = anyDecimal.map((x) => x.abs()).filter((x) => !x.eq(0));
    fc.assert(
      fc.property(
        positive,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        nanos,
        fc.integer({ min: 0, max: 9 }),
        (x, multiplier, divisor, n, places) => {
          expect(
            timesRatio(x, multiplier, divisor, places).eq(
              x.times(multiplier).div(divisor).round(places, Big.roundHalfUp),
            ),
          ).to.equal(true);
          const perContractReference = x.times(1_000_000_000).div(n).round(places, Big.roundHalfUp);
          expect(perContract(x, n, places).eq(perContractReference)).to.equal(true);
          expect(perContractMoney(x, n, places)).to.equal(referenceMoney(perContractReference));
          expect(wholeQuotient(x, divisor)).to.equal(Number(x.div(divisor).round(0, Big.roundDown).toFixed(0)));
        },
      ),
      runs,
    );
  });

  it('contract amounts: nanos x cents, added to and taken from a decimal, and their texts', () => {
    fc.assert(
      fc.property(nanos, cents, anyDecimal, (n, c, x) => {
        const reference = new Big(n).times(c).div(new Big(10).pow(11));
        expect(contractsTimesCents(n, c).eq(reference)).to.equal(true);
        expect(contractsTimesCentsMoney(n, c)).to.equal(referenceMoney(reference));
        expect(plusContractsTimesCents(x, n, c).eq(x.plus(reference))).to.equal(true);
        expect(contractsTimesCentsLessMoney(n, c, x)).to.equal(referenceMoney(reference.minus(x)));
      }),
      runs,
    );
  });

  it('decimals computed on integers (digits made only when big.js reads them) are the big.js values of the same digits', () => {
    // any safe integer at any exponent, as the integer paths make them; the reference is plain big.js
    const integer = fc.oneof(
      fc.integer({ min: -9_999_999, max: 9_999_999 }),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    );
    const scaledPair = fc.tuple(integer, fc.integer({ min: -20, max: 6 })).map(([n, exponent]) => ({
      scaled: fromInteger(n, exponent),
      plain: new Big(n).times(new Big(10).pow(exponent + 20)).div(new Big(10).pow(20)),
    }));
    fc.assert(
      fc.property(scaledPair, scaledPair, anyDecimal, ({ scaled: x, plain: px }, { scaled: y, plain: py }, z) => {
        expect(isDecimal(x)).to.equal(true);
        expect(decimalText(x)).to.equal(px.toFixed());
        expect(JSON.stringify(x)).to.equal(JSON.stringify(px));
        expect(x.toFixed(2)).to.equal(px.toFixed(2));
        if (!px.eq(0)) expect([x.s, x.e, [...x.c]]).to.deep.equal([px.s, px.e, px.c]);
        expect(money(x)).to.equal(referenceMoney(px));
        expect([isZero(x), isNegative(x), isPositive(x)]).to.deep.equal([px.eq(0), px.lt(0), px.gt(0)]);
        expect(abs(x).eq(px.abs())).to.equal(true);
        expect(negated(x).eq(px.neg())).to.equal(true);
        expect(compare(x, y)).to.equal(px.cmp(py));
        expect(compare(x, z)).to.equal(px.cmp(z));
        expect(compare(z, x)).to.equal(z.cmp(px));
        expect(plus(x, y).eq(px.plus(py)), `${px} + ${py}`).to.equal(true);
        expect(minus(x, z).eq(px.minus(z))).to.equal(true);
        expect(times(x, y).eq(px.times(py))).to.equal(true);
        // big.js's own methods on them, and on mixes with plain values
        expect(x.plus(y).eq(px.plus(py))).to.equal(true);
        expect(x.minus(z).eq(px.minus(z))).to.equal(true);
        expect(z.minus(x).eq(z.minus(px))).to.equal(true);
        expect(x.times(y).eq(px.times(py))).to.equal(true);
        if (!py.eq(0)) expect(x.div(y).eq(px.div(py))).to.equal(true);
        expect(x.round(2, Big.roundUp).eq(px.round(2, Big.roundUp))).to.equal(true);
        expect(ceilCent(x).eq(px.round(2, px.s < 0 ? Big.roundDown : Big.roundUp))).to.equal(true);
        expect(round9(x).eq(px.round(9, Big.roundHalfUp))).to.equal(true);
        for (const places of [0, 2, 9]) expect(toFixedPlaces(x, places)).to.equal(px.toFixed(places));
        expect(decimalText(x)).to.equal(px.toFixed()); // reading the digits changed nothing
      }),
      runs,
    );
  });

  it('a decimal computed on integers cannot be changed in place', () => {
    const value = plus(fromInteger(125, -2), fromInteger(1, -2));
    expect(() => {
      (value as { c: number[] }).c = [9];
    }).to.throw(TypeError);
    expect(decimalText(value)).to.equal('1.26');
  });

  it('cents and nano-contract texts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }),
        fc.integer({ min: -1_000_000_000_000_000, max: 1_000_000_000_000_000 }),
        (c, n) => {
          expect(formatCents(c)).to.equal(new Big(c).div(100).toFixed(2));
          expect(formatNanos(n)).to.equal(new Big(n).div(1_000_000_000).toFixed());
        },
      ),
      runs,
    );
  });
});
