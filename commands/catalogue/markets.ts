// Operator commands on markets: list (with its catalogue details and settlement-side fee), change
// (catalogue fields, status, trading, archiving, fee), change status or trading, result. Rules
// here, beyond the engine's: a listing's defaults, the stat line's size, grouping_id never null,
// a status change names status or trading. Each answers the market as the engine left it, or a
// refusal.

import { randomUUID } from 'node:crypto';
import type { EngineInput, MarketChanges, MarketDetails, MarketFields } from '../../domain/engine/inputs.ts';
import type { Refusal } from '../../domain/errors.ts';
import type { MarketResult, MarketStateView, MarketStatus } from '../../domain/views.ts';
import { accepted, refused, type CommandResult } from '../result.ts';
import { submitOperatorInput, type EngineCaller } from '../operatorInput.ts';

const DEFAULT_MAX_PRICE = '1.00';
/** A market's stat line: any JSON, at most this many characters once serialised. */
export const STAT_DETAIL_LENGTH_MAX = 20_000;

/** A new market: what the operator gave (the rest takes its default). `max_price` in whole cents. */
export interface MarketListing {
  event_id: string;
  title: string;
  max_price?: string;
  status?: MarketStatus;
  trading?: boolean;
  in_play_delay_sec?: number;
  points_cost?: number;
  /** Defaults to the market's own id (a group of one). */
  grouping_id?: string | null;
  grouping_name?: string | null;
  symbol?: string | null;
  question?: string | null;
  rules?: string | null;
  short_title?: string | null;
  featured?: boolean;
  details: MarketDetails;
  /** The market's settlement-side percent; absent or null: none. */
  settlement_fee_percent?: number | null;
}

/** A change to a listed market: only what is given changes. */
interface MarketChange {
  changes: Omit<MarketChanges, 'grouping_id'>;
  /** Fixed for the market's life: given, it must be the market's own (null never is). */
  grouping_id?: string | null;
  status?: MarketStatus;
  trading?: boolean;
  archived?: boolean;
  /** The market's settlement-side percent (null removes it); absent: unchanged. */
  settlement_fee_percent?: number | null;
}

export interface ChangedMarket {
  /** The market after the change; null when the engine changed nothing (read it where it is kept). */
  market: MarketStateView | null;
  position: bigint;
}

function statDetailRefusal(details: MarketDetails): Refusal | null {
  if (details.stat_detail === undefined || JSON.stringify(details.stat_detail).length <= STAT_DETAIL_LENGTH_MAX)
    return null;
  return { code: 'stat_detail_too_long', length_max: STAT_DETAIL_LENGTH_MAX };
}

const marketIn = (markets: readonly MarketStateView[], marketId: string) =>
  markets.find((m) => m.market_id === marketId) ?? null;

/** Sets the market's settlement-side percent after a listing or change; the market as it is then. */
async function withFee(
  caller: EngineCaller,
  marketId: string,
  percent: number | null,
  market: MarketStateView | null,
): Promise<CommandResult<ChangedMarket>> {
  const result = await submitOperatorInput(caller, {
    kind: 'SetSettlementFee',
    scope: 'market',
    scope_id: marketId,
    percent,
  });
  if (!result.ok) return result;
  return accepted({
    market: marketIn(result.value.answer.markets, marketId) ?? market,
    position: result.value.position,
  });
}

export async function listMarket(
  caller: EngineCaller,
  listing: MarketListing,
): Promise<CommandResult<{ market: MarketStateView; position: bigint }>> {
  const tooLong = statDetailRefusal(listing.details);
  if (tooLong) return refused(tooLong);
  const marketId = randomUUID();
  const fields: MarketFields = {
    market_id: marketId,
    event_id: listing.event_id,
    title: listing.title,
    max_price: listing.max_price ?? DEFAULT_MAX_PRICE,
    status: listing.status ?? 'scheduled',
    trading: listing.trading ?? true,
    in_play_delay_sec: listing.in_play_delay_sec ?? 0,
    points_cost: listing.points_cost ?? 0,
    grouping_id: listing.grouping_id ?? marketId,
    grouping_name: listing.grouping_name ?? null,
    symbol: listing.symbol ?? null,
    question: listing.question ?? null,
    rules: listing.rules ?? null,
    short_title: listing.short_title ?? null,
    featured: listing.featured ?? false,
  };
  const details = listing.details;
  const result = await submitOperatorInput(caller, {
    kind: 'ListMarket',
    market: fields,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
  if (!result.ok) return result;
  const market = marketIn(result.value.answer.markets, marketId);
  if (!market) throw new Error('engine accepted ListMarket without listing the market');
  if (listing.settlement_fee_percent === undefined || listing.settlement_fee_percent === null)
    return accepted({ market, position: result.value.position });
  const priced = await withFee(caller, marketId, listing.settlement_fee_percent, market);
  return priced.ok ? accepted({ market: priced.value.market ?? market, position: priced.value.position }) : priced;
}

export async function changeMarket(
  caller: EngineCaller,
  marketId: string,
  change: MarketChange,
): Promise<CommandResult<ChangedMarket>> {
  const tooLong = statDetailRefusal(change.changes);
  if (tooLong) return refused(tooLong);
  if (change.grouping_id === null) return refused({ code: 'market_field_fixed', field: 'grouping_id' });
  const changes: MarketChanges = { ...change.changes };
  if (change.grouping_id !== undefined) changes.grouping_id = change.grouping_id;
  const input: Extract<EngineInput, { kind: 'UpdateMarket' }> = { kind: 'UpdateMarket', market_id: marketId, changes };
  if (change.status !== undefined) input.status = change.status;
  if (change.trading !== undefined) input.trading = change.trading;
  if (change.archived !== undefined) input.archived = change.archived;
  const result = await submitOperatorInput(caller, input);
  if (!result.ok) return result;
  const market = marketIn(result.value.answer.markets, marketId);
  if (change.settlement_fee_percent === undefined) return accepted({ market, position: result.value.position });
  return withFee(caller, marketId, change.settlement_fee_percent, market);
}

export async function changeMarketStatus(
  caller: EngineCaller,
  marketId: string,
  change: { status?: MarketStatus; trading?: boolean },
): Promise<CommandResult<ChangedMarket>> {
  if (change.status === undefined && change.trading === undefined)
    return refused({ code: 'status_or_trading_required' });
  const input: Extract<EngineInput, { kind: 'ChangeMarketStatus' }> = {
    kind: 'ChangeMarketStatus',
    market_id: marketId,
  };
  if (change.status !== undefined) input.status = change.status;
  if (change.trading !== undefined) input.trading = change.trading;
  const result = await submitOperatorInput(caller, input);
  if (!result.ok) return result;
  return accepted({ market: marketIn(result.value.answer.markets, marketId), position: result.value.position });
}

export async function resultMarket(
  caller: EngineCaller,
  marketId: string,
  result: MarketResult,
): Promise<CommandResult<ChangedMarket>> {
  const submitted = await submitOperatorInput(caller, { kind: 'ResultMarket', market_id: marketId, result });
  if (!submitted.ok) return submitted;
  return accepted({ market: marketIn(submitted.value.answer.markets, marketId), position: submitted.value.position });
}
