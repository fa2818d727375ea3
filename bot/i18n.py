"""Russian and English texts: commands, refusals (one sentence per Reason), events, labels.

Every text the bot shows goes through :func:`t`, :func:`reason_text`,
:func:`event_text` or :func:`action_label`. Texts are Telegram HTML: the templates are
written as HTML, and :func:`t` and :func:`event_text` escape every value they fill in
(a player's name ``<b>&`` stays those characters), returning ``Markup``. Pop-ups take
no markup: :func:`plain` turns such a text back into what a person reads.

A chat's language is chosen with /language; until then it is the language of
whoever opened the table (or the default from the settings). The texts themselves
are in bot/locale/en.py and ru.py; the tables here join them per language.
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

from markupsafe import Markup, escape

from bot.locale import en, ru
from games.cards import pretty
from games.engine import Event, Reason, is_player_key

LANGUAGES = ("en", "ru")
TAG = re.compile(r"<[^>]*>")

# Every table is {language: {key: text}}.

GAME_NAMES: dict[str, dict[str, str]] = {"en": en.GAME_NAMES, "ru": ru.GAME_NAMES}

TEXTS: dict[str, dict[str, str]] = {"en": en.TEXTS, "ru": ru.TEXTS}

REASONS: dict[str, dict[Reason, str]] = {"en": en.REASONS, "ru": ru.REASONS}

# Button labels for action kinds; unknown kinds fall back to the kind itself.
ACTIONS: dict[str, dict[str, str]] = {"en": en.ACTIONS, "ru": ru.ACTIONS}

# Event templates. Fields are the event's data; card lists are pretty-printed
# and player ids become names before formatting. An event without a template
# (or whose template names a missing field) is rendered generically.
EVENTS: dict[str, dict[str, str | tuple[str, ...]]] = {"en": en.EVENTS, "ru": ru.EVENTS}

# Labels of view.info and view.my_info keys (the table message, a player's DM and pop-up).
INFO: dict[str, dict[str, str]] = {"en": en.INFO, "ru": ru.INFO}

# Phases, roles, statuses and word-valued facts. A key "context:value" (``phase:draw``,
# ``hint:draw``) wins over the plain value where one English word means two things.
# English phases stay the phase names with spaces: the e2e policies read them back.
WORDS: dict[str, dict[str, str]] = {"en": en.WORDS, "ru": ru.WORDS}

# Outcomes and reasons inside event data (``outcome``, ``reason``) and poker's hand words.
VALUES: dict[str, dict[str, str]] = {"en": en.VALUES, "ru": ru.VALUES}

# Poker hands: a template per hand category, filled with rank words in their forms.
HANDS: dict[str, dict[str, str]] = {"en": en.HANDS, "ru": ru.HANDS}
RANK_FORMS: dict[str, dict[str, tuple[str, ...]]] = {"en": en.RANK_FORMS, "ru": ru.RANK_FORMS}


def is_hand_value(value: Any) -> bool:
    """True for a poker hand value as engines send it: ``{"category": ..., "ranks": [...]}``."""
    return isinstance(value, dict) and set(value) == {"category", "ranks"}


def hand_text(lang: str, value: dict[str, Any]) -> str:
    """A poker hand value in words: ``{"category": "pair", "ranks": [10]}`` is "pair of
    queens" in English, "пара дам" in Russian."""
    lang = _lang(lang)
    fields = {f"{form}{i}": words[rank] for form, words in RANK_FORMS[lang].items()
              for i, rank in enumerate(value["ranks"])}
    return HANDS[lang][value["category"]].format(**fields)


# The forms of a noun after a number (one, few, many), by language and noun.
NOUN_FORMS: dict[str, dict[str, tuple[str, str, str]]] = {"en": en.NOUN_FORMS,
                                                           "ru": ru.NOUN_FORMS}


def plural(lang: str, n: int, noun: str) -> str:
    """The form of ``noun`` ("card", "chip", "point", "second", "deck") that follows the
    number ``n``: "1 card", "21 cards"; "1 карта", "2 карты", "5 карт", "11 карт",
    "21 карта", "22 карты"."""
    one, few, many = NOUN_FORMS[_lang(lang)][noun]
    if _lang(lang) != "ru":
        return one if n == 1 else many
    tens, units = abs(n) % 100 // 10, abs(n) % 10
    if tens == 1:
        return many
    return one if units == 1 else (few if 2 <= units <= 4 else many)


