-- Achievements (storage/standings.py): each one a player reached, once per chat, game and
-- achievement (its key, declared by the game), at the coup that first met its condition.
-- Derived like the standings: a step folds it in its own transaction, a rebuild refills it.
CREATE TABLE achievements (
    chat_id    bigint           NOT NULL,
    game       text             NOT NULL,
    user_id    bigint           NOT NULL,
    key        text             NOT NULL,
    coup       integer          NOT NULL,  -- the coup's number on the table opened at opened
    opened     double precision NOT NULL,
    earned_at  double precision NOT NULL,  -- when that coup settled
    PRIMARY KEY (chat_id, game, user_id, key)
);

CREATE INDEX achievements_player ON achievements (user_id, chat_id);
