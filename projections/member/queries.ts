// Query side of the member read models: the only SQL the member routes run.

import type pg from 'pg';
import { InvalidCursor } from '../pagination.ts';
import type { Avatar } from '../../domain/avatar/avatar.ts';
import { cursorParts } from '../core/queries/db.ts';
import type { MarketStatsValues } from './marketStats/compute.ts';

export interface ProfileRow {
  account_id: string;
  jurisdiction: string | null;
  created_at: string | null; // bigint as text; null until the account's snapshot is projected
  handle: string | null;
  handle_changed_at: string | null;
  avatar: Avatar | null;
  opt_in: boolean | null;
  opt_in_effective: boolean;
}

export async function profileOf(pool: pg.Pool, accountId: string): Promise<ProfileRow | undefined> {
  const result = await pool.query<ProfileRow>({
    name: 'member_profile_of',
    text: `SELECT account_id, jurisdiction, created_at::text, handle, handle_changed_at::text,
             avatar, opt_in, opt_in_effective FROM member_profiles WHERE account_id = $1`,
    values: [accountId],
  });
  return result.rows[0];
}

export async function avatarOfHandle(pool: pg.Pool, handle: string): Promise<{ avatar: Avatar | null } | undefined> {
  const result = await pool.query<{ avatar: Avatar | null }>({
    name: 'member_avatar_of_handle',
    text: 'SELECT avatar FROM member_profiles WHERE handle = $1 LIMIT 1',
    values: [handle],
  });
  return result.rows[0];
}

/** Handles of the given accounts that are on the leaderboard now (consent after defaults). */
export async function optedInHandles(
  pool: pg.Pool,
  accountIds: readonly string[],
): Promise<Map<string, string | null>> {
  if (accountIds.length === 0) return new Map();
  const result = await pool.query<{ account_id: string; handle: string | null }>({
    name: 'member_opted_in_handles',
    text: 'SELECT account_id, handle FROM member_profiles WHERE account_id = ANY($1::text[]) AND opt_in_effective',
    values: [accountIds],
  });
  return new Map(result.rows.map((r) => [r.account_id, r.handle]));
}

// ── market stats ─────────────────────────────────────────────────────────────────────────

interface MarketStatsFilter {
  market_ids?: string[];
  event_ids?: string[];
  exclude_zero_settlements?: boolean;
  from_time?: number;
  to_time?: number;
  sports?: string[]; // lowercase
  competitions?: string[]; // lowercase
}

export interface MarketStatsRow {
  account_id: string;
  market_id: string;
  event_id: string | null;
  inserted_at: string;
  updated_at: string;
  last_settled_at: string | null;
  doc: MarketStatsValues;
  competition: string | null;
  sport: string | null;
  status: string | null;
  title: string | null;
  event_start_time: string | null;
  archived_at: string | null;
  market_status: string | null;
  market_settled_at: string | null;
}

/** Keyset position after a row: (inserted_at as decimal text, market_id). */
type MarketStatsCursor = [string, string];

/**
 * The `cursor` query value of /account/market_stats → its keyset position (null when absent).
 * Forged parts PostgreSQL could not take (an inserted_at beyond bigint, a fraction, a NUL in the
 * market id) are the 400 `cursor is invalid`, never a query error.
 */
export function marketStatsCursor(raw: unknown): MarketStatsCursor | null {
  if (raw !== undefined && typeof raw !== 'string') throw new InvalidCursor();
  const parts = cursorParts(raw, ['int', 'text']);
  return parts ? [parts[0]!, parts[1]!] : null;
}

/**
 * The live index (the market stats "live-index" fields, docs/MEMBER.md, are null when the market is no longer
 * held there): every listed market until it is archived, what GET /markets lists by default.
 */
const IN_LIVE_INDEX = "(m.market_id IS NOT NULL AND m.doc->>'archived_at' IS NULL)";

