-- Where each awaited player's turn was shown (bot/table/clock.py): one fact per decision,
-- player and channel (the group's table message, his private prompt, his open page),
-- appended by the channel that showed it (on any worker), never by a commit of the table.
-- A decision's clock runs from the moment every awaited player's turn has been shown; a
-- delivered prompt's message (and what it showed) is found here until the table's next
-- commit keeps it. A closed table's facts go with it.
CREATE TABLE presence (
    chat_id     bigint           NOT NULL,
    decision    bigint           NOT NULL,
    player      bigint           NOT NULL,
    channel     text             NOT NULL,
    shown_at    double precision NOT NULL,
    message_id  bigint,
    digest      text,
    PRIMARY KEY (chat_id, decision, player, channel)
);

-- A clock started from the facts (no commit of the table) is stored beside the record for
-- the workers' pollers (bot/workers/coordination.py): the deadline of the record's decision
-- is the record's own once a commit keeps it, else this one, while it is that decision's.
ALTER TABLE tables ADD COLUMN clock_decision bigint;
ALTER TABLE tables ADD COLUMN clock_due double precision;
DROP INDEX tables_due;
ALTER TABLE tables DROP COLUMN due;
ALTER TABLE tables ADD COLUMN due double precision GENERATED ALWAYS AS (
    CASE WHEN COALESCE((meta->>'paused')::boolean, false) THEN NULL
         WHEN meta->>'due' IS NOT NULL THEN
             GREATEST((meta->>'due')::float8, COALESCE((meta->>'grace_until')::float8, 0))
         WHEN clock_decision = (meta->>'decision')::bigint THEN
             GREATEST(clock_due, COALESCE((meta->>'grace_until')::float8, 0))
    END) STORED;
CREATE INDEX tables_due ON tables (due) WHERE due IS NOT NULL;
