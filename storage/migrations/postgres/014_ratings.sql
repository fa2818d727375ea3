-- The poker rating (storage/ratings.py): each player's openskill rating (Plackett-Luce) in
-- a chat's poker games, derived like the standings from the recorded coups alone: a step
-- folds the hands it settles into it in its own transaction; a rebuild folds them again.
CREATE TABLE stat_ratings (
    chat_id  bigint            NOT NULL,
    user_id  bigint            NOT NULL,
    mu       double precision  NOT NULL,
    sigma    double precision  NOT NULL,
    hands    bigint            NOT NULL,  -- hands rated
    PRIMARY KEY (chat_id, user_id)
);

-- /top rating: a chat's players by ordinal (mu - 3 * sigma), best first.
CREATE INDEX stat_ratings_rank ON stat_ratings (chat_id, (mu - 3 * sigma) DESC, hands DESC,
                                                user_id);
