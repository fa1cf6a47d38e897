// A market's catalogue fields in the engine: setting the ones an input gives on a draft, telling
// whether anything changed, and stating the draft's catalogue as a MarketUpdated fact (every
// field), which changes the market (domain/evolve/markets.ts marketUpdated).

import type { MarketCatalogueRecord } from '../readModel/records.ts';
import type { StepContext } from './context.ts';
import type { MarketDetails } from './inputs.ts';
import type { MarketState } from './state.ts';
import type { EngineEvent } from './events.ts';
import { marketUpdated } from '../evolve/markets.ts';
import { catalogueViewOf } from '../readModel/render.ts';

/** Sets the details given on `market` (a draft: the market itself changes by its fact); whether that changed any. */
export function applyMarketDetails(market: MarketState, d: MarketDetails): boolean {
  const before = marketCatalogueKey(market);
  const set = <K extends keyof MarketCatalogueRecord>(key: K, value: MarketCatalogueRecord[K] | undefined) => {
    if (value !== undefined) (market as MarketCatalogueRecord)[key] = value;
  };
  set('description', d.description);
  set('groupTitle', d.group_title);
  set('specifier', d.specifier);
  set('positionLabel', d.position);
  set('poweredBy', d.powered_by);
  set('filters', d.filters === undefined ? undefined : [...d.filters]);
  set('tradingFilters', d.trading_filters === undefined ? undefined : [...d.trading_filters]);
  set('keywords', d.keywords === undefined ? undefined : [...d.keywords]);
  set('participants', d.participants === undefined || d.participants === null ? d.participants : [...d.participants]);
  set('statDetail', d.stat_detail);
  set('featuredHome', d.featured_home);
  set('manualProbability', d.manual_probability);
  return marketCatalogueKey(market) !== before;
}

/** Every catalogue field of the market, as one comparable text. */
export function marketCatalogueKey(m: MarketState): string {
  return JSON.stringify([
    m.title,
    m.shortTitle,
    m.question,
    m.rules,
    m.symbol,
    m.groupingName,
    m.featured,
    m.inPlayDelaySec,
    m.pointsCost,
    m.description,
    m.groupTitle,
    m.specifier,
    m.positionLabel,
    m.poweredBy,
    m.filters,
    m.tradingFilters,
    m.keywords,
    m.participants,
    m.statDetail,
    m.featuredHome,
    m.manualProbability,
  ]);
}

/** States the catalogue of `m` (a draft of `market`) as a MarketUpdated fact, and applies it to the market. */
export function emitMarketUpdated(ctx: StepContext, market: MarketState, m: MarketState): void {
  const fact: Extract<EngineEvent, { type: 'MarketUpdated' }> = {
    type: 'MarketUpdated',
    market_id: m.id,
    title: m.title,
    short_title: m.shortTitle,
    question: m.question,
    rules: m.rules,
    symbol: m.symbol,
    grouping_name: m.groupingName,
    featured: m.featured,
    in_play_delay_sec: m.inPlayDelaySec,
    points_cost: m.pointsCost,
    ...catalogueViewOf(m),
  };
  ctx.emit(fact);
  marketUpdated(market, fact);
  ctx.marketChanged(market);
}

export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
