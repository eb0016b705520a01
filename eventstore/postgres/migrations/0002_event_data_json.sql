-- events.data keeps each payload as the writer encoded it (protojson), in a json column instead of jsonb. Every read
-- of an event hands its payload out as text (the relay publishes it as is, every load decodes it with protojson), and
-- jsonb rebuilds that text from its binary tree on each read: about 4.3 ms per 484 kB payload on this machine's
-- PostgreSQL against 2.2–2.9 ms for json, which returns the stored text, transfer included (docs/BENCHMARKS.md, "Sixth session").
-- Nothing queries into a payload, so jsonb's operators and indexes were never used; json still refuses text that is
-- not JSON. metadata (small, one level) and streams.summary (queried with @>) stay jsonb. The ALTER rewrites the table
-- under an exclusive lock, writes wait for it: on a large store, run the migration Job in a quiet hour.
ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
