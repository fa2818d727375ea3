-- Each running worker marks itself alive every few seconds and at a clean stop
-- (bot/table/liveness.py): at start, the newest mark of any worker says since when none
-- ran, and a decision whose clock ran out meanwhile is given its time again.
CREATE TABLE alive (
    worker  text             PRIMARY KEY,
    at      double precision NOT NULL
);