def count(lang: str, n: int, noun: str) -> str:
    """A number with its noun: "1 card", "52 cards"; "52 карты", "21 карта"."""
    return f"{n} {plural(lang, n, noun)}"


def points(lang: str, n: int, bust: bool = False) -> Markup:
    """A hand's points in words: "1 point", "21 points"; "2 очка", "21 очко", "5 очков"; over
    21 "23, bust"."""
    if bust:
        return t(lang, "bust", n=n)
    return t(lang, "points", n=n, unit=plural(lang, n, "point"))


# /settings: what each setting is and its unit; the units' forms after a number.
SETTINGS: dict[str, dict[str, tuple[str, str]]] = {"en": en.SETTINGS, "ru": ru.SETTINGS}


def unit(lang: str, name: str, n: int) -> str:
    """The unit ``name`` as it follows the number ``n`` (:func:`plural`): "1 chip", "5 chips";
    "2 фишки", "5 фишек", "21 фишка"."""
    return plural(lang, n, name)


def setting_word(value: Any) -> str:
    """A setting's value as /settings takes it: on or off for yes or no, a whole number
    without a decimal point."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def setting_value(lang: str, key: str, value: Any) -> str:
    """A setting's value with its unit: "60 seconds", "10 фишек", "on"."""
    word = setting_word(value)
    known = SETTINGS[_lang(lang)].get(key)
    if known is not None and known[1] in NOUN_FORMS[_lang(lang)] and not isinstance(value, bool) \
            and isinstance(value, int | float):
        return f"{word} {unit(lang, known[1], int(value))}"
    return word


def setting_line(lang: str, key: str, value: Any) -> Markup:
    """One line of /settings: "timeout = 60 seconds — time for each decision"; a setting
    that takes words lists them: "turn_dm = on (on | off) — ..."."""
    known = SETTINGS[_lang(lang)].get(key)
    shown = setting_value(lang, key, value)
    if known is None:
        return fill("{} = {}", key, shown)
    if known[1] not in NOUN_FORMS[_lang(lang)]:
        shown = f"{shown} ({known[1]})"
    return t(lang, "settings_line", key=key, value=shown, what=known[0])


def lang_of(code: str | None, default: str = "en") -> str:
    """Our language for a Telegram ``language_code`` (ru for ru/uk/be, else en)."""
    if code and code.split("-")[0].lower() in ("ru", "uk", "be"):
        return "ru"
    if code and code.split("-")[0].lower() == "en":
        return "en"
    return default if default in LANGUAGES else "en"


def _lang(lang: str) -> str:
    return lang if lang in LANGUAGES else "en"


NOUNS = ("card", "chip", "point")


def t(lang: str, key: str, /, **params: Any) -> Markup:
    """The text ``key`` in ``lang`` as HTML, with ``params`` escaped (``Markup`` ones are
    taken as they are). A template's ``{n_cards}`` (``_chips``, ``_points``) is the number
    ``n`` with its noun in the right form ("1 card", "5 карт")."""
    template = TEXTS[_lang(lang)][key]
    if "s}" in template:
        params |= {f"{k}_{noun}s": count(lang, v, noun) for k, v in params.items()
                   if isinstance(v, int) and not isinstance(v, bool) for noun in NOUNS
                   if f"{{{k}_{noun}s}}" in template}
    return fill(template, **params)


def fill(template: str, /, *args: Any, **params: Any) -> Markup:
    """``Markup(template).format(*args, **params)``, the same text at a fraction of the cost:
    each value escaped (``Markup`` ones taken as they are), then the template filled by
    ``str.format`` (markupsafe's formatter is ``string.Formatter``, pure Python, and drawing
    a table fills some thirty templates). Fields are plain ``{name}`` or ``{}`` (no format
    spec: a spec would apply to the escaped text)."""
    return Markup(template.format(*[escape(a) for a in args],
                                  **{k: escape(v) for k, v in params.items()}))


