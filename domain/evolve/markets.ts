// How facts change a market's record (MarketRecord) and a sport event's (SportEventRecord). The
// engine's markets and events extend them; both the engine and the read models' fold call these
// (see orders.ts).

import { centsOf, decimalOf, type Decimal } from '../money/decimal.ts';
import { emptyMarketCatalogue, type MarketRecord, type SportEventRecord } from '../readModel/records.ts';
import type { EngineEvent, FeeScope } from '../engine/events.ts';
import type { MarketResult, MarketStatus } from '../views.ts';

type Fact<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

/** What SportEventScheduled makes of an event: its details, not started. Spread first (the keys' order is kept). */
export function sportEventScheduledFields(fact: Fact<'SportEventScheduled'>) {
  return {
    id: fact.event_id,
    title: fact.title,
    shortTitle: fact.short_title,
    eventType: fact.event_type,
    sport: fact.sport,
    competition: fact.competition,
    participants: [...fact.participants],
    start: fact.start,
    startedAt: null,
  } satisfies Partial<SportEventRecord>;
}

export function sportEventRecordOf(fact: Fact<'SportEventScheduled'>): SportEventRecord {
  return { ...sportEventScheduledFields(fact), eventFeePercent: null };
}

export function sportEventStarted(event: SportEventRecord, nowUs: number): void {
  event.startedAt = nowUs;
}

/** SettlementFeeSet of scope event, on the event itself. */
export function sportEventFeePercentSet(event: SportEventRecord, percent: number | null): void {
  event.eventFeePercent = percent;
}

export function sportEventUpdated(event: SportEventRecord, fact: Fact<'SportEventUpdated'>): void {
  event.title = fact.title;
  event.shortTitle = fact.short_title;
  event.eventType = fact.event_type;
  event.sport = fact.sport;
  event.competition = fact.competition;
  event.participants = [...fact.participants];
  event.start = fact.start;
}

/**
 * What MarketListed makes of a market before its book, catalogue and fee percents: the listing,
 * unresulted, made at `nowUs` (`maxPrice` is `maxPriceCents` as a decimal). Spread first, so the
 * keys stand in the same order in every record made with it.
 */
export function marketListedFields(
  fact: Fact<'MarketListed'>,
  maxPriceCents: number,
  maxPrice: Decimal,
  nowUs: number,
  seq: number,
) {
  return {
    id: fact.market_id,
    eventId: fact.event_id,
    title: fact.title,
    shortTitle: fact.short_title,
    question: fact.question,
    rules: fact.rules,
    symbol: fact.symbol,
    groupingId: fact.grouping_id,
    groupingName: fact.grouping_name,
    featured: fact.featured,
    status: fact.status,
    trading: fact.trading,
    maxPriceCents,
    maxPrice,
    inPlayDelaySec: fact.in_play_delay_sec,
    pointsCost: fact.points_cost,
    result: null,
    settledAt: null,
    lastTradedCents: null,
    createdAt: nowUs,
    updatedAt: nowUs,
    seq,
  } satisfies Partial<MarketRecord>;
}

export function marketRecordOf(fact: Fact<'MarketListed'>, nowUs: number, seq: number): MarketRecord {
  return {
    ...marketListedFields(fact, centsOf(fact.max_price), decimalOf(fact.max_price), nowUs, seq),
    ...emptyMarketCatalogue(),
    settlementFeePercent: null,
    eventFeePercent: null,
    groupFeePercent: null,
  };
}

/** MarketUpdated: the whole catalogue as the fact states it. */
export function marketUpdated(market: MarketRecord, e: Fact<'MarketUpdated'>): void {
  Object.assign(market, {
    title: e.title,
    shortTitle: e.short_title,
    question: e.question,
    rules: e.rules,
    symbol: e.symbol,
    groupingName: e.grouping_name,
    featured: e.featured,
    inPlayDelaySec: e.in_play_delay_sec,
    pointsCost: e.points_cost,
    description: e.description,
    groupTitle: e.group_title,
    specifier: e.specifier,
    positionLabel: e.position,
    poweredBy: e.powered_by,
    filters: [...e.filters],
    tradingFilters: [...e.trading_filters],
    keywords: [...e.keywords],
    participants: e.participants === null ? null : [...e.participants],
    statDetail: e.stat_detail,
    featuredHome: e.featured_home,
    manualProbability: e.manual_probability,
  } satisfies Partial<MarketRecord>);
}

export function marketArchived(market: MarketRecord, nowUs: number): void {
  market.archivedAt = nowUs;
}

export function marketStatusChanged(market: MarketRecord, status: MarketStatus, trading: boolean): void {
  market.status = status;
  market.trading = trading;
}

/** MarketSettled: resulted (win, lose; again when a result is corrected) or voided. */
export function marketSettled(market: MarketRecord, result: MarketResult, nowUs: number): void {
  market.status = result === 'void' ? 'voided' : 'resulted';
  market.result = result;
  market.settledAt = nowUs;
}

/** Traded: the market's last trade price. */
export function marketTraded(market: MarketRecord, priceCents: number): void {
  market.lastTradedCents = priceCents;
}

/** The record field a settlement-side fee percent of `scope` is kept in. */
export function feePercentFieldOf(scope: FeeScope): 'settlementFeePercent' | 'eventFeePercent' | 'groupFeePercent' {
  return scope === 'market' ? 'settlementFeePercent' : scope === 'event' ? 'eventFeePercent' : 'groupFeePercent';
}

/** SettlementFeeSet, for one of the markets it applies to. */
export function marketFeePercentSet(market: MarketRecord, scope: FeeScope, percent: number | null): void {
  market[feePercentFieldOf(scope)] = percent;
}
