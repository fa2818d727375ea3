"""Persistence: wallets, the double-entry ledger, table snapshots."""
