"""Pure rule engines: no I/O, no Telegram, no database, no clock."""
