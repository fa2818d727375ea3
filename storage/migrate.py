"""Numbered SQL migrations (``migrations/<dialect>/NNN_name.sql``) applied at start-up.

Each backend records what it applied in ``schema_migrations`` and runs the
pending files in order, all inside one transaction that also holds the
database's writer lock, so two processes starting together apply each file
exactly once.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, order=True)
class Migration:
    """One migration file: its number, name and SQL text."""

    version: int
    name: str
    sql: str


def migrations(dialect: str) -> list[Migration]:
    """The migrations of ``dialect`` (``"sqlite"`` or ``"postgres"``), in order.

    Refuses a gap or a duplicate number: a missing file would silently skip schema.
    """
    folder = Path(__file__).with_name("migrations") / dialect
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text("utf-8")))
    found.sort()
    numbers = [m.version for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"{dialect} migrations must be numbered 001, 002, ...: {numbers}")
    return found


def sqlite_statements(sql: str) -> list[str]:
    """Split a script into statements, keeping trigger bodies (``BEGIN ... END;``) whole.

    ``executescript`` would do this but commits first, which would take the
    migration out of its transaction.
    """
    statements: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        if not pending and (not line.strip() or line.lstrip().startswith("--")):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError("incomplete SQL statement at the end of a migration")
    return statements
