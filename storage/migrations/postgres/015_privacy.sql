-- The all-chats board (storage/board.py). A player's choice whether his name shows there
-- (/privacy; no row: hidden).
CREATE TABLE privacy (
    user_id  bigint  PRIMARY KEY,
    public   boolean NOT NULL,
    set_at   timestamptz NOT NULL DEFAULT now()
);

-- The figures of the chats listed on it (chats.settings: "global": true), summed over those
-- chats per game and day; game '' is every game, day '' every day. Each coup of a listed
-- chat is added with its step; a chat listed or unlisted adds or takes away its stat_days.
CREATE TABLE stat_global (
    game     text    NOT NULL,
    day      text    NOT NULL,
    user_id  bigint  NOT NULL,
    coups    bigint  NOT NULL,
    won      bigint  NOT NULL,
    net      bigint  NOT NULL,
    PRIMARY KEY (game, day, user_id)
);

-- All time: the best nets first, without adding anything up.
CREATE INDEX stat_global_rank ON stat_global (game, day, net DESC, coups DESC, user_id);
-- A period: its days' rows read from the index alone.
CREATE INDEX stat_global_days ON stat_global (game, day) INCLUDE (user_id, coups, won, net);


-- A week or a month of the board without its last day, summed per player (storage/board.py,
-- "windows"): made by the first /top global of that period and game on a day, then read
-- with its last day's rows. stat_global_windows says which are whole: a coup counted on one
-- of their days, a chat listed or unlisted, a rebuild, each drops the ones it changes.
CREATE TABLE stat_global_windows (
    game       text NOT NULL,
    first_day  text NOT NULL,
    last_day   text NOT NULL,
    PRIMARY KEY (game, first_day)
);

CREATE TABLE stat_global_window (
    game       text   NOT NULL,
    first_day  text   NOT NULL,
    user_id    bigint NOT NULL,
    coups      bigint NOT NULL,
    won        bigint NOT NULL,
    net        bigint NOT NULL,
    PRIMARY KEY (game, first_day, user_id)
);

CREATE INDEX stat_global_window_rank
    ON stat_global_window (game, first_day, net DESC, coups DESC, user_id);
