-- Wallets, table snapshots, table accounts and the append-only double-entry ledger.
-- Balances never go negative: CHECK constraints, not only Python checks (DESIGN.md, storage/).

CREATE TABLE chats (
    chat_id  INTEGER PRIMARY KEY,
    language TEXT
);

CREATE TABLE wallets (
    chat_id         INTEGER NOT NULL,
    user_id         INTEGER NOT NULL,
    name            TEXT    NOT NULL DEFAULT '',
    balance         INTEGER NOT NULL CHECK (balance >= 0),
    last_bonus_day  TEXT,                -- ISO date of the last daily bonus
    created_at      REAL    NOT NULL,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;

-- One open table per chat; closing a table deletes its row (history stays in the ledger).
CREATE TABLE tables (
    chat_id     INTEGER PRIMARY KEY,
    game        TEXT    NOT NULL,
    settings    TEXT    NOT NULL,        -- JSON
    state       TEXT    NOT NULL,        -- engine state JSON
    version     INTEGER NOT NULL,
    deadline    REAL,
    meta        TEXT    NOT NULL DEFAULT '{}',
    created_at  REAL    NOT NULL,
    updated_at  REAL    NOT NULL
);

-- Every account but wallet:<id> and house, held by the chat's table as escrow.
CREATE TABLE table_accounts (
    chat_id  INTEGER NOT NULL REFERENCES tables (chat_id),
    account  TEXT    NOT NULL,
    owner    INTEGER,                    -- player of stack:<id> / stake:<id>
    balance  INTEGER NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (chat_id, account)
) WITHOUT ROWID;

CREATE INDEX table_accounts_owner ON table_accounts (chat_id, owner) WHERE owner IS NOT NULL;

-- A chip can only disappear with its account if the account is empty.
CREATE TRIGGER wallets_keep_chips BEFORE DELETE ON wallets
WHEN OLD.balance <> 0
BEGIN
    SELECT RAISE(ABORT, 'wallet is not empty');
END;

CREATE TRIGGER table_accounts_keep_chips BEFORE DELETE ON table_accounts
WHEN OLD.balance <> 0
BEGIN
    SELECT RAISE(ABORT, 'table account is not empty');
END;

-- One row per unit of work that moved chips or changed a table (grant, bonus, step, close).
CREATE TABLE steps (
    step_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('grant', 'bonus', 'step', 'close')),
    coup        INTEGER NOT NULL DEFAULT 0,
    game        TEXT    NOT NULL DEFAULT '',
    version     INTEGER,                 -- table version written by this step
    created_at  REAL    NOT NULL
);

CREATE INDEX steps_chat ON steps (chat_id, step_id);

CREATE TABLE ledger (
    entry_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    step_id     INTEGER NOT NULL REFERENCES steps (step_id),
    chat_id     INTEGER NOT NULL,
    coup        INTEGER NOT NULL,
    account     TEXT    NOT NULL,
    owner       INTEGER,                 -- player of wallet:/stack:/stake:<id>
    delta       INTEGER NOT NULL CHECK (delta <> 0),
    reason      TEXT    NOT NULL,
    game        TEXT    NOT NULL DEFAULT '',
    created_at  REAL    NOT NULL
);

CREATE INDEX ledger_step ON ledger (step_id);
CREATE INDEX ledger_owner ON ledger (chat_id, owner, entry_id) WHERE owner IS NOT NULL;

-- Append-only: history is never rewritten, corrections are new rows.
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger is append-only');
END;

CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger is append-only');
END;

CREATE TRIGGER steps_no_update BEFORE UPDATE ON steps
BEGIN
    SELECT RAISE(ABORT, 'ledger is append-only');
END;

CREATE TRIGGER steps_no_delete BEFORE DELETE ON steps
BEGIN
    SELECT RAISE(ABORT, 'ledger is append-only');
END;
