"""``python -m bot.admin``: the operator's commands, on the bot's own database.

Reads the same settings as the bot (environment, ``.env``: ``DATABASE_URL`` or
``DATA_DIR``) and works while the bot runs; every write is one unit of work through
the storage, like the bot's own.

* ``tables``: every open table (chat, game, phase, coup, players, last step).
* ``show CHAT``: a table as the group sees it (the public view: never a hidden card),
  its chips on the table and the chat's newest ledger rows.
* ``close CHAT``: what ``/closetable`` does: the game voids its coup and every chip on
  the table goes back to the wallets; the closing text is queued for the group.
* ``audit [--chat CHAT]``: chip conservation per chat; exits 1 on any violation.
* ``export CHAT``: the chat's wallets as JSON (each player's wallet plus his chips on
  the table); ``import FILE``: gives each player of the file that total, atomically;
  a player who holds another amount is a conflict (exit 1, nothing written) unless
  ``--overwrite``; importing the same file twice changes nothing.
* ``backup FILE``: an online copy of the SQLite database (SQLite's backup API: a
  consistent snapshot while the bot writes).
* ``rebuild-stats``: the standings (/stats, /top) recomputed from the recorded coups
  alone, identical to what the steps counted; prints how many coups were folded.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bot import compose
from bot.config import Settings
from bot.table.record import TableMeta, load
from bot.view import i18n, screens
from bot.view.scene import scene
from storage.base import Storage, StorageError, TableNotFound, TableRecord
from storage.inspect import Inspector, WalletTotal, inspector
from storage.sqlite import SqliteStorage

EXPORT_FORMAT = "banco-wallets"
EXPORT_VERSION = 1
OK, VIOLATION, USAGE = 0, 1, 2


def when(ts: float | None) -> str:
    """A timestamp as UTC ISO 8601 (seconds), or a dash."""
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def emit(data: Any, as_json: bool, lines: Sequence[str]) -> None:
    """Print ``data`` as JSON, or the human ``lines``."""
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print("\n".join(lines))


# ------------------------------------------------------------------ commands


async def cmd_tables(storage: Storage, ins: Inspector, args: argparse.Namespace,
                     settings: Settings) -> int:
    """Every open table."""
    rows: list[dict[str, Any]] = []
    for row in await ins.tables():
        table = load(TableRecord(chat_id=row.chat_id, game=row.game, state_json=row.state_json,
                                 version=row.version, meta_json=row.meta_json,
                                 rev=row.rev))
        view = table.sight.view()
        rows.append({"chat": row.chat_id, "game": row.game, "phase": view.phase,
                     "coup": view.coup, "version": row.version,
                     "players": [{"user": s.player, "name": s.name} for s in view.seats],
                     "awaiting": list(view.awaiting), "paused": table.meta.paused,
                     "last_step": when(row.last_step_at), "last_write": when(row.updated_at)})
    lines = [f"{'chat':>16}  {'game':<14} {'phase':<12} {'coup':>5}  {'last step':<20}  players"]
    lines += [f"{r['chat']:>16}  {r['game']:<14} {r['phase']:<12} {r['coup']:>5}  "
              f"{r['last_step']:<20}  " + ", ".join(p["name"] for p in r["players"])
              + ("  (paused)" if r["paused"] else "") for r in rows]
    emit(rows, args.json, lines if rows else ["no open table"])
    return OK


async def cmd_show(storage: Storage, ins: Inspector, args: argparse.Namespace,
                   settings: Settings) -> int:
    """One table's public view, table accounts and ledger."""
    try:
        table = load(await storage.load_table(chat_id=args.chat))
    except TableNotFound:
        print(f"chat {args.chat} has no open table", file=sys.stderr)
        return VIOLATION
    lang = await storage.chat_language(chat_id=args.chat) or settings.default_language
    meta: TableMeta = table.meta
    # the group's own table message: the public view is all it can draw
    text = i18n.plain(screens.table_render(lang, scene(
        args.chat, table.sight, None, None, meta.coup_log, meta.names,
        decision=meta.decision)).text)
    accounts = await storage.table_accounts(chat_id=args.chat)
    ledger = [{"step": e.step_id, "coup": e.coup, "account": e.account, "delta": e.delta,
               "reason": e.reason, "time": when(e.created_at)}
              for e in await ins.ledger(chat_id=args.chat, limit=args.ledger)]
    data = {"chat": args.chat, "game": table.game, "version": table.state.version,
            "coup": table.state.coup, "phase": table.state.phase, "public_view": text,
            "table_accounts": accounts, "ledger": ledger}
    lines = [f"chat {args.chat}: {table.game}, coup {table.state.coup}, "
             f"phase {table.state.phase}, version {table.state.version}", "", text, "",
             "on the table:"]
    lines += [f"  {a:<24} {b:>8}" for a, b in accounts.items()] or ["  nothing"]
    lines += ["", f"ledger (newest {args.ledger}):"]
    lines += [f"  {r['time']}  step {r['step']:>6}  coup {r['coup']:>4}  {r['account']:<20}"
              f" {r['delta']:>+8}  {r['reason']}" for r in ledger]
    emit(data, args.json, lines)
    return OK


