-- Achievements (storage/standings.py): each one a player reached, once per chat, game and
-- achievement (its key, declared by the game), at the coup that first met its condition.
-- Derived like the standings: a step folds it in its own unit of work, a rebuild refills it.
CREATE TABLE achievements (
    chat_id    INTEGER NOT NULL,
    game       TEXT    NOT NULL,
    user_id    INTEGER NOT NULL,
    key        TEXT    NOT NULL,
    coup       INTEGER NOT NULL,         -- the coup's number on the table opened at opened
    opened     REAL    NOT NULL,
    earned_at  REAL    NOT NULL,         -- when that coup settled
    PRIMARY KEY (chat_id, game, user_id, key)
) WITHOUT ROWID;

CREATE INDEX achievements_player ON achievements (user_id, chat_id);
