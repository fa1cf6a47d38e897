// /admin/v1 catalogue and market lifecycle: events (and their changes), markets (and their
// catalogue fields, changes and archiving), status and halts, results, fill amendments. Each route
// is parse (schema, path id, values) → command (commands/catalogue) → render: the engine's view of
// what changed, or the read model's once it has caught up.

import type { Router } from 'express';
import { amendFill } from '../../../commands/catalogue/fills.ts';
import { changeEvent, scheduleEvent, startEvent } from '../../../commands/catalogue/events.ts';
import {
  changeMarket,
  changeMarketStatus,
  listMarket,
  resultMarket,
  type ChangedMarket,
  type MarketListing,
} from '../../../commands/catalogue/markets.ts';
import type { MarketChanges, MarketDetails, SportEventChanges } from '../../../domain/engine/inputs.ts';
import type { MarketResult, MarketStatus, MarketStateView } from '../../../domain/views.ts';
import { httpErrorOf, valueOrRefuse } from '../../errors.ts';
import { renderFill } from '../../../projections/core/render.ts';
import { presentEvent, presentMarket } from '../present.ts';
import { FEE_PERCENT_SCHEMA, settlementFeesOf } from './fees.ts';
import type { SnapshotCache } from '../upstream.ts';
import {
  compile,
  dateTimeToUs,
  optional,
  parseBody,
  parseContracts,
  parseMaxPrice,
  parsePrice,
  pathId,
} from '../validate.ts';

const TEXT_LENGTH_MAX = 500;
const LONG_TEXT_LENGTH_MAX = 20_000;
const PARTICIPANTS_MAX = 100;
/** Items of each catalogue list (filters, trading_filters, keywords, a market's participants). */
const LIST_ITEMS_MAX = 100;
const IN_PLAY_DELAY_SEC_MAX = 3600;
const POINTS_COST_MAX = 1_000_000;

const text = (maxLength = TEXT_LENGTH_MAX) => ({ type: ['string', 'null'], maxLength });

const stringList = (maxItems = LIST_ITEMS_MAX, nullable = false) => ({
  type: nullable ? ['array', 'null'] : 'array',
  maxItems,
  items: { type: 'string', maxLength: TEXT_LENGTH_MAX },
});

interface EventBody {
  title: string;
  start: string;
  short_title?: string | null;
  event_type?: string | null;
  sport?: string | null;
  competition?: string | null;
  participants?: string[] | null;
}
const EVENT_PROPERTIES = {
  title: { type: 'string', minLength: 1, maxLength: TEXT_LENGTH_MAX },
  start: { type: 'string', format: 'date-time' },
  short_title: text(),
  event_type: text(),
  sport: text(),
  competition: text(),
  participants: stringList(PARTICIPANTS_MAX, true),
};
const validateEvent = compile<EventBody>({
  type: 'object',
  required: ['title', 'start'],
  properties: EVENT_PROPERTIES,
});
const validateEventPatch = compile<Partial<EventBody> & { event_fee_percent?: number | null }>({
  type: 'object',
  minProperties: 1,
  properties: { ...EVENT_PROPERTIES, event_fee_percent: FEE_PERCENT_SCHEMA },
});

/** POST /markets' body: a listing as the command takes it, the catalogue details beside it. */
type MarketBody = Omit<MarketListing, 'details'>;
/** The catalogue fields POST and PATCH /markets take beyond the listing's (the Market object's catalogue fields, docs/OPERATOR.md). */
const MARKET_DETAIL_PROPERTIES = {
  description: text(LONG_TEXT_LENGTH_MAX),
  group_title: text(),
  specifier: text(),
  position: text(),
  powered_by: text(),
  filters: stringList(),
  trading_filters: stringList(),
  keywords: stringList(),
  participants: stringList(PARTICIPANTS_MAX, true),
  stat_detail: {},
  featured_home: { type: 'boolean' },
  manual_probability: { type: 'boolean' },
};
const MARKET_DETAIL_KEYS = Object.keys(MARKET_DETAIL_PROPERTIES) as Array<keyof MarketDetails>;
const LISTABLE_STATUSES = ['scheduled', 'pre_open', 'open', 'closed'];
const MARKET_PROPERTIES = {
  event_id: { type: 'string', format: 'uuid' },
  title: { type: 'string', minLength: 1, maxLength: TEXT_LENGTH_MAX },
  max_price: { type: 'string', format: 'decimal' },
  status: { enum: LISTABLE_STATUSES },
  trading: { type: 'boolean' },
  in_play_delay_sec: { type: 'integer', minimum: 0, maximum: IN_PLAY_DELAY_SEC_MAX },
  points_cost: { type: 'integer', minimum: 0, maximum: POINTS_COST_MAX },
  grouping_id: text(),
  grouping_name: text(),
  symbol: text(),
  question: text(LONG_TEXT_LENGTH_MAX),
  rules: text(LONG_TEXT_LENGTH_MAX),
  short_title: text(),
  featured: { type: 'boolean' },
  settlement_fee_percent: FEE_PERCENT_SCHEMA,
  ...MARKET_DETAIL_PROPERTIES,
};
const validateMarket = compile<MarketBody & MarketDetails>({
  type: 'object',
  required: ['event_id', 'title'],
  properties: MARKET_PROPERTIES,
});

