// Tables of the member activity read model (market stats, leaderboard facts). The ledger lists
// read the core read model (core_ledger_entries); only a market's fee entries are kept here,
// because market stats sum them.
// Indexes only for the reads there are: rows are read back by key (the fold) and by market or
// time (open fills, leaderboard volumes); every index more is one more write per order or fill.
// Snapshot tables keep the engine's latest view as `doc` plus `seq`, the engine step that
// produced it: an upsert applies only from a step >= the stored one (replays change nothing).

export const MEMBER_ACTIVITY_TABLES = [
  'member_sport_events',
  'member_markets',
  'member_orders',
  'member_fills',
  'member_positions',
  'member_balances',
  'member_fee_entries',
  'member_market_stats',
] as const;

export const MEMBER_ACTIVITY_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS member_sport_events (
  event_id text PRIMARY KEY,
  sport text,
  sport_key text,
  competition text,
  start_us bigint,
  seq bigint NOT NULL,
  doc json NOT NULL
);

CREATE TABLE IF NOT EXISTS member_markets (
  market_id text PRIMARY KEY,
  event_id text NOT NULL,
  status text NOT NULL,
  result text,
  max_price numeric NOT NULL,
  settled_at bigint,
  seq bigint NOT NULL,
  doc json NOT NULL
);
CREATE INDEX IF NOT EXISTS member_markets_event ON member_markets (event_id);

-- doc: the order's facts market stats are computed from (id, account_id, market_id, action,
-- status, price, quantity, filled); rows written before this held the whole order view, a
-- superset read the same way.
CREATE TABLE IF NOT EXISTS member_orders (
  order_id text PRIMARY KEY,
  account_id text NOT NULL,
  market_id text NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL
);

CREATE TABLE IF NOT EXISTS member_fills (
  trade_id text NOT NULL,
  order_id text NOT NULL,
  account_id text NOT NULL,
  market_id text NOT NULL,
  status text NOT NULL,
  filled numeric NOT NULL,
  inserted_at bigint NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (trade_id, order_id)
);
CREATE INDEX IF NOT EXISTS member_fills_open ON member_fills (market_id) WHERE status = 'open';
CREATE INDEX IF NOT EXISTS member_fills_time ON member_fills (inserted_at);

CREATE TABLE IF NOT EXISTS member_positions (
  account_id text NOT NULL,
  market_id text NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL,
  PRIMARY KEY (account_id, market_id)
);

CREATE TABLE IF NOT EXISTS member_balances (
  account_id text PRIMARY KEY,
  seq bigint NOT NULL,
  doc json NOT NULL
);

CREATE TABLE IF NOT EXISTS member_fee_entries (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  market_id text NOT NULL,
  seq bigint NOT NULL,
  doc json NOT NULL
);

CREATE TABLE IF NOT EXISTS member_market_stats (
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
CREATE INDEX IF NOT EXISTS member_market_stats_list ON member_market_stats (account_id, inserted_at DESC, market_id DESC);
`;
