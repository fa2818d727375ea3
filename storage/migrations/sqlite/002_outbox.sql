-- A revision on every table row (compare-and-set for the host's metadata) and the durable
-- outbox: what a step must send is committed with the step, so a crash loses no announcement.

ALTER TABLE tables ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;

-- AUTOINCREMENT: an id is never reused, even after pruning, so "by id" stays "by commit".
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,        -- the table's chat the item belongs to
    kind        TEXT    NOT NULL,        -- opaque to storage: group, dm, table, ...
    target      INTEGER NOT NULL,        -- the Telegram chat to send to
    payload     TEXT    NOT NULL DEFAULT '{}',  -- JSON; may hold hidden cards until sent
    created_at  REAL    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    sent_at     REAL,                    -- NULL while pending
    message_id  INTEGER                  -- the Telegram message the send produced, if any
);

CREATE INDEX outbox_pending ON outbox (chat_id, id) WHERE sent_at IS NULL;
CREATE INDEX outbox_sent ON outbox (chat_id, kind, id) WHERE sent_at IS NOT NULL;
