-- Standings (storage/standings.py): every settled coup as the step that settled it recorded
-- it, append-only like the ledger, and the figures derived from these records alone. A
-- step folds the coups it settles into the derived tables in its own unit of work; a
-- rebuild deletes them and folds every coup again, with the same function.
CREATE TABLE coups (
    coup_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    step_id     INTEGER NOT NULL REFERENCES steps (step_id),
    chat_id     INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    coup        INTEGER NOT NULL,
    opened      REAL    NOT NULL,        -- when its table opened: with the coup, names it
    settled_at  REAL    NOT NULL,
    banker      INTEGER,
    record      TEXT    NOT NULL,        -- storage.base.SettledCoup, JSON
    CONSTRAINT coups_once UNIQUE (chat_id, opened, game, coup)
);

CREATE INDEX coups_chat ON coups (chat_id, coup_id);

CREATE TRIGGER coups_no_update BEFORE UPDATE ON coups
BEGIN
    SELECT RAISE(ABORT, 'coups are append-only');
END;

CREATE TRIGGER coups_no_delete BEFORE DELETE ON coups
BEGIN
    SELECT RAISE(ABORT, 'coups are append-only');
END;

-- A player's figures in one chat, game and day (UTC, of settled_at).
CREATE TABLE stat_days (
    chat_id  INTEGER NOT NULL,
    game     TEXT    NOT NULL,
    day      TEXT    NOT NULL,           -- YYYY-MM-DD
    user_id  INTEGER NOT NULL,
    coups    INTEGER NOT NULL,
    won      INTEGER NOT NULL,
    lost     INTEGER NOT NULL,
    net      INTEGER NOT NULL,
    best     INTEGER NOT NULL,
    worst    INTEGER NOT NULL,
    banks    INTEGER NOT NULL,
    PRIMARY KEY (chat_id, game, day, user_id)
) WITHOUT ROWID;

CREATE INDEX stat_days_player ON stat_days (user_id, chat_id, game);

-- How many times a player made each feat his game declares, in one chat and game.
CREATE TABLE stat_feats (
    chat_id  INTEGER NOT NULL,
    game     TEXT    NOT NULL,
    user_id  INTEGER NOT NULL,
    feat     TEXT    NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (chat_id, game, user_id, feat)
) WITHOUT ROWID;

CREATE INDEX stat_feats_player ON stat_feats (user_id, chat_id, game);

-- What runs across coups, per chat and game: the bank held in a row, the best hand shown.
CREATE TABLE stat_players (
    chat_id       INTEGER NOT NULL,
    game          TEXT    NOT NULL,
    user_id       INTEGER NOT NULL,
    bank_run      INTEGER NOT NULL,
    longest_bank  INTEGER NOT NULL,
    best_hand     TEXT,                  -- {"category", "ranks"} JSON
    best_key      INTEGER,               -- the best hand's rank (storage.standings.hand_key)
    PRIMARY KEY (chat_id, game, user_id)
) WITHOUT ROWID;

CREATE INDEX stat_players_player ON stat_players (user_id, chat_id, game);
