-- A group's title as the bot last saw it: /balance in a private chat names each chat where
-- the player has a wallet. Wallets by player, for that answer.
ALTER TABLE chats ADD COLUMN title text;

CREATE INDEX wallets_user ON wallets (user_id, chat_id);
