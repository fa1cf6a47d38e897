// Leaderboard period maths (America/New_York days, DST included) and ranking.
import { Big } from '../../../domain/money/big.ts';
import { expect } from 'chai';
import {
  boardValues,
  denseRank,
  sportKey,
  wireValue,
  type SettlementFact,
  type VolumeFact,
} from '../../../domain/leaderboard/board.ts';
import { periodBounds } from '../../../domain/leaderboard/period.ts';

const us = (iso: string) => Date.parse(iso) * 1000;
const iso = (value: number | null) => (value === null ? null : new Date(value / 1000).toISOString());

describe('leaderboard periods', () => {
  const table: Array<[string, string, string, string]> = [
    // now (UTC), period, start, next reset
    ['2026-11-22T04:41:00Z', 'daily', '2026-11-21T05:00:00.000Z', '2026-11-22T05:00:00.000Z'],
    ['2026-11-22T04:41:00Z', 'weekly', '2026-11-16T05:00:00.000Z', '2026-11-23T05:00:00.000Z'],
    ['2026-11-22T04:41:00Z', 'monthly', '2026-11-01T04:00:00.000Z', '2026-12-01T05:00:00.000Z'],
    ['2026-11-22T04:41:00Z', 'yearly', '2026-01-01T05:00:00.000Z', '2027-01-01T05:00:00.000Z'],
    // spring forward: the day is 23 hours long
    ['2026-03-08T12:00:00Z', 'daily', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z'],
    // fall back: 03:30Z is still the 31st in New York
    ['2026-11-01T03:30:00Z', 'daily', '2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z'],
    ['2026-11-01T05:30:00Z', 'daily', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
    ['2026-11-01T05:30:00Z', 'weekly', '2026-10-26T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
    // a Monday in New York is its own week start
    ['2026-11-23T05:00:00Z', 'weekly', '2026-11-23T05:00:00.000Z', '2026-11-30T05:00:00.000Z'],
    ['2026-12-31T23:00:00Z', 'weekly', '2026-12-28T05:00:00.000Z', '2027-01-04T05:00:00.000Z'],
    ['2027-01-01T04:59:59Z', 'yearly', '2026-01-01T05:00:00.000Z', '2027-01-01T05:00:00.000Z'],
  ];
  for (const [now, period, start, next] of table) {
    it(`${period} at ${now} runs ${start} → ${next}`, () => {
      const bounds = periodBounds(period as 'daily', us(now));
      expect(iso(bounds.start_us)).to.equal(start);
      expect(iso(bounds.next_reset_us)).to.equal(next);
    });
  }
  it('all has no start and no reset', () => {
    expect(periodBounds('all', us('2026-11-22T00:00:00Z'))).to.deep.equal({ start_us: null, next_reset_us: null });
  });
});

describe('leaderboard metrics and ranks', () => {
  const volumes: VolumeFact[] = [
    { account_id: 'a', sport: 'soccer', volume: '100' },
    { account_id: 'a', sport: 'tennis', volume: '20' },
    { account_id: 'b', sport: 'tennis', volume: '100' },
    { account_id: 'b', sport: 'soccer', volume: '20' },
    { account_id: 'c', sport: 'soccer', volume: '50' },
  ];
  const settled = (
    account_id: string,
    market_id: string,
    at: number,
    net_pnl: string,
    contracts = '10',
    sport = 'soccer',
  ): SettlementFact => ({ account_id, market_id, sport, settled_at_us: at, net_pnl, contracts });
  const settlements: SettlementFact[] = [
    settled('a', 'm1', 1, '5'),
    settled('a', 'm2', 2, '7'),
    settled('a', 'm3', 3, '-2'),
    settled('a', 'm4', 4, '1'),
    settled('b', 'm1', 1, '-5'),
    settled('b', 'm2', 2, '9', '4', 'tennis'),
    settled('c', 'm1', 1, '0'),
  ];
  const valueOf = (metric: Parameters<typeof boardValues>[0], account: string, category = 'all') =>
    boardValues(metric, category, volumes, settlements)
      .find((e) => e.account_id === account)
      ?.value.toString();

  it('computes each metric as defined', () => {
    expect(valueOf('volume', 'a')).to.equal('120');
    expect(valueOf('profit', 'a')).to.equal('11');
    expect(valueOf('predictions', 'b')).to.equal('14');
    expect(valueOf('markets', 'a')).to.equal('4');
    expect(valueOf('win_rate', 'a')).to.equal('0.75');
    expect(valueOf('biggest_win', 'b')).to.equal('9');
    expect(valueOf('biggest_win', 'c')).to.equal(undefined); // no win, not on the board
    expect(valueOf('return', 'c')).to.equal('0');
    expect(valueOf('streak', 'a')).to.equal('2');
    expect(valueOf('streak', 'c')).to.equal('0');
  });

  it('predictions are whole contracts (an integer); a return below 0 is not ranked and a ratio stays within 0 to 1', () => {
    const fractional = [settled('d', 'm1', 1, '3', '2.75'), settled('d', 'm2', 2, '-1', '1.5')];
    const dVolume: VolumeFact[] = [
      { account_id: 'd', sport: 'soccer', volume: '10' },
      { account_id: 'e', sport: 'soccer', volume: '10' },
    ];
    const losing = [settled('e', 'm1', 1, '-4')];
    const entries = (metric: Parameters<typeof boardValues>[0]) =>
      boardValues(metric, 'all', dVolume, [...fractional, ...losing]);
    const predictions = entries('predictions').find((e) => e.account_id === 'd')!;
    expect(wireValue('predictions', predictions.value)).to.equal(4);
    expect(Number.isInteger(wireValue('predictions', predictions.value))).to.equal(true);
    const returns = entries('return');
    expect(returns.map((e) => e.account_id)).to.deep.equal(['d']); // e lost money: return < 0, not ranked
    for (const entry of returns) expect(wireValue('return', entry.value)).to.be.within(0, 1);
  });

  it('sport boards count only that sport and show it as the top sport', () => {
    expect(valueOf('volume', 'a', 'tennis')).to.equal('20');
    const entries = boardValues('volume', 'tennis', volumes, settlements);
    expect(entries.every((e) => e.top_sport === 'tennis')).to.equal(true);
    expect(boardValues('volume', 'curling', volumes, settlements)).to.deep.equal([]);
  });

  it('top sport is the most traded one', () => {
    const entries = boardValues('volume', 'all', volumes, settlements);
    expect(entries.find((e) => e.account_id === 'a')?.top_sport).to.equal('soccer');
    expect(entries.find((e) => e.account_id === 'b')?.top_sport).to.equal('tennis');
  });

  it('ranks densely from 1, ties share a rank', () => {
    const rows = denseRank(
      [
        { id: 'x', value: new Big(5) },
        { id: 'y', value: new Big(9) },
        { id: 'z', value: new Big(5) },
        { id: 'w', value: new Big(1) },
      ],
      (a, b) => a.id.localeCompare(b.id),
    );
    expect(rows.map((r) => [r.entry.id, r.rank])).to.deep.equal([
      ['y', 1],
      ['x', 2],
      ['z', 2],
      ['w', 3],
    ]);
  });

  it('renders money as dollar strings, counts as integers, ratios as numbers', () => {
    expect(wireValue('volume', new Big('12.5'))).to.equal('12.50');
    expect(wireValue('markets', new Big(3))).to.equal(3);
    expect(wireValue('win_rate', new Big('0.75'))).to.equal(0.75);
  });

  it('sport keys are lowercase words joined by underscores', () => {
    expect(sportKey('Ice Hockey')).to.equal('ice_hockey');
    expect(sportKey('  ')).to.equal(null);
  });
});
