// Leaderboard metrics and ranking. Pure: the facts of one period arrive as rows (per account
// and sport: notional traded; per account and settled market: net result and contracts), the
// values per account come out, then dense 1-based ranks (ties share a rank).
//
// Metric definitions (docs/MEMBER.md repeats them for members):
//   volume       Σ filled × max_price over the period's fills (notional), dollars
//   profit       Σ net result (after fees) of markets that settled in the period, dollars
//   predictions  Σ contracts settled in those markets (count)
//   markets      number of those markets (count)
//   win_rate     markets with a positive net result / markets (0 to 1)
//   biggest_win  the largest positive net result of one market, dollars
//   return       profit / volume (ratio; volume must be positive)
//   streak       longest run of consecutive winning markets, in settlement order (count)
// A member is on a board only with activity behind the metric: volume and return need volume
// in the period; biggest_win needs a win; the others need a settled market.

import {
  compare,
  decimalOf,
  decimalText,
  integerDecimal,
  isNegative,
  isPositive,
  plus,
  quotient,
  toFixedPlaces,
  wholePart,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';

const ONE = integerDecimal(1);

export const LEADERBOARD_METRICS = [
  'volume',
  'profit',
  'predictions',
  'markets',
  'win_rate',
  'biggest_win',
  'return',
  'streak',
] as const;
export type Metric = (typeof LEADERBOARD_METRICS)[number];
type MetricKind = 'money' | 'count' | 'ratio';

const METRIC_KIND: Record<Metric, MetricKind> = {
  volume: 'money',
  profit: 'money',
  biggest_win: 'money',
  predictions: 'count',
  markets: 'count',
  streak: 'count',
  win_rate: 'ratio',
  return: 'ratio',
};

export const LEADERBOARD_ROWS_MAX = 100;
const RATIO_PLACES = 6;

export interface VolumeFact {
  account_id: string;
  sport: string | null;
  /** Notional traded (filled × max_price), decimal string. */
  volume: string;
}

export interface SettlementFact {
  account_id: string;
  market_id: string;
  sport: string | null;
  settled_at_us: number;
  /** Net result of the account in the market after fees, decimal string. */
  net_pnl: string;
  /** Contracts settled, decimal string. */
  contracts: string;
}

export interface BoardEntry {
  account_id: string;
  value: Decimal;
  top_sport: string | null;
}

/** Sport key of a sport name: lowercase words joined by `_` (e.g. `Ice Hockey` → `ice_hockey`). */
export function sportKey(name: string | null | undefined): string | null {
  if (!name) return null;
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return key === '' ? null : key;
}

/** The sport each account traded most (by notional) among the facts; ties go alphabetically. */
function topSports(volumes: readonly VolumeFact[]): Map<string, string> {
  const perAccount = new Map<string, Map<string, Decimal>>();
  for (const fact of volumes) {
    if (!fact.sport) continue;
    const sports = perAccount.get(fact.account_id) ?? new Map<string, Decimal>();
    sports.set(fact.sport, plus(sports.get(fact.sport) ?? ZERO, decimalOf(fact.volume)));
    perAccount.set(fact.account_id, sports);
  }
  const out = new Map<string, string>();
  for (const [account, sports] of perAccount) {
    let best: [string, Decimal] | null = null;
    for (const [sport, volume] of [...sports].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!best || compare(volume, best[1]) > 0) best = [sport, volume];
    }
    if (best) out.set(account, best[0]);
  }
  return out;
}

