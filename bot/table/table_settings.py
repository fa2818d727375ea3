"""/settings: a table's settings, each with its unit, and the chat's defaults for its next tables.

A table has the host's settings (``timeout``, ``turn_dm``, ``screen``, ``idle_close``: its
record) and its game's (:meth:`games.engine.Engine.settings`; they change only while nobody
is seated). A value set with ``/settings KEY VALUE`` is this table's alone; ``/settings
default KEY VALUE`` keeps it as the chat's default (storage: ``chat_settings``), and every
table the chat opens after that starts with it: the host's settings at every table, a game's
setting at that game's tables. ``/settings default KEY`` forgets it. One default is the
chat's own, no table's: ``season`` (off, week, month, quarter: :mod:`bot.table.seasons`);
and ``global`` (on, off) lists the chat on the all-chats board (:mod:`storage.board`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from markupsafe import Markup
from pydantic import ValidationError

from bot.table import seasons
from bot.table.record import Table
from bot.view import i18n
from games import registry
from games.engine import IllegalAction, Step
from storage import board

if TYPE_CHECKING:
    from bot.table.tables import Tables

HOST_KEYS = ("timeout", "turn_dm", "screen", "idle_close")
"""Settings of the host, not of a game: every table has them (``screen`` shows only where
the bot has the Mini App: without it, a table is played in the chat)."""
SCREENS = ("chat", "app")
"""Where a table is played (:attr:`bot.table.record.TableMeta.screen`)."""
MIN_TIMEOUT, MAX_TIMEOUT = 10, 3600
"""A decision's time, in seconds: under 10 a player cannot read his cards and answer."""
MAX_IDLE_CLOSE = 1000
"""The most decisions in a row nobody takes before a table closes itself (0: never)."""


def parse_setting(value: str) -> Any:
    """A typed setting value: int, bool or text."""
    if value.lstrip("-").isdigit() and len(value) < 19:
        return int(value)
    if value.lower() in ("true", "on", "yes"):
        return True
    if value.lower() in ("false", "off", "no"):
        return False
    return value


def host_refusal(lang: str, key: str, value: Any, app_on: bool = True) -> str | None:
    """Why a host setting cannot take ``value`` (None: it can); ``app_on``: whether the bot
    has the Mini App (``screen app`` needs it)."""
    if key == "timeout" and (isinstance(value, bool) or not isinstance(value, int)
                             or not MIN_TIMEOUT <= value <= MAX_TIMEOUT):
        return i18n.t(lang, "settings_bad", error=i18n.t(
            lang, "settings_range", key=key, min=MIN_TIMEOUT, max=MAX_TIMEOUT,
            unit=i18n.unit(lang, "second", MAX_TIMEOUT)))
    if key == "idle_close" and (isinstance(value, bool) or not isinstance(value, int)
                                or not 0 <= value <= MAX_IDLE_CLOSE):
        return i18n.t(lang, "settings_bad", error=i18n.t(
            lang, "settings_range", key=key, min=0, max=MAX_IDLE_CLOSE,
            unit=i18n.unit(lang, "decision", MAX_IDLE_CLOSE)))
    if key == "turn_dm" and not isinstance(value, bool):
        return i18n.t(lang, "settings_bad", error="on | off")
    if key == "screen" and value not in SCREENS:
        return i18n.t(lang, "settings_bad", error=" | ".join(SCREENS))
    if key == "screen" and value == "app" and not app_on:
        return i18n.t(lang, "settings_no_app")
    return None


def unknown(lang: str, key: str, game: str, app_on: bool) -> str | None:
    """That ``key`` is no setting of a ``game`` table, with the ones there are (None: it
    is one), before any other refusal: "nobody is seated" would hide that it never could."""
    engine = registry.engine(game)
    known = list(engine.settings(engine.new_table({})))
    if key in HOST_KEYS or key in known:  # screen without the app: settings_no_app says why
        return None
    keys = [k for k in HOST_KEYS if k != "screen" or app_on] + known
    return i18n.t(lang, "settings_unknown", key=key, game=i18n.game_name(lang, game),
                  keys=", ".join(keys))


