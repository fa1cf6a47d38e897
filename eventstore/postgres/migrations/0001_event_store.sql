-- The event store. Positions are allocated from the single counter row `event_position` inside
-- the append transaction; its row lock is held until commit, so commit order equals position
-- order and a reader of "position > checkpoint" can never skip a late-committing event.
CREATE TABLE events (
  position    bigint PRIMARY KEY,
  stream      text NOT NULL,
  revision    bigint NOT NULL,
  id          text NOT NULL UNIQUE,
  type        text NOT NULL,
  data        json NOT NULL,
  metadata    json NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream, revision)
);

CREATE TABLE event_position (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  position  bigint NOT NULL
);
INSERT INTO event_position (singleton, position) VALUES (true, -1);
