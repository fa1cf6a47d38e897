// /admin/v1 catalogue and market lifecycle: events, markets, status and halts, results, fill
// amendments. Each is one engine input; the answer is the engine's snapshot after it.

import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { answerOf, submitOrThrow } from '../../../commands/accounts/engineCall.ts';
import type { MarketFields } from '../../../domain/engine/inputs.ts';
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
const IN_PLAY_DELAY_SEC_MAX = 3600;
const POINTS_COST_MAX = 1_000_000;

const text = (maxLength = TEXT_LENGTH_MAX) => ({ type: ['string', 'null'], maxLength });

interface EventBody {
  title: string;
  start: string;
  short_title?: string | null;
  event_type?: string | null;
  sport?: string | null;
  competition?: string | null;
  participants?: string[] | null;
}
const validateEvent = compile<EventBody>({
  type: 'object',
  required: ['title', 'start'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: TEXT_LENGTH_MAX },
    start: { type: 'string', format: 'date-time' },
    short_title: text(),
    event_type: text(),
    sport: text(),
    competition: text(),
    participants: { type: ['array', 'null'], maxItems: PARTICIPANTS_MAX, items: { type: 'string', maxLength: TEXT_LENGTH_MAX } },
  },
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
const LISTABLE_STATUSES = ['scheduled', 'pre_open', 'open', 'closed'];
const validateMarket = compile<MarketBody>({
  type: 'object',
  required: ['event_id', 'title'],
  properties: {
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
  },
});

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
    let reply = await submitOrThrow(ctx, { kind: 'ListMarket', market: fields });
    let listed = answerOf(reply).markets.find((m) => m.market_id === marketId);
    if (!listed) throw new Error('engine accepted ListMarket without listing the market');
    if (body.settlement_fee_percent !== undefined && body.settlement_fee_percent !== null) {
      reply = await submitOrThrow(ctx, { kind: 'SetSettlementFee', scope: 'market', scope_id: marketId, percent: body.settlement_fee_percent });
      listed = answerOf(reply).markets.find((m) => m.market_id === marketId) ?? listed;
    }
    res.json({ market: await marketAnswer(listed, reply.position) });
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
