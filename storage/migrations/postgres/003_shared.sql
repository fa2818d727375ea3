-- Several bot processes on one database (bot/coordination.py, storage/postgres_coord.py).
--
-- A table's deadline as the host keeps it in its metadata: the decision's due time (set
-- once every awaited player has been shown his turn), never before a resume's grace, none
-- while the table is paused. Any worker claims due tables with FOR UPDATE SKIP LOCKED and
-- a short lease (due_claimed_until), and applies the timeout under the chat's lock.
ALTER TABLE tables ADD COLUMN due double precision GENERATED ALWAYS AS (
    CASE WHEN meta->>'due' IS NULL OR COALESCE((meta->>'paused')::boolean, false) THEN NULL
         ELSE GREATEST((meta->>'due')::float8, COALESCE((meta->>'grace_until')::float8, 0))
    END) STORED;
ALTER TABLE tables ADD COLUMN due_claimed_until double precision;
-- the due time the claim was for: a claim of an earlier decision's deadline (its worker died
-- before letting go) never holds a later one back
ALTER TABLE tables ADD COLUMN due_claimed_for double precision;
CREATE INDEX tables_due ON tables (due) WHERE due IS NOT NULL;

-- A chat's lock across workers (a session advisory lock), and the table's row revision
-- read after it was taken: a VOLATILE function's statement sees what committed before the
-- lock came (a statement's own snapshot would predate its wait). NULL: no table.
CREATE FUNCTION chat_lock(lock bigint, chat bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_lock(lock);
    RETURN (SELECT rev FROM tables WHERE chat_id = chat);
END $$;

-- The outbox of a chat is delivered by the worker holding the chat's delivery lease (a
-- session advisory lock on that worker's lease connection): try it, or ring the holder.
CREATE FUNCTION lease_or_ring(lease bigint, channel text, chat bigint) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF pg_try_advisory_lock(lease) THEN
        RETURN true;
    END IF;
    PERFORM pg_notify(channel, chat::text);
    RETURN false;
END $$;

-- Telegram's budgets shared by every worker: one row per message in the last window, per
-- group (bucket = the group's chat id) and overall (bucket 0). A message counts from the
-- moment its call returned (rate_done moves it there).
CREATE TABLE rate_slots (
    bucket  bigint           NOT NULL,
    token   bigint           NOT NULL,
    at      double precision NOT NULL
);
CREATE INDEX rate_slots_bucket ON rate_slots (bucket, at);
CREATE INDEX rate_slots_token ON rate_slots (token);

-- Take one message of group ``g`` (0: none) and of the overall budget, or say how long to
-- wait (wait > 0: nothing taken). ``glock`` and ``olock`` serialize takers of one bucket.
-- ``recent`` is the group's window after the take (for the pace's spare count), its
-- newest 64 messages at most.
CREATE FUNCTION rate_take(g bigint, gmax integer, gperiod float8, omax integer,
                          glock bigint, olock bigint, tok bigint,
                          OUT wait float8, OUT recent float8[])
LANGUAGE plpgsql AS $$
DECLARE
    now float8 := extract(epoch FROM clock_timestamp());
    n integer;
    first float8;
BEGIN
    wait := 0;
    IF g <> 0 AND gmax > 0 THEN
        PERFORM pg_advisory_xact_lock(glock);
        DELETE FROM rate_slots WHERE bucket = g AND at <= now - gperiod;
        SELECT count(*), min(at) INTO n, first FROM rate_slots WHERE bucket = g;
        IF n >= gmax THEN
            wait := first + gperiod - now;
        END IF;
    END IF;
    IF omax > 0 AND wait <= 0 THEN
        PERFORM pg_advisory_xact_lock(olock);
        DELETE FROM rate_slots WHERE bucket = 0 AND at <= now - 1;
        SELECT count(*), min(at) INTO n, first FROM rate_slots WHERE bucket = 0;
        IF n >= omax THEN
            wait := first + 1 - now;
        END IF;
    END IF;
    IF wait > 0 THEN
        wait := wait + 0.01;
        RETURN;
    END IF;
    wait := 0;
    IF g <> 0 AND gmax > 0 THEN
        INSERT INTO rate_slots (bucket, token, at) VALUES (g, tok, now);
        -- the newest 64 at most: all of them under any real group limit (20)
        SELECT array_agg(at ORDER BY at) INTO recent FROM (
            SELECT at FROM rate_slots WHERE bucket = g ORDER BY at DESC LIMIT 64) AS newest;
    END IF;
    IF omax > 0 THEN
        INSERT INTO rate_slots (bucket, token, at) VALUES (0, tok, now);
    END IF;
END $$;
