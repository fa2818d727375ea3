-- Wallets, table snapshots, table accounts and the append-only double-entry ledger.
-- Balances never go negative: CHECK constraints, not only Python checks (DESIGN.md, storage/).

CREATE TABLE chats (
    chat_id  bigint PRIMARY KEY,
    language text
);

CREATE TABLE wallets (
    chat_id         bigint      NOT NULL,
    user_id         bigint      NOT NULL,
    name            text        NOT NULL DEFAULT '',
    balance         bigint      NOT NULL CONSTRAINT wallets_balance_nonnegative CHECK (balance >= 0),
    last_bonus_day  date,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chat_id, user_id)
);

-- One open table per chat; closing a table deletes its row (history stays in the ledger).
CREATE TABLE tables (
    chat_id     bigint      PRIMARY KEY,
    game        text        NOT NULL,
    settings    jsonb       NOT NULL,
    state       text        NOT NULL,   -- engine state JSON, kept byte for byte
    version     bigint      NOT NULL,
    deadline    double precision,
    meta        jsonb       NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Every account but wallet:<id> and house, held by the chat's table as escrow.
CREATE TABLE table_accounts (
    chat_id  bigint NOT NULL REFERENCES tables (chat_id),
    account  text   NOT NULL,
    owner    bigint,                    -- player of stack:<id> / stake:<id>
    balance  bigint NOT NULL CONSTRAINT table_accounts_balance_nonnegative CHECK (balance >= 0),
    PRIMARY KEY (chat_id, account)
);

CREATE INDEX table_accounts_owner ON table_accounts (chat_id, owner) WHERE owner IS NOT NULL;

-- A chip can only disappear with its account if the account is empty.
CREATE FUNCTION keep_chips() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.balance <> 0 THEN
        RAISE EXCEPTION '% row is not empty', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN OLD;
END $$;

CREATE TRIGGER wallets_keep_chips BEFORE DELETE ON wallets
    FOR EACH ROW EXECUTE FUNCTION keep_chips();
CREATE TRIGGER table_accounts_keep_chips BEFORE DELETE ON table_accounts
    FOR EACH ROW EXECUTE FUNCTION keep_chips();

-- One row per unit of work that moved chips or changed a table (grant, bonus, step, close).
CREATE TABLE steps (
    step_id     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id     bigint      NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('grant', 'bonus', 'step', 'close')),
    coup        integer     NOT NULL DEFAULT 0,
    game        text        NOT NULL DEFAULT '',
    version     bigint,                 -- table version written by this step
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX steps_chat ON steps (chat_id, step_id);

CREATE TABLE ledger (
    entry_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    step_id     bigint      NOT NULL REFERENCES steps (step_id),
    chat_id     bigint      NOT NULL,
    coup        integer     NOT NULL,
    account     text        NOT NULL,
    owner       bigint,                 -- player of wallet:/stack:/stake:<id>
    delta       bigint      NOT NULL CHECK (delta <> 0),
    reason      text        NOT NULL,
    game        text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ledger_step ON ledger (step_id);
CREATE INDEX ledger_owner ON ledger (chat_id, owner, entry_id) WHERE owner IS NOT NULL;

-- Append-only: history is never rewritten, corrections are new rows.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE TRIGGER ledger_no_change BEFORE UPDATE OR DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER steps_no_change BEFORE UPDATE OR DELETE ON steps
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER steps_no_truncate BEFORE TRUNCATE ON steps
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