type MarketPatchBody = Omit<MarketChanges, 'grouping_id'> & {
  grouping_id?: string | null;
  status?: MarketStatus;
  trading?: boolean;
  archived?: boolean;
  settlement_fee_percent?: number | null;
};
const validateMarketPatch = compile<MarketPatchBody>({
  type: 'object',
  minProperties: 1,
  properties: {
    ...MARKET_PROPERTIES,
    // event_id, max_price and grouping_id are fixed for the market's life: given, they must be its own
    status: { enum: ['scheduled', 'pre_open', 'open', 'closed', 'cancelled'] },
    archived: { type: 'boolean' },
  },
});

/** The details given in a body (only those present: absent fields stay as they are). */
function detailsOf(body: MarketDetails): MarketDetails {
  const details: Record<string, unknown> = {};
  for (const key of MARKET_DETAIL_KEYS) if (body[key] !== undefined) details[key] = body[key];
  return details;
}

const validateStatus = compile<{ status?: MarketStatus; trading?: boolean }>({
  type: 'object',
  properties: {
    status: { enum: ['scheduled', 'pre_open', 'open', 'closed', 'cancelled'] },
    trading: { type: 'boolean' },
  },
});
const validateResult = compile<{ result: MarketResult }>({
  type: 'object',
  required: ['result'],
  properties: { result: { enum: ['win', 'lose', 'void'] } },
});
const validateAmend = compile<{ price?: string; filled?: string }>({
  type: 'object',
  properties: { price: { type: 'string', format: 'decimal' }, filled: { type: 'string', format: 'decimal' } },
});