export async function marketStats(
  pool: pg.Pool,
  accountId: string,
  filter: MarketStatsFilter,
  limit: number,
  after: MarketStatsCursor | null,
): Promise<MarketStatsRow[]> {
  const values: unknown[] = [accountId];
  const where: string[] = ['s.account_id = $1'];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.market_ids) where.push(`s.market_id = ANY(${param(filter.market_ids)}::text[])`);
  if (filter.event_ids) where.push(`s.event_id = ANY(${param(filter.event_ids)}::text[])`);
  if (filter.exclude_zero_settlements) where.push('s.settlements > 0');
  if (filter.from_time !== undefined) where.push(`s.last_settled_at >= ${param(filter.from_time)}::bigint`);
  if (filter.to_time !== undefined) where.push(`s.last_settled_at <= ${param(filter.to_time)}::bigint`);
  if (filter.sports) {
    const p = param(filter.sports);
    where.push(`(e.sport_lc = ANY(${p}::text[]) OR e.sport_key = ANY(${p}::text[]))`);
  }
  if (filter.competitions) where.push(`e.competition_lc = ANY(${param(filter.competitions)}::text[])`);
  if (after) where.push(`(s.inserted_at, s.market_id) < (${param(after[0])}::bigint, ${param(after[1])}::text)`);
  const result = await pool.query<MarketStatsRow>(
    `SELECT s.account_id, s.market_id, COALESCE(m.event_id, s.event_id) AS event_id, s.inserted_at::text, s.updated_at::text,
            s.last_settled_at::text, s.doc, e.doc->>'competition' AS competition, e.doc->>'sport' AS sport,
            CASE WHEN ${IN_LIVE_INDEX} THEN m.doc->>'status' END AS status,
            CASE WHEN ${IN_LIVE_INDEX} THEN m.doc->>'title' END AS title,
            CASE WHEN ${IN_LIVE_INDEX} THEN e.start_us::text END AS event_start_time,
            m.doc->>'archived_at' AS archived_at, m.status AS market_status, m.doc->>'settled_at' AS market_settled_at
     FROM core_market_stats s
     LEFT JOIN core_markets m ON m.market_id = s.market_id
     LEFT JOIN core_sport_events e ON e.event_id = COALESCE(m.event_id, s.event_id)
     WHERE ${where.join(' AND ')}
     ORDER BY s.inserted_at DESC, s.market_id DESC
     LIMIT ${param(limit)}`,
    values,
  );
  return result.rows;
}

// ── leaderboard facts ────────────────────────────────────────────────────────────────────

interface VolumeFactRow {
  account_id: string;
  sport: string | null;
  volume: string;
}
interface SettlementFactRow {
  account_id: string;
  market_id: string;
  sport: string | null;
  settled_at_us: string;
  net_pnl: string;
  contracts: string;
}

/** Notional traded (filled × max_price) per account and sport key, fills inserted in [from, to]. */
export async function volumeFacts(pool: pg.Pool, fromUs: number | null, toUs: number): Promise<VolumeFactRow[]> {
  const result = await pool.query<VolumeFactRow>(
    `SELECT f.account_id, e.sport_key AS sport, SUM((f.doc->>'filled')::numeric * (m.doc->>'max_price')::numeric)::text AS volume
     FROM core_fills f
     JOIN core_markets m ON m.market_id = f.market_id
     LEFT JOIN core_sport_events e ON e.event_id = m.event_id
     WHERE f.status <> 'cancelled' AND f.inserted_at <= $2 AND ($1::bigint IS NULL OR f.inserted_at >= $1::bigint)
     GROUP BY f.account_id, e.sport_key`,
    [fromUs, toUs],
  );
  return result.rows;
}

/** Each account's net result in each market resulted (not voided) in [from, to]. */
export async function settlementFacts(
  pool: pg.Pool,
  fromUs: number | null,
  toUs: number,
): Promise<SettlementFactRow[]> {
  const result = await pool.query<SettlementFactRow>(
    `SELECT s.account_id, s.market_id, e.sport_key AS sport, m.settled_at::text AS settled_at_us,
            s.doc->>'total_net_pnl' AS net_pnl, s.doc->>'contracts_settled' AS contracts
     FROM core_market_stats s
     JOIN (SELECT market_id, event_id, (doc->>'settled_at')::bigint AS settled_at FROM core_markets WHERE status = 'resulted') m ON m.market_id = s.market_id
     LEFT JOIN core_sport_events e ON e.event_id = m.event_id
     WHERE m.settled_at IS NOT NULL AND s.trade_count > 0
       AND m.settled_at <= $2 AND ($1::bigint IS NULL OR m.settled_at >= $1::bigint)`,
    [fromUs, toUs],
  );
  return result.rows;
}