async def cmd_close(storage: Storage, ins: Inspector, args: argparse.Namespace,
                    settings: Settings) -> int:
    """/closetable from the command line."""
    lifecycle = compose.service(storage, language=settings.default_language,
                                decision_timeout=settings.decision_timeout).lifecycle
    before = await storage.table_accounts(chat_id=args.chat)
    try:
        refusal = await lifecycle.close_table(args.chat)
    except StorageError as exc:  # the bot wrote in between: nothing happened, try again
        print(f"not closed ({type(exc).__name__}): try again", file=sys.stderr)
        return VIOLATION
    if refusal is not None:
        print(f"chat {args.chat}: {i18n.plain(refusal)}", file=sys.stderr)
        return VIOLATION
    emit({"chat": args.chat, "closed": True, "returned": sum(before.values())}, args.json,
         [f"chat {args.chat}: table closed; {sum(before.values())} chip(s) back to the wallets"])
    return OK


async def cmd_audit(storage: Storage, ins: Inspector, args: argparse.Namespace,
                    settings: Settings) -> int:
    """Conservation per chat; 1 on a violation."""
    audits = [a for a in await ins.audit_by_chat()
              if args.chat is None or a.chat_id == args.chat]
    bad = [a for a in audits if not a.ok]
    lines = [f"{'chat':>16} {'issued':>10} {'wallets':>10} {'on table':>10} "
             f"{'unbalanced':>10} {'drift':>6}  verdict"]
    lines += [f"{a.chat_id:>16} {a.issued:>10} {a.wallets:>10} {a.on_table:>10} "
              f"{a.unbalanced_steps:>10} {a.ledger_drift:>6}  {'ok' if a.ok else 'VIOLATION'}"
              for a in audits]
    lines.append(f"{len(audits)} chat(s), {len(bad)} violation(s)")
    emit({"chats": [{**a.model_dump(), "ok": a.ok} for a in audits],
          "violations": [a.chat_id for a in bad]}, args.json, lines)
    return VIOLATION if bad else OK


async def cmd_export(storage: Storage, ins: Inspector, args: argparse.Namespace,
                     settings: Settings) -> int:
    """A chat's wallets as JSON."""
    wallets = await storage.leaderboard(chat_id=args.chat, limit=1 << 31)
    data = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "chat": args.chat,
            "exported_at": when(dt.datetime.now(dt.UTC).timestamp()),
            "wallets": [{"user": w.user_id, "name": w.name, "total": w.balance + w.on_table,
                         "balance": w.balance, "on_table": w.on_table}
                        for w in sorted(wallets, key=lambda w: w.user_id)]}
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if args.output and args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"{len(wallets)} wallet(s) of chat {args.chat} written to {args.output}",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return OK


async def cmd_import(storage: Storage, ins: Inspector, args: argparse.Namespace,
                     settings: Settings) -> int:
    """A chat's wallets from an export; conflicts refuse the whole file."""
    data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    if data.get("format") != EXPORT_FORMAT or data.get("version") != EXPORT_VERSION:
        print(f"{args.file} is not a {EXPORT_FORMAT} v{EXPORT_VERSION} file", file=sys.stderr)
        return USAGE
    chat = args.chat if args.chat is not None else int(data["chat"])
    wallets = [WalletTotal(user_id=int(w["user"]), name=str(w.get("name", "")),
                           total=int(w["total"])) for w in data["wallets"]]
    try:
        report = await ins.import_wallets(chat_id=chat, wallets=wallets,
                                          overwrite=args.overwrite)
    except (StorageError, ValueError) as exc:
        print(f"nothing imported: {type(exc).__name__}: {exc}", file=sys.stderr)
        return VIOLATION
    if report.conflicts:
        for user, (now, wanted) in sorted(report.conflicts.items()):
            print(f"conflict: user {user} holds {now} in chat {chat}, the file says {wanted}",
                  file=sys.stderr)
        print("nothing imported (--overwrite books the differences)", file=sys.stderr)
        return VIOLATION
    print(f"chat {chat}: {len(report.created)} created, {len(report.unchanged)} unchanged, "
          f"{len(report.adjusted)} adjusted ({sum(report.adjusted.values()):+d} chips)")
    return OK


