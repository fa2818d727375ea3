-- Where each awaited player's turn was shown (bot/table/clock.py): one fact per decision,
-- player and channel (the group's table message, his private prompt, his open page),
-- appended by the channel that showed it, never by a commit of the table. A decision's
-- clock runs from the moment every awaited player's turn has been shown; a delivered
-- prompt's message (and what it showed) is found here until the table's next commit
-- keeps it. A closed table's facts go with it.
CREATE TABLE presence (
    chat_id     INTEGER NOT NULL,
    decision    INTEGER NOT NULL,
    player      INTEGER NOT NULL,
    channel     TEXT    NOT NULL,
    shown_at    REAL    NOT NULL,
    message_id  INTEGER,
    digest      TEXT,
    PRIMARY KEY (chat_id, decision, player, channel)
);
