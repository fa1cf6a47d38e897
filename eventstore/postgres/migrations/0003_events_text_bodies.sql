-- Event bodies are stored as the JSON text the store serialised (JSON.stringify output), in text
-- columns: the adapter is their only writer and parses them on read, so having PostgreSQL parse
-- and validate every body again on insert (the `json` input function) was redundant work, and it
-- was most of the server's cost of appending large engine records.
ALTER TABLE events
  ALTER COLUMN data TYPE text USING data::text,
  ALTER COLUMN metadata TYPE text USING metadata::text;
