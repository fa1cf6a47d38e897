-- Projections with several nodes on one database (docs/ARCHITECTURE.md, "Several nodes").
--
-- The projection lease: the node whose holder id is here, until expires_at (the database's
-- clock), runs the projection runner; it renews the row every second, and another node takes
-- the row once it has expired.
CREATE TABLE projection_lease (
  name       text PRIMARY KEY,
  holder     text NOT NULL,
  epoch      bigint NOT NULL,
  expires_at timestamptz NOT NULL
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
