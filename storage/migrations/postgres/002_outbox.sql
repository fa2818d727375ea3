-- A revision on every table row (compare-and-set for the host's metadata) and the durable
-- outbox: what a step must send is committed with the step, so a crash loses no announcement.

ALTER TABLE tables ADD COLUMN rev bigint NOT NULL DEFAULT 0;

CREATE TABLE outbox (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id     bigint      NOT NULL,   -- the table's chat the item belongs to
    kind        text        NOT NULL,   -- opaque to storage: group, dm, table, ...
    target      bigint      NOT NULL,   -- the Telegram chat to send to
    payload     jsonb       NOT NULL DEFAULT '{}',  -- may hold hidden cards until sent
    created_at  timestamptz NOT NULL DEFAULT now(),
    attempts    integer     NOT NULL DEFAULT 0,
    sent_at     timestamptz,            -- NULL while pending
    message_id  bigint                  -- the Telegram message the send produced, if any
);

CREATE INDEX outbox_pending ON outbox (chat_id, id) WHERE sent_at IS NULL;
CREATE INDEX outbox_sent ON outbox (chat_id, kind, id) WHERE sent_at IS NOT NULL;
