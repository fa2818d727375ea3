"""Pick the backend from a URL: ``sqlite:///file.db`` (or a plain path) or ``postgresql://...``."""

from __future__ import annotations

from typing import cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .base import Storage
from .sqlite import SqliteStorage, Synchronous

POSTGRES_SCHEMES = ("postgresql", "postgres")


def _scheme(url: str) -> tuple[str, str]:
    """The URL's scheme, lower-cased ("" for a plain path), and what follows ``://``."""
    scheme, _, rest = url.partition("://")
    return (scheme.lower() if rest else ""), rest


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (else SQLite)."""
    return _scheme(url)[0] in POSTGRES_SCHEMES


def open_storage(url: str, *, starting_grant: int, daily_bonus: int) -> Storage:
    """A storage object for ``url``, not yet opened (call ``await storage.open()``).

    * ``sqlite:///relative.db``, ``sqlite:////abs/path.db``, or a plain path:
      SQLite in WAL mode. ``?synchronous=FULL`` trades throughput for
      surviving power loss (see :mod:`storage.sqlite`).
    * ``postgresql://`` or ``postgres://``: PostgreSQL; ``?schema=name`` keeps
      the tables in that schema (created if missing).
    """
    scheme, rest = _scheme(url)
    if scheme in POSTGRES_SCHEMES:
        from .postgres import PostgresStorage

        dsn, schema = postgres_target(url)
        return PostgresStorage(dsn, starting_grant=starting_grant, daily_bonus=daily_bonus,
                               schema=schema)
    if scheme == "sqlite":
        # sqlite:///a.db -> "a.db"; sqlite:////abs/a.db -> "/abs/a.db" (SQLAlchemy's convention).
        path, _, options = rest.removeprefix("/").partition("?")
        params = dict(parse_qsl(options))
        sync = params.get("synchronous", "NORMAL").upper()
        if sync not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous mode {sync!r}")
        return SqliteStorage(path or ":memory:", starting_grant=starting_grant,
                             daily_bonus=daily_bonus, synchronous=cast(Synchronous, sync))
    if scheme:
        raise ValueError(f"unsupported storage URL scheme {scheme!r}")
    return SqliteStorage(url, starting_grant=starting_grant, daily_bonus=daily_bonus)


def postgres_target(url: str) -> tuple[str, str | None]:
    """A ``postgresql://`` URL's connection string and its ``?schema=`` (None: public)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    schema = next((v for k, v in query if k == "schema"), None)
    dsn = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query
                                                      if k != "schema"])))
    return dsn, schema