def plain(text: str) -> str:
    """An HTML text as a person reads it: tags dropped, entities decoded (a pop-up)."""
    if "<" not in text and "&" not in text:
        return text
    return html_lib.unescape(TAG.sub("", text))


def html(text: str) -> Markup:
    """Plain text (a name, a value) made safe to put in an HTML text."""
    return escape(text)


def game_name(lang: str, game: str) -> str:
    """A game's display name."""
    return GAME_NAMES[_lang(lang)].get(game, game)


def reason_text(lang: str, reason: Reason) -> str:
    """The sentence for an engine refusal."""
    return REASONS[_lang(lang)].get(reason, REASONS[_lang(lang)][Reason.NOT_ALLOWED])


def action_label(lang: str, kind: str) -> str:
    """The button label of an action kind."""
    found = ACTIONS[_lang(lang)].get(kind)
    return found if found is not None else kind.replace("_", " ").capitalize()


def has_word(lang: str, value: str, context: str = "") -> bool:
    """True when ``value`` has an explicit translation (as ``context:value`` or plain)."""
    words = WORDS[_lang(lang)]
    return (bool(context) and f"{context}:{value}" in words) or value in words


def word(lang: str, value: str, context: str = "") -> str:
    """A translated phase, role, status or word-valued fact; ``context`` (``phase``,
    ``hint``...) picks the meaning where one word has two. Unknown words pass through."""
    words = WORDS[_lang(lang)]
    if context and f"{context}:{value}" in words:
        return words[f"{context}:{value}"]
    return words.get(value, value.replace("_", " "))


def info_label(lang: str, key: str) -> str:
    """The label of a view.info or view.my_info key."""
    return INFO[_lang(lang)].get(key, key.replace("_", " ").capitalize())


def value_text(lang: str, value: str, key: str = "") -> str | None:
    """The translation of a word-valued string (a hint, an outcome), or None
    when it is not a word we know (a name, a hash): such strings are shown as they are."""
    lang = _lang(lang)
    if key and f"{key}:{value}" in WORDS[lang]:
        return WORDS[lang][f"{key}:{value}"]
    if value in VALUES[lang]:
        return VALUES[lang][value]
    if key == "action" and value in ACTIONS[lang]:
        return ACTIONS[lang][value]  # the safe default a timeout applied
    return None


def is_card(value: Any) -> bool:
    """True for a two-character card string like ``"Ah"``."""
    return (isinstance(value, str) and len(value) == 2 and value[0] in "23456789TJQKA"
            and value[1] in "cdhs")


# Data keys shown as a signed amount: what a player won (+) or lost (-).
SIGNED_KEYS = ("net", "banker_net")
_NUMBERED = {"en": en.NUMBERED, "ru": ru.NUMBERED}


def _player_dict(value: dict[str, Any], names: dict[int, str], lang: str | None) -> str:
    """One player's row (a result, a shown hand): "Ann: 10♥ A♠ +20 (win, 5 pts)"."""
    head = format_value(value["player"], names, "player")
    main: list[str] = []
    extra: list[str] = []
    for k, v in value.items():
        if k == "player":
            continue
        text = format_value(v, names, k, lang)
        if k in ("cards", "card", "amount", *SIGNED_KEYS):
            main.append(text)
        elif k == "outcome":
            extra.insert(0, text)
        elif isinstance(v, int) and k in _NUMBERED["en"]:
            extra.append(_NUMBERED[lang or "en"][k].format(n=v))
        else:
            extra.append(f"{word(lang or 'en', k)} {text}")
    body = " ".join(main) + (f" ({', '.join(extra)})" if extra else "")
    return f"{head}: {body.strip()}" if body.strip() else head