async def cmd_backup(storage: Storage, ins: Inspector, args: argparse.Namespace,
                     settings: Settings) -> int:
    """An online, consistent copy of the SQLite file."""
    if not isinstance(storage, SqliteStorage):
        print("backup copies SQLite; for PostgreSQL use pg_dump", file=sys.stderr)
        return USAGE
    target = Path(args.file)
    if target.exists() and not args.force:
        print(f"{target} exists (--force replaces it)", file=sys.stderr)
        return USAGE
    pages = await asyncio.to_thread(backup_sqlite, Path(storage.path), target)
    print(f"backup of {storage.path} written to {target} ({pages} pages)")
    return OK


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy ``source`` into ``target`` with SQLite's online backup (a snapshot of one
    moment even while another process writes), through a temporary file renamed at the
    end; returns the number of pages copied."""
    tmp = target.with_name(target.name + ".partial")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(source, timeout=30)
    dst = sqlite3.connect(tmp)
    try:
        src.backup(dst)
        pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
        dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    finally:
        dst.close()
        src.close()
    tmp.replace(target)
    return pages


async def cmd_rebuild_stats(storage: Storage, ins: Inspector, args: argparse.Namespace,
                            settings: Settings) -> int:
    """The standings recomputed from the recorded coups."""
    folded = await storage.rebuild_stats()
    emit({"coups": folded}, args.json, [f"{folded} coup(s) folded into the standings"])
    return OK


COMMANDS: dict[str, Callable[[Storage, Inspector, argparse.Namespace, Settings],
                             Awaitable[int]]] = {
    "tables": cmd_tables, "show": cmd_show, "close": cmd_close, "audit": cmd_audit,
    "export": cmd_export, "import": cmd_import, "backup": cmd_backup,
    "rebuild-stats": cmd_rebuild_stats}


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python -m bot.admin", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("tables", help="list open tables").add_argument("--json",
                                                                   action="store_true")
    show = sub.add_parser("show", help="a table's public view, chips and ledger")
    show.add_argument("chat", type=int)
    show.add_argument("--ledger", type=int, default=20, metavar="N", help="ledger rows")
    show.add_argument("--json", action="store_true")
    close = sub.add_parser("close", help="close a table; every chip back to the wallets")
    close.add_argument("chat", type=int)
    close.add_argument("--json", action="store_true")
    audit = sub.add_parser("audit", help="chip conservation per chat (exit 1 on a violation)")
    audit.add_argument("--chat", type=int)
    audit.add_argument("--json", action="store_true")
    export = sub.add_parser("export", help="a chat's wallets as JSON")
    export.add_argument("chat", type=int)
    export.add_argument("-o", "--output", help="file (default: standard output)")
    imp = sub.add_parser("import", help="wallets from an export (idempotent)")
    imp.add_argument("file")
    imp.add_argument("--chat", type=int, help="into this chat (default: the file's)")
    imp.add_argument("--overwrite", action="store_true",
                     help="book the difference where a player holds another amount")
    backup = sub.add_parser("backup", help="online copy of the SQLite database")
    backup.add_argument("file")
    backup.add_argument("--force", action="store_true", help="replace an existing file")
    rebuild = sub.add_parser("rebuild-stats", help="recompute the standings from the coups")
    rebuild.add_argument("--json", action="store_true")
    return p


async def run(argv: Sequence[str] | None = None) -> int:
    """Parse, open the storage, run one command, close."""
    args = parser().parse_args(argv)
    settings = Settings()
    if not settings.database_url and not settings.sqlite_path.exists():
        print(f"no database at {settings.sqlite_path}: set DATA_DIR or DATABASE_URL"
              " as the bot has them", file=sys.stderr)
        return USAGE
    storage = compose.storage_of(settings)
    await storage.open()
    try:
        return await COMMANDS[args.command](storage, inspector(storage), args, settings)
    finally:
        await storage.close()


def main() -> None:
    """Entry point."""
    sys.exit(asyncio.run(run()))


if __name__ == "__main__":
    main()
