-- Seasons (storage/seasons.py): each chat's ended seasons, numbered 1, 2... in the chat,
-- each recorded once with its results (podium and titles, JSON) in the unit of work that
-- writes its group post to the outbox; and each title a player took, for his /stats.
CREATE TABLE seasons (
    chat_id    INTEGER NOT NULL,
    number     INTEGER NOT NULL,
    kind       TEXT    NOT NULL,         -- week | month | quarter
    first_day  TEXT    NOT NULL,         -- YYYY-MM-DD, UTC
    last_day   TEXT    NOT NULL,
    posted_at  REAL    NOT NULL,         -- when its post was written to the outbox
    results    TEXT    NOT NULL,         -- storage.base.Season.results, JSON
    PRIMARY KEY (chat_id, number),
    CONSTRAINT seasons_once UNIQUE (chat_id, kind, first_day)
);

CREATE TABLE season_titles (
    chat_id  INTEGER NOT NULL,
    number   INTEGER NOT NULL,
    title    TEXT    NOT NULL,           -- champion | most_coups | best_banker | best_hand
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (chat_id, number, title)
);

CREATE INDEX season_titles_player ON season_titles (user_id);

-- The chats that played on a day (the seasons' rollover looks for them).
CREATE INDEX stat_days_day ON stat_days (day, chat_id);
