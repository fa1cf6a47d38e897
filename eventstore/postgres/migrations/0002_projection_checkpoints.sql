-- One row per projector: the position its read models have reached, written in the same
-- transaction as those read-model rows.
CREATE TABLE projection_checkpoints (
  name       text PRIMARY KEY,
  version    integer NOT NULL,
  position   bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
