-- Projections with several nodes on one database (docs/ARCHITECTURE.md, "Several nodes").
--
-- The projection lease: the node whose holder id is here, until expires_at (the database's
-- clock), runs the projection runner; it renews the row every second, and another node takes
-- the row once it has expired. relaying_since: since when the holder relays (below), null while
-- no other node reads the relay.
CREATE TABLE projection_lease (
  name           text PRIMARY KEY,
  holder         text NOT NULL,
  epoch          bigint NOT NULL,
  expires_at     timestamptz NOT NULL,
  relaying_since timestamptz
);

-- Nodes reading the relay, each seen every second: the leaseholder relays while one was seen
-- lately (a lone node writes no relay rows).
CREATE TABLE projection_relay_readers (
  node    text PRIMARY KEY,
  seen_at timestamptz NOT NULL
);

-- The relay: what the runner announced (changes and positions), one row per projection
-- transaction, written inside that transaction, for the other nodes' in-memory consumers. `seq`
-- is taken from the one-row head table under its row lock, so rows become visible in seq order
-- and a reader that sees seq n has every row below it. Kept seconds only (trimmed by the
-- leaseholder), and unlogged: after a database crash it starts empty, like the readers.
CREATE UNLOGGED TABLE projection_relay_head (
  id  boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq bigint NOT NULL
);
CREATE UNLOGGED TABLE projection_relay (
  seq        bigint PRIMARY KEY,
  writer     text NOT NULL,
  body       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- written once and read once: not worth compressing on the projection's commit
ALTER TABLE projection_relay ALTER COLUMN body SET STORAGE EXTERNAL;
