-- Polling mode: every update a getUpdates returned, kept until it is handled (done).
-- Telegram takes an update as read with the next getUpdates, before its handling ends; a
-- crash in between would lose it, so the next start handles the rows left undone. A done
-- row stays until a later fetch shows Telegram took it as read (it cannot come again).
CREATE TABLE kept_updates (
    update_id bigint PRIMARY KEY,
    body text NOT NULL,
    done boolean NOT NULL DEFAULT false
);