def format_value(value: Any, names: dict[int, str], key: str = "",
                 lang: str | None = None) -> str:
    """Human form of one event/info value: cards pretty, player ids named, lists joined;
    with ``lang``, word-valued strings (outcomes, hints) are translated; poker hand values
    are worded (in English without ``lang``)."""
    if is_card(value):
        return pretty(value)
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if is_hand_value(value):
        return hand_text(lang or "en", value)
    if isinstance(value, int) and key in SIGNED_KEYS:
        return f"+{value}" if value > 0 else str(value)
    if isinstance(value, int | str) and is_player_key(key) \
            and str(value).lstrip("-").isdigit() and int(value) in names:
        return names[int(value)]
    if isinstance(value, str) and lang is not None and key not in ("name", "commitment", "salt"):
        found = value_text(lang, value, key)
        return value if found is None else found
    if isinstance(value, list | tuple):
        sep = "; " if any(isinstance(v, dict) and not is_hand_value(v) for v in value) else " "
        if any(is_hand_value(v) for v in value) or (lang is not None and any(
                isinstance(v, str) and not is_card(v) for v in value)) or (
                is_player_key(key) and not any(is_card(v) for v in value)):
            sep = ", "
        return sep.join(format_value(v, names, key, lang) for v in value)
    if isinstance(value, dict):
        if "player" in value:
            return _player_dict(value, names, lang)
        parts = []
        for k, v in value.items():
            who = int(k) if str(k).lstrip("-").isdigit() else k
            label = format_value(who, names, "player")
            parts.append(f"{label} {format_value(v, names, key or str(k), lang)}")
        return ", ".join(parts)
    return str(value)


class _Fields(dict[str, str]):
    """An event's fields for its template; ``{n_cards}`` (``_chips``, ``_points``) is the
    number field ``n`` with its noun in the right form ("5 cards", "2 карты")."""

    def __init__(self, fields: dict[str, str], lang: str, data: dict[str, Any]) -> None:
        super().__init__(fields)
        self.lang, self.data = lang, data

    def __missing__(self, key: str) -> str:
        field, _, noun = key.rpartition("_")
        value = self.data.get(field)
        if noun[:-1] in NOUNS and noun.endswith("s") and isinstance(value, int) \
                and not isinstance(value, bool):
            return count(self.lang, value, noun[:-1])
        raise KeyError(key)


def templates(lang: str, kind: str) -> tuple[str, ...]:
    """The templates of an event kind, most specific first."""
    found = EVENTS[_lang(lang)].get(kind)
    if found is None:
        return ()
    return (found,) if isinstance(found, str) else found


def event_text(lang: str, event: Event, names: dict[int, str]) -> Markup:
    """One HTML line describing ``event`` (already filtered for its reader): the first of
    its templates whose fields the event carries, else a generic line of its data."""
    lang = _lang(lang)
    fields = _Fields({k: str(escape(format_value(v, names, k, lang)))
                      for k, v in event.data.items()}, lang, event.data)
    line = _templated(lang, event, fields)
    if line is not None:
        return line
    head = escape(word(lang, event.kind))
    if not fields:
        return head
    body = ", ".join(f"{escape(word(lang, k))} {v}" for k, v in fields.items()
                     if k != "commitment")
    return Markup(f"{head}: {body}") if body else head


def has_template(lang: str, event: Event) -> bool:
    """True when one of the event kind's templates tells ``event`` (no generic line)."""
    lang = _lang(lang)
    fields = _Fields({k: "x" for k in event.data}, lang, event.data)
    return _templated(lang, event, fields) is not None


def _templated(lang: str, event: Event, fields: _Fields) -> Markup | None:
    # a field with nothing in it (no possible hands yet) is as good as missing where a
    # plainer template follows: "Ann shows K♣ 3♦: king high", not "...: king high; "
    empty = [f"{{{k}}}" for k, v in event.data.items() if v == [] or v == {}]
    found = templates(lang, event.kind)
    for i, template in enumerate(found):
        if i < len(found) - 1 and any(field in template for field in empty):
            continue
        try:
            return Markup(template.format_map(fields))
        except (KeyError, IndexError, ValueError):
            continue
    return None


def choice_label(lang: str, choice: str) -> str:
    """A choice button's label: cards pretty-printed, words translated."""
    tokens = choice.replace(",", " ").split()
    if tokens and all(is_card(x) for x in tokens):
        return pretty_all_tokens(tokens)
    return word(lang, choice)


def pretty_all_tokens(tokens: list[str]) -> str:
    """Cards in human form, space separated."""
    return " ".join(pretty(x) for x in tokens)
