// Tables of the core read models. Unqualified names: the runner sets search_path (public
// normally, a scratch schema during a rebuild whose tables are then swapped in).
//
// Every entity table keeps the engine's latest snapshot as `doc` (json: stored as sent, cheaper
// to write than jsonb, never queried into) plus the columns its queries filter and sort on,
// and `seq`, the engine step that produced the snapshot: an upsert applies only when its seq is >= the stored one, so replays are no-ops
// and an older snapshot never overwrites a newer one. `ins_pos`/`ins_idx` are the journal
// position and in-record index where a row first appeared: the "most recent first" order.

export const CORE_TABLES = [
  'core_accounts',
  'core_balances',
  'core_sport_events',
  'core_markets',
  'core_orders',
  'core_book_levels',
  'core_fills',
  'core_market_trades',
  'core_market_totals',
  'core_positions',
  'core_ledger_entries',
  'core_market_stats',
] as const;

export const CORE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS core_accounts (
  account_id text PRIMARY KEY,
  user_id text NOT NULL,
  status text NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS core_accounts_user ON core_accounts (user_id);
-- login and sign-up look members up by email, case-insensitively (accountsByEmail)
CREATE INDEX IF NOT EXISTS core_accounts_email ON core_accounts (lower(doc->>'email'));

CREATE TABLE IF NOT EXISTS core_balances (
  account_id text PRIMARY KEY,
  user_id text NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL
);

CREATE TABLE IF NOT EXISTS core_sport_events (
  event_id text PRIMARY KEY,
  start_us bigint NOT NULL,
  status text NOT NULL,
  sport_lc text,
  competition_lc text,
  sport_key text, -- the sport as leaderboards and market stats filters name it (sportKey)
  seq bigint NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS core_sport_events_start ON core_sport_events (start_us, event_id);

-- event_start, sport_lc, competition_lc are copied from the market's sport event so that
-- listing, filtering and keyset paging run on this one table.
CREATE TABLE IF NOT EXISTS core_markets (
  market_id text PRIMARY KEY,
  event_id text NOT NULL,
  status text NOT NULL,
  trading boolean NOT NULL,
  tier smallint NOT NULL,
  archived boolean NOT NULL DEFAULT false,
  event_start bigint NOT NULL DEFAULT 0,
  sport_lc text,
  competition_lc text,
  seq bigint NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS core_markets_tiered ON core_markets (tier, event_start, market_id);
CREATE INDEX IF NOT EXISTS core_markets_start ON core_markets (event_start, market_id);
CREATE INDEX IF NOT EXISTS core_markets_event ON core_markets (event_id);

-- book_*: what the order contributes to its market's book (null unless resting).
CREATE TABLE IF NOT EXISTS core_orders (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  market_id text NOT NULL,
  client_order_id text,
  status text NOT NULL,
  book_side text,
  book_price numeric,
  book_remaining numeric,
  seq bigint NOT NULL,
  ins_pos bigint NOT NULL,
  ins_idx integer NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS core_orders_recent ON core_orders (account_id, ins_pos DESC, ins_idx DESC);
CREATE INDEX IF NOT EXISTS core_orders_client ON core_orders (account_id, client_order_id) WHERE client_order_id IS NOT NULL;

-- Aggregated resting quantity per price level, kept from order snapshots.
CREATE TABLE IF NOT EXISTS core_book_levels (
  market_id text NOT NULL,
  side text NOT NULL,
  price numeric NOT NULL,
  quantity numeric NOT NULL,
  orders integer NOT NULL,
  PRIMARY KEY (market_id, side, price)
);

CREATE TABLE IF NOT EXISTS core_fills (
  trade_id text NOT NULL,
  liquidity_action text NOT NULL,
  account_id text NOT NULL,
  market_id text NOT NULL,
  order_id text NOT NULL,
  status text NOT NULL,
  tape_trade_id text, -- the Traded fact's trade id (a fill's own trade_id is the fill's id)
  inserted_at bigint NOT NULL, -- when the fill was made (UNIX µs): leaderboard volumes by period
  seq bigint NOT NULL,
  ins_pos bigint NOT NULL,
  ins_idx integer NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (trade_id, liquidity_action)
);
CREATE INDEX IF NOT EXISTS core_fills_recent ON core_fills (account_id, ins_pos DESC, ins_idx DESC);
CREATE INDEX IF NOT EXISTS core_fills_order ON core_fills (order_id);
-- the open fills of a market: a settlement-side fee percent change re-renders their potential fee
CREATE INDEX IF NOT EXISTS core_fills_open ON core_fills (market_id) WHERE status = 'open';
CREATE INDEX IF NOT EXISTS core_fills_time ON core_fills (inserted_at);

-- The public tape: one row per trade (not per side).
CREATE TABLE IF NOT EXISTS core_market_trades (
  trade_id text PRIMARY KEY,
  market_id text NOT NULL,
  price numeric NOT NULL,
  quantity numeric NOT NULL,
  taker_action text,
  executed_at bigint NOT NULL,
  ins_pos bigint NOT NULL,
  ins_idx integer NOT NULL
);
CREATE INDEX IF NOT EXISTS core_market_trades_recent ON core_market_trades (market_id, ins_pos DESC, ins_idx DESC);
CREATE INDEX IF NOT EXISTS core_market_trades_time ON core_market_trades (market_id, executed_at);

CREATE TABLE IF NOT EXISTS core_market_totals (
  market_id text PRIMARY KEY,
  total_volume numeric NOT NULL,
  trade_count bigint NOT NULL,
  last_trade_at bigint
);

CREATE TABLE IF NOT EXISTS core_positions (
  account_id text NOT NULL,
  market_id text NOT NULL,
  position numeric NOT NULL,
  contracts numeric NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (account_id, market_id)
);
CREATE INDEX IF NOT EXISTS core_positions_open ON core_positions (account_id, contracts DESC, market_id) WHERE position <> 0;
CREATE INDEX IF NOT EXISTS core_positions_long ON core_positions (market_id) WHERE position > 0;

CREATE TABLE IF NOT EXISTS core_ledger_entries (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  type text NOT NULL,
  seq bigint NOT NULL,
  ins_pos bigint NOT NULL,
  ins_idx integer NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS core_ledger_recent ON core_ledger_entries (account_id, type, ins_pos DESC, ins_idx DESC);
CREATE INDEX IF NOT EXISTS core_ledger_all ON core_ledger_entries (account_id, ins_pos DESC, ins_idx DESC);

-- One row per (account, market) the account has an order, fill or fee entry in: market stats
-- (docs/MEMBER.md). sums: the additive vector every order, fill and fee entry contributes
-- (slices/marketStats.ts); doc: the fields derived from it, the position and the market.
CREATE TABLE IF NOT EXISTS core_market_stats (
  account_id text NOT NULL,
  market_id text NOT NULL,
  event_id text,
  inserted_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  last_settled_at bigint,
  settlements integer NOT NULL,
  trade_count integer NOT NULL,
  sums json NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (account_id, market_id)
);
CREATE INDEX IF NOT EXISTS core_market_stats_list ON core_market_stats (account_id, inserted_at DESC, market_id DESC);
`;
