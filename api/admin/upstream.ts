// What the admin API reads or calls in other layers: credentials (API keys, sessions), the core
// read models and the leaderboard. Engine snapshots seen in replies are remembered here, so an
// answer can be built even before the read models have caught up.

import type { AppContext } from '../../commands/context.ts';
import type { AccountView, MarketStateView, SportEventView } from '../../domain/views.ts';

interface LeaderboardModule {
  refreshLeaderboards(ctx: AppContext): Promise<unknown>;
}

// Resolved at call time so that the admin API loads even while a layer is still being built.
async function load<T>(specifier: string): Promise<T> {
  return (await import(specifier)) as T;
}

export const leaderboard = () => load<LeaderboardModule>('../../projections/member/leaderboard.ts');

/** Latest engine snapshots seen by this process, by id. */
export class SnapshotCache {
  readonly accounts = new Map<string, AccountView>();
  readonly events = new Map<string, SportEventView>();
  readonly markets = new Map<string, MarketStateView>();

  constructor(private readonly ctx: AppContext) {}

  async account(accountId: string): Promise<AccountView | null> {
    return this.accounts.get(accountId) ?? null;
  }

  async event(eventId: string): Promise<SportEventView | null> {
    return this.events.get(eventId) ?? null;
  }

  async market(marketId: string): Promise<MarketStateView | null> {
    return this.markets.get(marketId) ?? null;
  }

  get context(): AppContext {
    return this.ctx;
  }
}