def game_refusal(lang: str, game: str, settings: dict[str, Any]) -> str | None:
    """Why ``game`` takes no table with these settings (None: it does)."""
    try:
        registry.engine(game).new_table(dict(settings))
    except (ValueError, TypeError, IllegalAction) as exc:
        return refused(lang, exc)
    return None


def refused(lang: str, exc: Exception) -> str:
    """A game's refusal of its settings, as /settings answers it: the setting and what is
    wrong with it ("min_stake: Input should be greater than or equal to 1")."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        why = f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
    else:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return i18n.t(lang, "settings_bad", error=why[:200])


def for_new_table(defaults: dict[str, Any], game: str, given: dict[str, Any]
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a new table of ``game`` starts with: its game's settings (the chat's defaults
    for that game under those ``given`` with /newtable) and its record's host settings.
    A default the game no longer takes is left out, rather than refusing every table."""
    mine = defaults.get(game)
    wanted = {**(mine if isinstance(mine, dict) else {}), **given}
    if wanted != given and game_refusal("en", game, wanted) is not None:
        wanted = dict(given)
    host = {key: defaults[key] for key in HOST_KEYS
            if key in defaults and host_refusal("en", key, defaults[key]) is None}
    return wanted, host


def defaults_line(lang: str, defaults: dict[str, Any]) -> str | None:
    """The chat's defaults for its next tables, on one line; None without any."""
    parts = [i18n.fill("{} = {}", k, i18n.setting_value(lang, k, defaults[k]))
             for k in (*HOST_KEYS, seasons.KEY, board.KEY) if k in defaults]
    for game in registry.GAMES:
        mine = defaults.get(game)
        if isinstance(mine, dict) and mine:
            values = Markup(", ").join(i18n.fill("{} = {}", k, i18n.setting_value(lang, k, v))
                                       for k, v in mine.items())
            parts.append(i18n.fill("{}: {}", i18n.game_name(lang, game), values))
    if not parts:
        return None
    return str(i18n.t(lang, "settings_defaults", values=Markup("; ").join(parts)))


def shown(tables: Tables, lang: str, table: Table | None, defaults: dict[str, Any]) -> str:
    """/settings: every setting of the table with its unit and what it is, the chat's
    defaults for its next tables, and how to change either."""
    if table is None:
        lines = [str(i18n.t(lang, "no_table"))]
    else:
        meta = table.meta
        clock = tables.clock
        screen = {"screen": clock.screen_of(meta)} if clock.app_on else {}
        current = {"timeout": clock.timeout_of(meta), "turn_dm": clock.turn_dm_of(meta),
                   **screen, "idle_close": clock.idle_limit(meta),
                   **table.engine.settings(table.state)}
        lines = [str(i18n.t(lang, "settings_title", game=i18n.game_name(lang, table.game)))]
        lines += [str(i18n.setting_line(lang, k, v)) for k, v in current.items()]
    line = defaults_line(lang, defaults)
    if line is not None:
        lines.append(line)
    if table is not None:
        lines.append(str(i18n.t(lang, "settings_how_table")))
    lines.append(str(i18n.t(lang, "settings_how_default")))
    return "\n".join(lines)


