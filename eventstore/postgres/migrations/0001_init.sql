-- Roadbook event store, PostgreSQL schema (ARCHITECTURE §4). Every name is
-- unqualified: the schema comes from search_path, so tests run each in a
-- schema of their own.

-- streams: one row per live stream. Its version is the CAS of every append
-- (`UPDATE streams` is an append's first write), and its summary is what
-- list pages show without folding events.
CREATE TABLE streams (
    stream_id  text PRIMARY KEY,
    version    bigint NOT NULL CHECK (version >= 0),
    owner      text NOT NULL,
    title      text NOT NULL DEFAULT '',
    status     text NOT NULL DEFAULT '',
    summary    jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX streams_owner_created ON streams (owner, created_at DESC, stream_id DESC);

-- events: the log. tx_id orders the feed: a reader takes rows with
-- tx_id < pg_snapshot_xmin(pg_current_snapshot()), i.e. from transactions
-- that have all finished, ordered by (tx_id, global_position).
CREATE TABLE events (
    global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    event_id        uuid NOT NULL UNIQUE,
    stream_id       text NOT NULL,
    version         bigint NOT NULL,
    type            text NOT NULL,
    data            jsonb NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}',
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (stream_id, version)
);
CREATE INDEX events_feed ON events (tx_id, global_position);

-- tombstones: ids of deleted streams, never reused.
CREATE TABLE tombstones (
    stream_id  text PRIMARY KEY,
    owner      text NOT NULL,
    deleted_at timestamptz NOT NULL DEFAULT now()
);

-- snapshots: the newest folded state per stream and state schema version.
CREATE TABLE snapshots (
    stream_id      text NOT NULL,
    schema_version integer NOT NULL,
    version        bigint NOT NULL,
    data           bytea NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, schema_version)
);

-- command_dedup: idempotency keys and the first answer given under each.
CREATE TABLE command_dedup (
    key            text PRIMARY KEY,
    request_hash   bytea NOT NULL,
    response       bytea,
    stream_id      text NOT NULL,
    version        bigint NOT NULL,
    first_position bigint NOT NULL,
    last_position  bigint NOT NULL,
    expires_at     timestamptz NOT NULL
);
CREATE INDEX command_dedup_expires ON command_dedup (expires_at);

-- reader_cursors: each feed reader's position, saved after hand-off.
CREATE TABLE reader_cursors (
    reader     text PRIMARY KEY,
    tx_id      xid8 NOT NULL,
    position   bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- blobs: content-addressed bytes (route points); stream_blobs: which
-- streams reference them, so housekeeping collects the rest.
CREATE TABLE blobs (
    hash       bytea PRIMARY KEY,
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE stream_blobs (
    stream_id text NOT NULL,
    hash      bytea NOT NULL,
    PRIMARY KEY (stream_id, hash)
);
CREATE INDEX stream_blobs_hash ON stream_blobs (hash);
