-- Event bodies are stored out of line without compression (STORAGE EXTERNAL). An engine record
-- holds a whole group commit (up to 256 steps, a few hundred KB of JSON), and compressing it with
-- pglz on insert was about half of the append's time in PostgreSQL, on the path of every order's
-- commit. The journal trades disk for commit latency; rows written before this migration keep
-- their compression and read as before.
ALTER TABLE events
  ALTER COLUMN data SET STORAGE EXTERNAL,
  ALTER COLUMN metadata SET STORAGE EXTERNAL;
