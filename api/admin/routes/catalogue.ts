// /admin/v1 catalogue and market lifecycle: events (and their changes), markets (and their
// catalogue fields, changes and archiving), status and halts, results, fill amendments. Each is
// one engine input; the answer is the engine's snapshot after it.

import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { answerOf, submitOrThrow } from '../../../commands/accounts/engineCall.ts';
import type { EngineInput, MarketChanges, MarketDetails, MarketFields, SportEventChanges } from '../../../domain/engine/inputs.ts';
import type { FillView, MarketResult, MarketStatus, MarketStateView } from '../../../domain/views.ts';
import { badRequest, notFound } from '../../errors.ts';
import { renderFill } from '../../../projections/core/render.ts';
import { presentEvent, presentMarket } from '../present.ts';
import { FEE_PERCENT_SCHEMA, settlementFeesOf } from './fees.ts';
import type { SnapshotCache } from '../upstream.ts';
import { compile, dateTimeToUs, isUuid, parseBody, parseContracts, parseMaxPrice, parsePrice } from '../validate.ts';

export const DEFAULT_MAX_PRICE = '1.00';
const TEXT_LENGTH_MAX = 500;
const LONG_TEXT_LENGTH_MAX = 20_000;
const PARTICIPANTS_MAX = 100;
/** Items of each catalogue list (filters, trading_filters, keywords, a market's participants). */
const LIST_ITEMS_MAX = 100;
/** A market's stat line: any JSON, at most this many characters once serialised. */
const STAT_DETAIL_LENGTH_MAX = 20_000;
const IN_PLAY_DELAY_SEC_MAX = 3600;
const POINTS_COST_MAX = 1_000_000;

const text = (maxLength = TEXT_LENGTH_MAX) => ({ type: ['string', 'null'], maxLength });

