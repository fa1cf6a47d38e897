-- State that every node must see alike (docs/ARCHITECTURE.md, "Several nodes").

-- Keys the whole installation shares, e.g. the key OAuth client secrets are digested with
-- (until now a file under each node's DATA_DIR: a client registered through one node could not
-- authenticate at another). A node offers its own at start; the first one stored is kept.
CREATE TABLE service_keys (
  name  text PRIMARY KEY,
  value text NOT NULL
);

-- OAuth browser sessions (oauth/browserSession.ts): a browser whose requests go to different
-- nodes keeps its session. `id_hash` is the SHA-256 of the cookie's value (the value itself is
-- never stored); `doc` holds the rest as JSON. A row with an account is signed in.
CREATE TABLE oauth_browser_sessions (
  id_hash      text PRIMARY KEY,
  account_id   text,
  signed_in_at bigint,
  last_seen_ms bigint NOT NULL,
  doc          text NOT NULL
);
CREATE INDEX oauth_browser_sessions_anonymous ON oauth_browser_sessions (last_seen_ms) WHERE account_id IS NULL;
CREATE INDEX oauth_browser_sessions_signed_in ON oauth_browser_sessions (last_seen_ms) WHERE account_id IS NOT NULL;
CREATE INDEX oauth_browser_sessions_account ON oauth_browser_sessions (account_id, signed_in_at) WHERE account_id IS NOT NULL;

-- Idempotency-Key claims across a failover: who holds an unanswered claim and until when (the
-- database's clock; the holder extends it while its request runs), and the seed the order ids of
-- the claimed request are made from, kept when another node takes the claim over.
ALTER TABLE api_idempotency_keys
  ADD COLUMN holder text,
  ADD COLUMN held_until timestamptz,
  ADD COLUMN seed text;
