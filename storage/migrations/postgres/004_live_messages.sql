-- Which sent messages still carry live buttons (the table messages the bot posted and has
-- not yet retired): whoever delivers a chat next strips every earlier one, even after a
-- crash between posting a new table message and retiring the old (bot/delivery.py).
ALTER TABLE outbox ADD COLUMN live boolean NOT NULL DEFAULT false;

-- Before this, the live table message of a chat was its newest posted one, unless a result
-- replaced it (the bot's kinds 'table' and 'settle').
UPDATE outbox SET live = true WHERE id IN (
    SELECT max(id) FROM outbox WHERE kind = 'table' AND sent_at IS NOT NULL
    AND message_id IS NOT NULL GROUP BY chat_id)
AND NOT EXISTS (SELECT 1 FROM outbox AS r WHERE r.chat_id = outbox.chat_id
                AND r.kind = 'settle' AND r.message_id = outbox.message_id);

CREATE INDEX outbox_live ON outbox (chat_id, id) WHERE live;