async def change(tables: Tables, chat_id: int, key: str | None, value: str | None) -> str:
    """/settings [KEY VALUE]: show, or change one setting of the open table (the host's any
    time, the game's while nobody is seated)."""
    lang = await tables.languages.of(chat_id)
    async with tables.locked(chat_id) as table:
        if table is None or key is None or value is None:
            return shown(tables, lang, table, await tables.storage.chat_settings(
                chat_id=chat_id))
        meta = table.meta
        parsed = parse_setting(value)
        missing = unknown(lang, key, table.game, tables.clock.app_on)
        if missing is not None:
            return missing
        if key in HOST_KEYS:
            refusal = host_refusal(lang, key, parsed, tables.clock.app_on)
            if refusal is not None:
                return refusal
            await tables.commit(table, meta=meta.model_copy(update={key: parsed}))
        else:
            if table.sight.view().seats:
                return i18n.t(lang, "settings_seated")
            wanted = {**table.rec.settings, **meta.settings, key: parsed}
            try:
                fresh = table.engine.new_table(wanted)
            except (ValueError, TypeError, IllegalAction) as exc:
                return refused(lang, exc)
            fresh = fresh.model_copy(update={"version": table.state.version + 1})
            await tables.commit(table, Step(state=fresh), meta=meta.model_copy(
                update={"settings": {**meta.settings, key: parsed}}))
        return i18n.t(lang, "settings_set", key=key, value=i18n.setting_value(lang, key, parsed),
                      raw=i18n.setting_word(parsed))


async def set_default(tables: Tables, chat_id: int, key: str | None, value: str | None,
                      game: str | None = None) -> str:
    """/settings default [GAME] KEY [VALUE]: make VALUE the chat's default for its next tables
    (a game's setting: for that game's, the open table's game unless named); without VALUE,
    forget the default."""
    if key is None:
        return await change(tables, chat_id, None, None)
    lang = await tables.languages.of(chat_id)
    parsed = parse_setting(value) if value is not None else None
    async with tables.lock(chat_id):  # one writer of the chat's defaults at a time
        defaults = await tables.storage.chat_settings(chat_id=chat_id)
        if key == seasons.KEY:  # the chat's, not its tables': "off" is a kind, not False
            if value is not None and value.lower() not in (*seasons.KINDS, seasons.OFF):
                return i18n.t(lang, "settings_bad", error=i18n.t(lang, "season_bad"))
            if value is None:
                defaults.pop(key, None)
            else:
                defaults[key] = value.lower()
            await tables.storage.set_chat_settings(chat_id=chat_id, settings=defaults)
            return i18n.t(lang, "season_set",
                          kind=i18n.t(lang, f"season_kind_{seasons.kind_of(defaults)}"))
        if key == board.KEY:  # the chat's: listed on the all-chats board, or not
            if value is not None and not isinstance(parsed, bool):
                return i18n.t(lang, "settings_bad", error=f"{board.KEY}: on | off")
            if parsed is True:
                defaults[key] = True
            else:  # off is how a chat starts: nothing to keep
                defaults.pop(key, None)
            await tables.storage.set_chat_settings(chat_id=chat_id, settings=defaults)
            return i18n.t(lang, "global_on" if parsed is True else "global_off")
        if key in HOST_KEYS:
            if parsed is None:
                defaults.pop(key, None)
            else:
                refusal = host_refusal(lang, key, parsed, tables.clock.app_on)
                if refusal is not None:
                    return refusal
                defaults[key] = parsed
        else:
            if game is None:
                table = await tables.find(chat_id)
                if table is None:
                    return i18n.t(lang, "settings_game_key", key=key)
                game = table.game
            # a stale default of a key the game no longer has can still be forgotten
            missing = None if parsed is None else unknown(lang, key, game, tables.clock.app_on)
            if missing is not None:
                return missing
            mine = defaults.get(game)
            mine = dict(mine) if isinstance(mine, dict) else {}
            if parsed is None:
                mine.pop(key, None)
            else:
                mine[key] = parsed
                refusal = game_refusal(lang, game, mine)
                if refusal is not None:
                    return refusal
            defaults[game] = mine
            if not mine:
                del defaults[game]
        await tables.storage.set_chat_settings(chat_id=chat_id, settings=defaults)
    if parsed is None:
        return i18n.t(lang, "settings_default_dropped", key=key)
    return i18n.t(lang, "settings_default_set", key=key,
                  value=i18n.setting_value(lang, key, parsed))
