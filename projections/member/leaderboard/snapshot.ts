// Leaderboard snapshots: every board's values per account, computed at one instant from the
// market stats and fills of the core read model and kept in memory. A snapshot holds all members with activity;
// consent (opt-in) and handles are applied when a board is read, so leaving or joining shows
// at once while each member's standing stays untouched. Ranks are assigned at read time among
// the members shown.

import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../../../domain/clock.ts';

/** What building the snapshots needs (the service's context has all of it). */
export interface LeaderboardDeps {
  store: { headPosition(): Promise<bigint> };
  projections: { waitFor(position: bigint, timeoutMs?: number): Promise<void> };
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  pool: pg.Pool;
}
import { usToIso } from '../../../domain/clock.ts';
import {
  LEADERBOARD_METRICS,
  boardValues,
  type BoardEntry,
  type Metric,
  type SettlementFact,
} from '../../../domain/leaderboard/board.ts';
import {
  LEADERBOARD_PERIODS,
  periodBounds,
  type Period,
  type PeriodBounds,
} from '../../../domain/leaderboard/period.ts';
import { settlementFacts, volumeFacts } from '../queries.ts';

/** Bound on waiting for projections to catch up before a refresh reads them. */
const CATCH_UP_WAIT_MS = 5_000;

interface PeriodSnapshot {
  bounds: PeriodBounds;
  /** board key `${category}/${metric}` → entries (unranked, every member with activity). */
  boards: Map<string, BoardEntry[]>;
}

interface LeaderboardSnapshot {
  refreshed_at_us: number;
  periods: Map<Period, PeriodSnapshot>;
}

interface SnapshotHolder {
  current: LeaderboardSnapshot | null;
  inFlight: Promise<LeaderboardSnapshot> | null;
}

const holders = new WeakMap<LeaderboardDeps, SnapshotHolder>();

function holderOf(ctx: LeaderboardDeps): SnapshotHolder {
  let holder = holders.get(ctx);
  if (!holder) {
    holder = { current: null, inFlight: null };
    holders.set(ctx, holder);
  }
  return holder;
}

export const boardKey = (category: string, metric: Metric) => `${category}/${metric}`;

async function buildSnapshot(ctx: LeaderboardDeps): Promise<LeaderboardSnapshot> {
  const head = await ctx.store.headPosition();
  if (head >= 0n) {
    await ctx.projections.waitFor(head, CATCH_UP_WAIT_MS).catch((err: unknown) => {
      ctx.logger.warn({ err }, 'leaderboard refresh: projections behind, building from what they have');
    });
  }
  const nowUs = ctx.clock.nowUs();
  const periods = new Map<Period, PeriodSnapshot>();
  for (const period of LEADERBOARD_PERIODS) {
    const bounds = periodBounds(period, nowUs);
    const [volumeRows, settlementRows] = await Promise.all([
      volumeFacts(ctx.pool, bounds.start_us, nowUs),
      settlementFacts(ctx.pool, bounds.start_us, nowUs),
    ]);
    const volumes = volumeRows.map((r) => ({ account_id: r.account_id, sport: r.sport, volume: r.volume }));
    const settlements: SettlementFact[] = settlementRows.map((r) => ({
      account_id: r.account_id,
      market_id: r.market_id,
      sport: r.sport,
      settled_at_us: Number(r.settled_at_us),
      net_pnl: r.net_pnl ?? '0',
      contracts: r.contracts ?? '0',
    }));
    const categories = new Set<string>(['all']);
    for (const fact of [...volumes, ...settlements]) if (fact.sport) categories.add(fact.sport);
    const boards = new Map<string, BoardEntry[]>();
    for (const category of categories) {
      for (const metric of LEADERBOARD_METRICS)
        boards.set(boardKey(category, metric), boardValues(metric, category, volumes, settlements));
    }
    periods.set(period, { bounds, boards });
  }
  return { refreshed_at_us: nowUs, periods };
}

/** Rebuilds every board now (one build at a time; concurrent callers share it). */
export async function refreshLeaderboards(ctx: LeaderboardDeps): Promise<{ refreshed_at: string }> {
  const holder = holderOf(ctx);
  if (!holder.inFlight) {
    holder.inFlight = buildSnapshot(ctx)
      .then((snapshot) => {
        holder.current = snapshot;
        return snapshot;
      })
      .finally(() => {
        holder.inFlight = null;
      });
  }
  const snapshot = await holder.inFlight;
  return { refreshed_at: usToIso(snapshot.refreshed_at_us) };
}

/** The latest snapshot, or null before the first. */
export function currentSnapshot(ctx: LeaderboardDeps): LeaderboardSnapshot | null {
  return holderOf(ctx).current;
}

/** True when a period boundary has passed since the snapshot was built (a reset is due). */
export function snapshotIsStale(snapshot: LeaderboardSnapshot, nowUs: number): boolean {
  const daily = snapshot.periods.get('daily')?.bounds.next_reset_us;
  return daily !== undefined && daily !== null && nowUs >= daily;
}