function longestWinStreak(results: SettlementFact[]): number {
  const ordered = [...results].sort(
    (a, b) => a.settled_at_us - b.settled_at_us || (a.market_id < b.market_id ? -1 : a.market_id > b.market_id ? 1 : 0),
  );
  let best = 0;
  let run = 0;
  for (const result of ordered) {
    run = isPositive(decimalOf(result.net_pnl)) ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/**
 * Each eligible account's value on one board. `category` is `all` or a sport key: on a sport
 * board only that sport's facts count and the top sport is that sport.
 */
export function boardValues(
  metric: Metric,
  category: string,
  volumes: readonly VolumeFact[],
  settlements: readonly SettlementFact[],
): BoardEntry[] {
  const inCategory = <T extends { sport: string | null }>(fact: T) => category === 'all' || fact.sport === category;
  const volumeFacts = volumes.filter(inCategory);
  const settlementFacts = settlements.filter(inCategory);
  const tops = category === 'all' ? topSports(volumes) : null;
  const topOf = (account: string) => (tops ? (tops.get(account) ?? null) : category);

  const volumeByAccount = new Map<string, Decimal>();
  for (const fact of volumeFacts)
    volumeByAccount.set(fact.account_id, plus(volumeByAccount.get(fact.account_id) ?? ZERO, decimalOf(fact.volume)));
  const settledByAccount = new Map<string, SettlementFact[]>();
  for (const fact of settlementFacts)
    settledByAccount.set(fact.account_id, [...(settledByAccount.get(fact.account_id) ?? []), fact]);
  return metricValues(metric, volumeByAccount, settledByAccount).map(([account_id, value]) => ({
    account_id,
    value,
    top_sport: topOf(account_id),
  }));
}

/** Each ranked account's value of `metric`, from its volume and its settled markets in the board's category. */
function metricValues(
  metric: Metric,
  volumeByAccount: ReadonlyMap<string, Decimal>,
  settledByAccount: ReadonlyMap<string, SettlementFact[]>,
): Array<[string, Decimal]> {
  const profitOf = (account: string) =>
    (settledByAccount.get(account) ?? []).reduce((sum, f) => plus(sum, decimalOf(f.net_pnl)), ZERO);
  const entries: Array<[string, Decimal]> = [];
  const push = (account: string, value: Decimal) => entries.push([account, value]);
  switch (metric) {
    case 'volume':
      for (const [account, volume] of volumeByAccount) if (isPositive(volume)) push(account, volume);
      break;
    case 'return':
      // a ratio board's values lie within 0 to 1 (docs/MEMBER.md "Leaderboard"): a member whose return is below 0 is not ranked here
      for (const [account, volume] of volumeByAccount) {
        if (!isPositive(volume)) continue;
        const ratio = quotient(profitOf(account), volume, RATIO_PLACES);
        if (!isNegative(ratio)) push(account, compare(ratio, ONE) > 0 ? ONE : ratio);
      }
      break;
    case 'profit':
      for (const account of settledByAccount.keys()) push(account, profitOf(account));
      break;
    case 'predictions':
      // whole contracts settled: an integer, as every count board's value
      for (const [account, facts] of settledByAccount)
        push(account, wholePart(facts.reduce((sum, f) => plus(sum, decimalOf(f.contracts)), ZERO)));
      break;
    case 'markets':
      for (const [account, facts] of settledByAccount) push(account, integerDecimal(facts.length));
      break;
    case 'win_rate':
      for (const [account, facts] of settledByAccount) {
        const wins = facts.filter((f) => isPositive(decimalOf(f.net_pnl))).length;
        push(account, quotient(integerDecimal(wins), integerDecimal(facts.length), RATIO_PLACES));
      }
      break;
    case 'biggest_win':
      for (const [account, facts] of settledByAccount) {
        const best = facts.reduce<Decimal | null>((max, f) => {
          const net = decimalOf(f.net_pnl);
          return compare(net, max ?? ZERO) > 0 ? net : max;
        }, null);
        if (best) push(account, best);
      }
      break;
    case 'streak':
      for (const [account, facts] of settledByAccount) push(account, integerDecimal(longestWinStreak(facts)));
      break;
    default: {
      const unreachable: never = metric;
      throw new Error(`unknown metric ${String(unreachable)}`);
    }
  }
  return entries;
}

interface RankedRow<T> {
  rank: number;
  entry: T;
}

/**
 * Best first, dense 1-based ranks: equal values share a rank and the next value takes the next
 * integer. `tieOrder` orders members that share a value (display order only).
 */
export function denseRank<T extends { value: Decimal }>(
  entries: readonly T[],
  tieOrder: (a: T, b: T) => number,
): RankedRow<T>[] {
  const sorted = [...entries].sort((a, b) => compare(b.value, a.value) || tieOrder(a, b));
  const rows: RankedRow<T>[] = [];
  let rank = 0;
  let previous: Decimal | null = null;
  for (const entry of sorted) {
    if (previous === null || compare(entry.value, previous) !== 0) rank += 1;
    previous = entry.value;
    rows.push({ rank, entry });
  }
  return rows;
}

/** The wire form of a value: dollar string on money boards, integer on counts, number on ratios. */
export function wireValue(metric: Metric, value: Decimal): string | number {
  switch (METRIC_KIND[metric]) {
    case 'money':
      return toFixedPlaces(value, 2);
    case 'count':
      return Number(decimalText(wholePart(value)));
    case 'ratio':
      return Number(toFixedPlaces(value, RATIO_PLACES));
  }
}
