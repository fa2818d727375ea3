-- Standings (storage/standings.py): every settled coup as the step that settled it recorded
-- it, append-only like the ledger, and the figures derived from these records alone. A
-- step folds the coups it settles into the derived tables in its own transaction; a
-- rebuild deletes them and folds every coup again, with the same function.
CREATE TABLE coups (
    coup_id     bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    step_id     bigint           NOT NULL REFERENCES steps (step_id),
    chat_id     bigint           NOT NULL,
    game        text             NOT NULL,
    coup        integer          NOT NULL,
    opened      double precision NOT NULL,  -- when its table opened: with the coup, names it
    settled_at  double precision NOT NULL,
    banker      bigint,
    record      text             NOT NULL,  -- storage.base.SettledCoup, JSON kept byte for byte
    CONSTRAINT coups_once UNIQUE (chat_id, opened, game, coup)
);

CREATE INDEX coups_chat ON coups (chat_id, coup_id);

CREATE TRIGGER coups_no_change BEFORE UPDATE OR DELETE ON coups
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER coups_no_truncate BEFORE TRUNCATE ON coups
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- A player's figures in one chat, game and day (UTC, of settled_at).
CREATE TABLE stat_days (
    chat_id  bigint  NOT NULL,
    game     text    NOT NULL,
    day      text    NOT NULL,           -- YYYY-MM-DD
    user_id  bigint  NOT NULL,
    coups    bigint  NOT NULL,
    won      bigint  NOT NULL,
    lost     bigint  NOT NULL,
    net      bigint  NOT NULL,
    best     bigint  NOT NULL,
    worst    bigint  NOT NULL,
    banks    bigint  NOT NULL,
    PRIMARY KEY (chat_id, game, day, user_id)
);

CREATE INDEX stat_days_player ON stat_days (user_id, chat_id, game);

-- How many times a player made each feat his game declares, in one chat and game.
CREATE TABLE stat_feats (
    chat_id  bigint  NOT NULL,
    game     text    NOT NULL,
    user_id  bigint  NOT NULL,
    feat     text    NOT NULL,
    n        bigint  NOT NULL,
    PRIMARY KEY (chat_id, game, user_id, feat)
);

CREATE INDEX stat_feats_player ON stat_feats (user_id, chat_id, game);

-- What runs across coups, per chat and game: the bank held in a row, the best hand shown.
CREATE TABLE stat_players (
    chat_id       bigint  NOT NULL,
    game          text    NOT NULL,
    user_id       bigint  NOT NULL,
    bank_run      bigint  NOT NULL,
    longest_bank  bigint  NOT NULL,
    best_hand     text,                  -- {"category", "ranks"} JSON
    best_key      bigint,                -- the best hand's rank (storage.standings.hand_key)
    PRIMARY KEY (chat_id, game, user_id)
);

CREATE INDEX stat_players_player ON stat_players (user_id, chat_id, game);
