-- 0001_init: the whole event-store schema, mirroring the PostgreSQL backend's.
-- Times are INTEGER microseconds since the Unix epoch (PostgreSQL's timestamptz
-- precision), so both backends round-trip the same instants.

-- streams holds one head row per stream: the version every append
-- compare-and-swaps, the owner, and the summary list pages show.
CREATE TABLE streams (
    stream_id  TEXT    NOT NULL PRIMARY KEY,
    version    INTEGER NOT NULL CHECK (version >= 1),
    owner      TEXT    NOT NULL,
    title      TEXT    NOT NULL DEFAULT '',
    status     TEXT    NOT NULL DEFAULT '',
    summary    TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(summary)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Keyset pagination of one owner's streams, newest first.
CREATE INDEX streams_owner_created ON streams (owner, created_at DESC, stream_id DESC);

-- events: AUTOINCREMENT (not a plain rowid alias) so a position is never
-- reused, even after the newest events are deleted with their stream; a
-- reused position would sit behind every feed reader's cursor and be skipped.
CREATE TABLE events (
    global_position INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        TEXT    NOT NULL UNIQUE,
    stream_id       TEXT    NOT NULL REFERENCES streams (stream_id),
    version         INTEGER NOT NULL CHECK (version >= 1),
    type            TEXT    NOT NULL,
    data            TEXT    NOT NULL,
    metadata        TEXT    NOT NULL DEFAULT '{}',
    recorded_at     INTEGER NOT NULL,
    UNIQUE (stream_id, version)
);

-- tombstones keep deleted stream ids so they are never reused.
CREATE TABLE tombstones (
    stream_id  TEXT    NOT NULL PRIMARY KEY,
    deleted_at INTEGER NOT NULL
) WITHOUT ROWID;

-- snapshots: the newest folded state per stream and state schema version.
CREATE TABLE snapshots (
    stream_id      TEXT    NOT NULL REFERENCES streams (stream_id),
    schema_version INTEGER NOT NULL,
    version        INTEGER NOT NULL CHECK (version >= 1),
    data           BLOB    NOT NULL,
    created_at     INTEGER NOT NULL,
    PRIMARY KEY (stream_id, schema_version)
) WITHOUT ROWID;

-- command_dedup: idempotency keys and the first answer given under them.
-- expires_at comes from the caller's clock (Idempotency.ExpiresAt).
CREATE TABLE command_dedup (
    key            TEXT    NOT NULL PRIMARY KEY,
    request_hash   BLOB    NOT NULL,
    stream_id      TEXT    NOT NULL,
    version        INTEGER NOT NULL,
    first_position INTEGER NOT NULL,
    last_position  INTEGER NOT NULL,
    response       BLOB,
    expires_at     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX command_dedup_expires ON command_dedup (expires_at);

-- reader_cursors: each feed reader's saved position. tx_id stays 0 here
-- (commit order is position order under the single writer).
CREATE TABLE reader_cursors (
    reader     TEXT    NOT NULL PRIMARY KEY,
    tx_id      INTEGER NOT NULL DEFAULT 0,
    position   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- blobs: content-addressed bytes (route points), stored once.
CREATE TABLE blobs (
    hash       BLOB    NOT NULL PRIMARY KEY,
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX blobs_created ON blobs (created_at);

-- stream_blobs: which stream references which blob, so housekeeping keeps it.
CREATE TABLE stream_blobs (
    stream_id TEXT NOT NULL REFERENCES streams (stream_id),
    hash      BLOB NOT NULL,
    PRIMARY KEY (stream_id, hash)
) WITHOUT ROWID;

CREATE INDEX stream_blobs_hash ON stream_blobs (hash);
