-- Each running bot process marks itself alive every few seconds and at a clean stop
-- (bot/table/liveness.py): at start, the newest mark says since when no process ran, and
-- a decision whose clock ran out meanwhile is given its time again.
CREATE TABLE alive (
    worker  TEXT PRIMARY KEY,
    at      REAL NOT NULL
);
