-- Each chat's defaults for its next tables (/settings default KEY VALUE): a JSON object of
-- the table settings (timeout, turn_dm) and, per game, that game's settings. NULL: none.
ALTER TABLE chats ADD COLUMN settings jsonb;
