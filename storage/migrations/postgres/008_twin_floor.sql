-- A table post whose outcome may be unknown (its worker died between Telegram's answer and
-- the record of its message id, or the answer was lost): the newest message id the bot knew
-- in the chat before its first attempt, written with the attempt, before the send. Its
-- possible twin lies above it and below any later post of the bot in that chat, so the
-- next table post strips every id between (bot/outbox/courier.py, _resolve_twins); NULL
-- when the post is known to have made one message, or once that search is done.
ALTER TABLE outbox ADD COLUMN twin_floor bigint;

CREATE INDEX outbox_twin ON outbox (chat_id, id) WHERE twin_floor IS NOT NULL;