const stringList = (maxItems = LIST_ITEMS_MAX, nullable = false) => ({
  type: nullable ? ['array', 'null'] : 'array', maxItems, items: { type: 'string', maxLength: TEXT_LENGTH_MAX },
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
const validateEvent = compile<EventBody>({ type: 'object', required: ['title', 'start'], properties: EVENT_PROPERTIES });
const validateEventPatch = compile<Partial<EventBody> & { event_fee_percent?: number | null }>({
  type: 'object', minProperties: 1, properties: { ...EVENT_PROPERTIES, event_fee_percent: FEE_PERCENT_SCHEMA },
});

interface MarketBody {
  event_id: string;
  title: string;
  max_price?: string;
  status?: MarketStatus;
  trading?: boolean;
  in_play_delay_sec?: number;
  points_cost?: number;
  grouping_id?: string | null;
  grouping_name?: string | null;
  symbol?: string | null;
  question?: string | null;
  rules?: string | null;
  short_title?: string | null;
  featured?: boolean;
  settlement_fee_percent?: number | null;
}
/** The catalogue fields POST and PATCH /markets take beyond the listing's (SPEC "Market object"). */
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
const validateMarket = compile<MarketBody & MarketDetails>({ type: 'object', required: ['event_id', 'title'], properties: MARKET_PROPERTIES });

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
  if (body.stat_detail !== undefined && JSON.stringify(body.stat_detail).length > STAT_DETAIL_LENGTH_MAX) {
    throw badRequest(`stat_detail must be at most ${STAT_DETAIL_LENGTH_MAX} characters of JSON`);
  }
  const details: Record<string, unknown> = {};
  for (const key of MARKET_DETAIL_KEYS) if (body[key] !== undefined) details[key] = body[key];
  return details as MarketDetails;
}

const validateStatus = compile<{ status?: MarketStatus; trading?: boolean }>({
  type: 'object',
  properties: {
    status: { enum: ['scheduled', 'pre_open', 'open', 'closed', 'cancelled'] },
    trading: { type: 'boolean' },
  },
});
const validateResult = compile<{ result: MarketResult }>({
  type: 'object', required: ['result'], properties: { result: { enum: ['win', 'lose', 'void'] } },
});
const validateAmend = compile<{ price?: string; filled?: string }>({
  type: 'object',
  properties: { price: { type: 'string', format: 'decimal' }, filled: { type: 'string', format: 'decimal' } },
});

function pathId(req: Request, name: string, what: string): string {
  const id = String(req.params[name]);
  if (!isUuid(id)) throw notFound(`${what} not found`);
  return id.toLowerCase();
}

export function catalogueRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  async function marketAnswer(market: MarketStateView, position: bigint) {
    cache.markets.set(market.market_id, market);
    const wire = await cache.marketAfter(market.market_id, position);
    // The spec's market object as members see it (`trading`: accepting orders right now, so
    // false for a scheduled, closed, settled or halted market), plus the operator's own view:
    // `halted` (the halt flag it sets with `trading: false`) and the stored status.
    if (wire) return { ...wire, halted: !market.trading, accepting_orders: wire.trading, stored_status: market.status, ...settlementFeesOf(market) };
    return { ...presentMarket(market, await cache.event(market.event_id), ctx.clock.nowUs()), ...settlementFeesOf(market) };
  }

  router.post('/events', async (req, res) => {
    const body = parseBody(validateEvent, req.body);
    const eventId = randomUUID();
    const reply = await submitOrThrow(ctx, {
      kind: 'ScheduleSportEvent',
      event: {
        event_id: eventId,
        title: body.title,
        start: dateTimeToUs('start', body.start),
        short_title: body.short_title ?? null,
        event_type: body.event_type ?? null,
        sport: body.sport ?? null,
        competition: body.competition ?? null,
        participants: body.participants ?? [],
      },
    });
    const scheduled = answerOf(reply).sportEvents.find((e) => e.event_id === eventId);
    if (!scheduled) throw new Error('engine accepted ScheduleSportEvent without scheduling the event');
    cache.events.set(eventId, scheduled);
    res.json({ event: presentEvent(scheduled) });
  });

  router.patch('/events/:event_id', async (req, res) => {
    const eventId = pathId(req, 'event_id', 'Event');
    const body = parseBody(validateEventPatch, req.body);
    const changes: SportEventChanges = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.start !== undefined) changes.start = dateTimeToUs('start', body.start);
    if (body.short_title !== undefined) changes.short_title = body.short_title;
    if (body.event_type !== undefined) changes.event_type = body.event_type;
    if (body.sport !== undefined) changes.sport = body.sport;
    if (body.competition !== undefined) changes.competition = body.competition;
    if (body.participants !== undefined) changes.participants = body.participants ?? [];
    let reply = await submitOrThrow(ctx, { kind: 'UpdateSportEvent', event_id: eventId, changes });
    let changed = answerOf(reply).sportEvents.find((e) => e.event_id === eventId);
    if (body.event_fee_percent !== undefined) {
      reply = await submitOrThrow(ctx, { kind: 'SetSettlementFee', scope: 'event', scope_id: eventId, percent: body.event_fee_percent });
      changed = answerOf(reply).sportEvents.find((e) => e.event_id === eventId) ?? changed;
    }
    // the markets of the event show its fields: answer once the read models have them (bounded)
    await cache.caughtUp(reply.position);
    const event = changed ?? (await cache.event(eventId));
    if (!event) throw notFound('Event not found');
    cache.events.set(eventId, event);
    res.json({ event: presentEvent(event) });
  });

  router.post('/events/:event_id/start', async (req, res) => {
    const eventId = pathId(req, 'event_id', 'Event');
    const reply = await submitOrThrow(ctx, { kind: 'StartSportEvent', event_id: eventId });
    const started = answerOf(reply).sportEvents.find((e) => e.event_id === eventId);
    const event = started ?? (await cache.event(eventId));
    if (!event) throw notFound('Event not found');
    cache.events.set(eventId, event);
    res.json({ event: presentEvent(event) });
  });

  router.post('/markets', async (req, res) => {
    const body = parseBody(validateMarket, req.body);
    const marketId = randomUUID();
    const fields: MarketFields = {
      market_id: marketId,
      event_id: body.event_id.toLowerCase(),
      title: body.title,
      max_price: parseMaxPrice(body.max_price ?? DEFAULT_MAX_PRICE),
      status: body.status ?? 'scheduled',
      trading: body.trading ?? true,
      in_play_delay_sec: body.in_play_delay_sec ?? 0,
      points_cost: body.points_cost ?? 0,
      grouping_id: body.grouping_id ?? marketId,
      grouping_name: body.grouping_name ?? null,
      symbol: body.symbol ?? null,
      question: body.question ?? null,
      rules: body.rules ?? null,
      short_title: body.short_title ?? null,
      featured: body.featured ?? false,
    };
    const details = detailsOf(body);
    let reply = await submitOrThrow(ctx, { kind: 'ListMarket', market: fields, ...(Object.keys(details).length > 0 ? { details } : {}) });
    let listed = answerOf(reply).markets.find((m) => m.market_id === marketId);
    if (!listed) throw new Error('engine accepted ListMarket without listing the market');
    if (body.settlement_fee_percent !== undefined && body.settlement_fee_percent !== null) {
      reply = await submitOrThrow(ctx, { kind: 'SetSettlementFee', scope: 'market', scope_id: marketId, percent: body.settlement_fee_percent });
      listed = answerOf(reply).markets.find((m) => m.market_id === marketId) ?? listed;
    }
    res.json({ market: await marketAnswer(listed, reply.position) });
  });

  router.patch('/markets/:market_id', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'Market');
    const body = parseBody(validateMarketPatch, req.body);
    const changes: MarketChanges = detailsOf(body);
    if (body.event_id !== undefined) changes.event_id = body.event_id.toLowerCase();
    if (body.max_price !== undefined) changes.max_price = body.max_price;
    if (body.grouping_id !== undefined) {
      if (body.grouping_id === null) throw badRequest("grouping_id cannot be changed: it is fixed for the market's life");
      changes.grouping_id = body.grouping_id;
    }
    for (const key of ['title', 'short_title', 'question', 'rules', 'symbol', 'grouping_name', 'featured', 'in_play_delay_sec', 'points_cost'] as const) {
      if (body[key] !== undefined) (changes as Record<string, unknown>)[key] = body[key];
    }
    const input: Extract<EngineInput, { kind: 'UpdateMarket' }> = { kind: 'UpdateMarket', market_id: marketId, changes };
    if (body.status !== undefined) input.status = body.status;
    if (body.trading !== undefined) input.trading = body.trading;
    if (body.archived !== undefined) input.archived = body.archived;
    let reply = await submitOrThrow(ctx, input);
    let changed = answerOf(reply).markets.find((m) => m.market_id === marketId);
    if (body.settlement_fee_percent !== undefined) {
      reply = await submitOrThrow(ctx, { kind: 'SetSettlementFee', scope: 'market', scope_id: marketId, percent: body.settlement_fee_percent });
      changed = answerOf(reply).markets.find((m) => m.market_id === marketId) ?? changed;
    }
    // nothing changed: the market as it stands
    const market = changed ?? (await cache.market(marketId));
    if (!market) throw notFound('Market not found');
    res.json({ market: await marketAnswer(market, reply.position) });
  });

  router.post('/markets/:market_id/status', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'Market');
    const body = parseBody(validateStatus, req.body);
    if (body.status === undefined && body.trading === undefined) throw badRequest('status or trading is required');
    const input: { kind: 'ChangeMarketStatus'; market_id: string; status?: MarketStatus; trading?: boolean } = { kind: 'ChangeMarketStatus', market_id: marketId };
    if (body.status !== undefined) input.status = body.status;
    if (body.trading !== undefined) input.trading = body.trading;
    const reply = await submitOrThrow(ctx, input);
    const market = answerOf(reply).markets.find((m) => m.market_id === marketId) ?? cache.markets.get(marketId);
    if (!market) throw notFound('Market not found');
    res.json({ market: await marketAnswer(market, reply.position) });
  });

  router.post('/markets/:market_id/result', async (req, res) => {
    const marketId = pathId(req, 'market_id', 'Market');
    const body = parseBody(validateResult, req.body);
    const reply = await submitOrThrow(ctx, { kind: 'ResultMarket', market_id: marketId, result: body.result });
    const market = answerOf(reply).markets.find((m) => m.market_id === marketId) ?? cache.markets.get(marketId);
    if (!market) throw notFound('Market not found');
    res.json({ market: await marketAnswer(market, reply.position) });
  });

  router.post('/fills/:trade_id/amend', async (req, res) => {
    const tradeId = pathId(req, 'trade_id', 'Fill');
    const body = parseBody(validateAmend, req.body);
    if (body.price === undefined && body.filled === undefined) throw badRequest('price or filled is required');
    const input: { kind: 'AmendFill'; trade_id: string; price?: string; filled?: string } = { kind: 'AmendFill', trade_id: tradeId };
    if (body.price !== undefined) input.price = parsePrice(body.price);
    if (body.filled !== undefined) input.filled = parseContracts('filled', body.filled);
    const reply = await submitOrThrow(ctx, input);
    const changed = answerOf(reply).fills;
    const fills: FillView[] = changed.filter((f) => f.trade_id === tradeId);
    const fill = fills[0] ?? changed.at(-1);
    if (!fill) throw notFound('Fill not found');
    res.json({ fill: renderFill(fill), fills: fills.map(renderFill) });
  });
}