export function catalogueRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  async function marketAnswer(market: MarketStateView, position: bigint) {
    cache.markets.set(market.market_id, market);
    const wire = await cache.marketAfter(market.market_id, position);
    // The spec's market object as members see it (`trading`: accepting orders right now, so
    // false for a scheduled, closed, settled or halted market), plus the operator's own view:
    // `halted` (the halt flag it sets with `trading: false`) and the stored status.
    if (wire)
      return {
        ...wire,
        halted: !market.trading,
        accepting_orders: wire.trading,
        stored_status: market.status,
        ...settlementFeesOf(market),
      };
    return {
      ...presentMarket(market, await cache.event(market.event_id), ctx.clock.nowUs()),
      ...settlementFeesOf(market),
    };
  }

  /** A changed market's answer; when the engine changed nothing, the market as it stands. */
  async function changedMarketAnswer(
    marketId: string,
    changed: ChangedMarket,
    fallback: () => Promise<MarketStateView | null> | MarketStateView | null,
  ) {
    const market = changed.market ?? (await fallback());
    if (!market) throw httpErrorOf({ code: 'market_not_found' });
    return marketAnswer(market, changed.position);
  }

  router.post('/events', async (req, res) => {
    const body = parseBody(validateEvent, req.body);
    const { event } = valueOrRefuse(
      await scheduleEvent(ctx, {
        title: body.title,
        start: dateTimeToUs('start', body.start),
        short_title: body.short_title ?? null,
        event_type: body.event_type ?? null,
        sport: body.sport ?? null,
        competition: body.competition ?? null,
        participants: body.participants ?? [],
      }),
    );
    cache.events.set(event.event_id, event);
    res.json({ event: presentEvent(event) });
  });

  router.patch('/events/:event_id', async (req, res) => {
    const eventId = pathId(req, 'event_id', 'event_not_found');
    const body = parseBody(validateEventPatch, req.body);
    const changes: SportEventChanges = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.start !== undefined) changes.start = dateTimeToUs('start', body.start);
    if (body.short_title !== undefined) changes.short_title = body.short_title;
    if (body.event_type !== undefined) changes.event_type = body.event_type;
    if (body.sport !== undefined) changes.sport = body.sport;
    if (body.competition !== undefined) changes.competition = body.competition;
    if (body.participants !== undefined) changes.participants = body.participants ?? [];
    const changed = valueOrRefuse(
      await changeEvent(ctx, eventId, {
        changes,
        ...(body.event_fee_percent !== undefined ? { event_fee_percent: body.event_fee_percent } : {}),
      }),
    );
    // the markets of the event show its fields: answer once the read models have them (bounded)
    await cache.caughtUp(changed.position);
    const event = changed.event ?? (await cache.event(eventId));
    if (!event) throw httpErrorOf({ code: 'event_not_found' });
    cache.events.set(eventId, event);
    res.json({ event: presentEvent(event) });
  });

  router.post('/events/:event_id/start', async (req, res) => {
    const eventId = pathId(req, 'event_id', 'event_not_found');
    const started = valueOrRefuse(await startEvent(ctx, eventId));
    const event = started.event ?? (await cache.event(eventId));
    if (!event) throw httpErrorOf({ code: 'event_not_found' });
    cache.events.set(eventId, event);
    res.json({ event: presentEvent(event) });
  });

  router.post('/markets', async (req, res) => {
    const body = parseBody(validateMarket, req.body);
    const listed = valueOrRefuse(
      await listMarket(ctx, {
        event_id: body.event_id.toLowerCase(),
        title: body.title,
        ...(body.max_price !== undefined ? { max_price: parseMaxPrice(body.max_price) } : {}),
        ...optional(body, [
          'status',
          'trading',
          'in_play_delay_sec',
          'points_cost',
          'grouping_id',
          'grouping_name',
          'symbol',
          'question',
          'rules',
          'short_title',
          'featured',
          'settlement_fee_percent',
        ]),
        details: detailsOf(body),
      }),
    );
    res.json({ market: await marketAnswer(listed.market, listed.position) });
  });

  router.patch('/markets/:market_id', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'market_not_found');
    const body = parseBody(validateMarketPatch, req.body);
    const changes: Omit<MarketChanges, 'grouping_id'> = detailsOf(body);
    if (body.event_id !== undefined) changes.event_id = body.event_id.toLowerCase();
    if (body.max_price !== undefined) changes.max_price = body.max_price;
    Object.assign(
      changes,
      optional(body, [
        'title',
        'short_title',
        'question',
        'rules',
        'symbol',
        'grouping_name',
        'featured',
        'in_play_delay_sec',
        'points_cost',
      ]),
    );
    const changed = valueOrRefuse(
      await changeMarket(ctx, marketId, {
        changes,
        ...optional(body, ['grouping_id', 'status', 'trading', 'archived', 'settlement_fee_percent']),
      }),
    );
    res.json({ market: await changedMarketAnswer(marketId, changed, () => cache.market(marketId)) });
  });

  router.post('/markets/:market_id/status', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'market_not_found');
    const body = parseBody(validateStatus, req.body);
    const changed = valueOrRefuse(await changeMarketStatus(ctx, marketId, optional(body, ['status', 'trading'])));
    res.json({ market: await changedMarketAnswer(marketId, changed, () => cache.markets.get(marketId) ?? null) });
  });

  router.post('/markets/:market_id/result', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'market_not_found');
    const body = parseBody(validateResult, req.body);
    const changed = valueOrRefuse(await resultMarket(ctx, marketId, body.result));
    res.json({ market: await changedMarketAnswer(marketId, changed, () => cache.markets.get(marketId) ?? null) });
  });

  router.post('/fills/:trade_id/amend', async (req, res) => {
    const tradeId = pathId(req, 'trade_id', 'fill_not_found');
    const body = parseBody(validateAmend, req.body);
    const amended = valueOrRefuse(
      await amendFill(ctx, tradeId, {
        ...(body.price !== undefined ? { price: parsePrice(body.price) } : {}),
        ...(body.filled !== undefined ? { filled: parseContracts('filled', body.filled) } : {}),
      }),
    );
    if (!amended.fill) throw httpErrorOf({ code: 'fill_not_found' });
    res.json({ fill: renderFill(amended.fill), fills: amended.fills.map(renderFill) });
  });
}
