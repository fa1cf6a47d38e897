-- The tables of the stores kept beside the event store (cli/stores/): OAuth codes and tokens as
-- digests, and Idempotency-Key claims. Until this migration each store created them itself at
-- its first use, outside the migration lock, and nodes starting together raced on them (IF NOT
-- EXISTS: an install that already has them keeps them as they are).
CREATE TABLE IF NOT EXISTS oauth_codes (
  code_hash text PRIMARY KEY,
  client_id text NOT NULL,
  account_id text NOT NULL,
  grant_id text NOT NULL,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  code_challenge text NOT NULL,
  issued_at_us bigint NOT NULL,
  expires_at_us bigint NOT NULL,
  consumed_at_us bigint
);
CREATE TABLE IF NOT EXISTS oauth_tokens (
  token_hash text PRIMARY KEY,
  kind text NOT NULL,
  token_id text NOT NULL,
  client_id text NOT NULL,
  account_id text,
  grant_id text,
  family_id text,
  scopes text[] NOT NULL,
  issued_at_us bigint NOT NULL,
  expires_at_us bigint NOT NULL,
  revoked_at_us bigint,
  rotated boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS oauth_revoked_grants (
  grant_id text PRIMARY KEY,
  revoked_at_us bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_tokens_grant ON oauth_tokens (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS oauth_tokens_family ON oauth_tokens (family_id) WHERE family_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS api_idempotency_keys (
  account_id text NOT NULL,
  idem_key text NOT NULL,
  created_at_us bigint NOT NULL,
  fingerprint text NOT NULL,
  status integer,
  body jsonb,
  PRIMARY KEY (account_id, idem_key)
);
