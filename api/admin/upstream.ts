// What the admin API reads in other layers: the core read models (accounts, sport events,
// markets), waited on for read-your-writes. Engine snapshots seen in
// replies are remembered, so an answer can still be built if the read models lag behind.

import type { AppContext } from '../../commands/context.ts';
import { getAccount } from '../../projections/core/queries/accounts.ts';
import { getMarket, getMarketState } from '../../projections/core/queries/markets.ts';
import { getSportEvent } from '../../projections/core/queries/sportEvents.ts';
import type { MarketWire } from '../../projections/core/market.ts';
import type { AccountView, MarketStateView, SportEventView } from '../../domain/views.ts';

/** How long an admin answer waits for the read models before falling back to the snapshot. */
const READ_WAIT_MS = 3000;

/** Snapshots kept per kind; the oldest go first (they only bridge projection lag). */
const SNAPSHOTS_PER_KIND_MAX = 10_000;

/** A Map that forgets its oldest entries beyond a bound. */
class BoundedMap<K, V> extends Map<K, V> {
  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    while (this.size > SNAPSHOTS_PER_KIND_MAX) this.delete(this.keys().next().value as K);
    return this;
  }
}

/** Read-model lookups with read-your-writes, falling back to the latest engine snapshots. */
export class SnapshotCache {
  readonly accounts: Map<string, AccountView> = new BoundedMap();
  readonly events: Map<string, SportEventView> = new BoundedMap();
  readonly markets: Map<string, MarketStateView> = new BoundedMap();

  constructor(readonly context: AppContext) {}

  /** Waits (bounded) for the projections to pass `position`; false when they did not in time. */
  async caughtUp(position: bigint | undefined): Promise<boolean> {
    if (position === undefined) return true;
    try {
      await this.context.projections.waitFor(position, READ_WAIT_MS);
      return true;
    } catch (err) {
      this.context.logger.warn(
        { err, position: String(position) },
        'admin read: projections behind; answering from the engine snapshot',
      );
      return false;
    }
  }

  private async read<T>(what: string, query: () => Promise<T | null>): Promise<T | null> {
    try {
      return await query();
    } catch (err) {
      this.context.logger.warn({ err }, `admin read of ${what} failed; answering from the engine snapshot`);
      return null;
    }
  }

  async account(accountId: string): Promise<AccountView | null> {
    const caughtUp = await this.caughtUp(this.context.writes.lastFor(accountId));
    const cached = this.accounts.get(accountId) ?? null;
    if (!caughtUp && cached) return cached;
    return (await this.read('account', () => getAccount(this.context.pool, accountId))) ?? cached;
  }

  async event(eventId: string): Promise<SportEventView | null> {
    return (
      (await this.read('event', () => getSportEvent(this.context.pool, eventId))) ?? this.events.get(eventId) ?? null
    );
  }

  /** The engine's part of a market, from the read model (or the latest snapshot seen). */
  async market(marketId: string): Promise<MarketStateView | null> {
    return (
      (await this.read('market', () => getMarketState(this.context.pool, marketId))) ??
      this.markets.get(marketId) ??
      null
    );
  }

  /** The full market object once the read model has passed `position`; null if it has not. */
  async marketAfter(marketId: string, position: bigint): Promise<MarketWire | null> {
    if (!(await this.caughtUp(position))) return null;
    return this.read('market', () => getMarket(this.context.pool, marketId, this.context.clock.nowUs()));
  }
}
