-- The all-chats board (storage/board.py). A player's choice whether his name shows there
-- (/privacy; no row: hidden).
CREATE TABLE privacy (
    user_id  INTEGER PRIMARY KEY,
    public   INTEGER NOT NULL CHECK (public IN (0, 1)),
    set_at   REAL    NOT NULL
);

-- The figures of the chats listed on it (chats.settings: "global": true), summed over those
-- chats per game and day; game '' is every game, day '' every day. Each coup of a listed
-- chat is added with its step; a chat listed or unlisted adds or takes away its stat_days.
CREATE TABLE stat_global (
    game     TEXT    NOT NULL,
    day      TEXT    NOT NULL,
    user_id  INTEGER NOT NULL,
    coups    INTEGER NOT NULL,
    won      INTEGER NOT NULL,
    net      INTEGER NOT NULL,
    PRIMARY KEY (game, day, user_id)
) WITHOUT ROWID;

-- All time: the best nets first, without adding anything up.
CREATE INDEX stat_global_rank ON stat_global (game, day, net DESC, coups DESC, user_id);


-- A week or a month of the board without its last day, summed per player (storage/board.py,
-- "windows"): made by the first /top global of that period and game on a day, then read
-- with its last day's rows. stat_global_windows says which are whole: a coup counted on one
-- of their days, a chat listed or unlisted, a rebuild, each drops the ones it changes.
CREATE TABLE stat_global_windows (
    game       TEXT NOT NULL,
    first_day  TEXT NOT NULL,
    last_day   TEXT NOT NULL,
    PRIMARY KEY (game, first_day)
);

CREATE TABLE stat_global_window (
    game       TEXT    NOT NULL,
    first_day  TEXT    NOT NULL,
    user_id    INTEGER NOT NULL,
    coups      INTEGER NOT NULL,
    won        INTEGER NOT NULL,
    net        INTEGER NOT NULL,
    PRIMARY KEY (game, first_day, user_id)
) WITHOUT ROWID;

CREATE INDEX stat_global_window_rank
    ON stat_global_window (game, first_day, net DESC, coups DESC, user_id);
