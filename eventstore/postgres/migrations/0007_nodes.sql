-- Several nodes on one database: the writer lease (one row: which node runs the engine, until
-- when, and the epoch that counts acquisitions) and the node registry (each node's own row,
-- refreshed about every second: its advertised address, role and journal position).
CREATE TABLE writer_lease (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  node_id    text NOT NULL,
  url        text NOT NULL,
  epoch      bigint NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE TABLE exchange_nodes (
  node_id      text PRIMARY KEY,
  url          text NOT NULL,
  role         text NOT NULL,
  position     text NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  started_at   timestamptz NOT NULL
);
