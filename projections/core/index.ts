// The core read models' public surface: the projector and the query functions REST, admin and
// realtime call. Queries take a pg.Pool (or client) and return wire-shaped objects.

export { coreProjector } from './projector.ts';
export * from './render.ts';
export { type MarketWire, type PriceLevel, type RecentTrade, renderedStatus, marketTier } from './market.ts';
export type { PageRequest, Queryable } from './queries/db.ts';
export * from './queries/accounts.ts';
export * from './queries/orders.ts';
export * from './queries/fills.ts';
export * from './queries/positions.ts';
export * from './queries/markets.ts';
export * from './queries/sportEvents.ts';
export * from './queries/ledger.ts';
export * from './queries/trades.ts';
