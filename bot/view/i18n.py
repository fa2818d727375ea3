"""Russian and English texts: commands, refusals (one sentence per Reason), events, labels.

Every text the bot shows goes through :func:`t`, :func:`reason_text`,
:func:`event_text` or :func:`action_label`. Texts are Telegram HTML: the templates are
written as HTML, and :func:`t` and :func:`event_text` escape every value they fill in
(a player's name ``<b>&`` stays those characters), returning ``Markup``. Pop-ups take
no markup: :func:`plain` turns such a text back into what a person reads.

A chat's language is chosen with /language; until then it is the language of
whoever opened the table (or the default from the settings). The host's own texts are
in bot/view/locale/en.py and ru.py; everything a game says (its events, facts, words,
buttons) is the game's own (:class:`games.engine.GameTexts`, one vocabulary for all the
games offered: :func:`games_texts`). Event data and facts are worded by their type
(:func:`format_value`), never by a key's spelling.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup, escape

from bot.view.locale import en, ru
from games import registry
from games.cards import pretty
from games.engine import (
    Cards,
    CardsProven,
    Chips,
    Count,
    Each,
    Event,
    Flag,
    GameTexts,
    Hand,
    Players,
    Points,
    Reason,
    Rows,
    Settlement,
    Signed,
    Text,
    Value,
    Word,
)
from games.verify.check import compact

LANGUAGES = ("en", "ru")
TAG = re.compile(r"<[^>]*>")

# Every table is {language: {key: text}}.

TEXTS: dict[str, dict[str, str]] = {"en": en.TEXTS, "ru": ru.TEXTS}

REASONS: dict[str, dict[Reason, str]] = {"en": en.REASONS, "ru": ru.REASONS}

# Words the host says itself: a history line's reason, the banker of a result.
HOST_WORDS: dict[str, dict[str, str]] = {"en": en.WORDS, "ru": ru.WORDS}


def games_texts() -> GameTexts:
    """Every game's texts, one vocabulary (:func:`games.registry.texts`): event templates,
    facts' labels, words, values and button labels, by language."""
    return registry.texts()


# Poker hands: a template per hand category, filled with rank words in their forms.
HANDS: dict[str, dict[str, str]] = {"en": en.HANDS, "ru": ru.HANDS}
RANK_FORMS: dict[str, dict[str, tuple[str, ...]]] = {"en": en.RANK_FORMS, "ru": ru.RANK_FORMS}


def hand_text(lang: str, value: Hand) -> str:
    """A poker hand in words: ``Hand(category="pair", ranks=(10,))`` is "pair of queens" in
    English, "пара дам" in Russian."""
    lang = _lang(lang)
    fields = {f"{form}{i}": words[rank] for form, words in RANK_FORMS[lang].items()
              for i, rank in enumerate(value.ranks)}
    return HANDS[lang][value.category].format(**fields)


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
        return t(lang, "hand_bust", n=n)
    return t(lang, "hand_points", n=n, unit=plural(lang, n, "point"))


# /settings: what each setting is and its unit; the units' forms after a number.
SETTINGS: dict[str, dict[str, tuple[str, str]]] = {"en": en.SETTINGS, "ru": ru.SETTINGS}
"""The host's own settings (the games' are in their texts: :func:`setting_of`)."""


def setting_of(lang: str, key: str) -> tuple[str, str] | None:
    """What setting ``key`` is and its unit: the host's, or a game's."""
    lang = _lang(lang)
    return SETTINGS[lang].get(key) or games_texts().settings.get(lang, {}).get(key)


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
    known = setting_of(lang, key)
    if known is not None and known[1] in NOUN_FORMS[_lang(lang)] and not isinstance(value, bool) \
            and isinstance(value, int | float):
        return f"{word} {unit(lang, known[1], int(value))}"
    return word


def setting_line(lang: str, key: str, value: Any) -> Markup:
    """One line of /settings: "timeout = 60 seconds — time for each decision"; a setting
    that takes words lists them: "turn_dm = on (on | off) — ..."."""
    known = setting_of(lang, key)
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
    return markup(template.format(*[escaped(a) for a in args],
                                  **{k: escaped(v) for k, v in params.items()}))


def escaped(value: Any) -> str:
    """``str(escape(value))`` without the ``Markup`` objects: a name or a number with none of
    the characters HTML escapes (most of them) as it is, an int as its digits, a ``Markup``
    (anything with ``__html__``) as its HTML."""
    kind = type(value)
    if kind is str:
        if "&" in value or "<" in value or ">" in value or '"' in value or "'" in value:
            return str(escape(value))
        return value  # type: ignore[no-any-return]
    if kind is int:
        return str(value)
    if hasattr(value, "__html__"):
        return value.__html__()  # type: ignore[no-any-return]
    return str(escape(value))


def markup(html: str) -> Markup:
    """``Markup(html)`` for a ``str`` known to be HTML already (filled from escaped values):
    markupsafe's constructor, a Python function that asks for ``__html__``, skipped."""
    return str.__new__(Markup, html)


def joined(sep: str, parts: Iterable[Markup]) -> Markup:
    """``Markup(sep).join(parts)``: the parts joined by ``sep`` (HTML), each escaped unless it
    is a ``Markup`` (which markupsafe's join would copy, one object each)."""
    return markup(sep.join([p if type(p) is Markup else escape(p) for p in parts]))


def plain(text: str) -> str:
    """An HTML text as a person reads it: tags dropped, entities decoded (a pop-up)."""
    if "<" not in text and "&" not in text:
        return text
    return html_lib.unescape(TAG.sub("", text))


def html(text: str) -> Markup:
    """Plain text (a name, a value) made safe to put in an HTML text."""
    return escape(text)


def game_name(lang: str, game: str) -> str:
    """A game's display name (its texts')."""
    try:
        names = registry.texts_of(game).name
    except KeyError:
        return game
    return names.get(_lang(lang)) or names.get("en") or game


def deal(lang: str, game: str, n: int | str, capital: bool = False) -> str:
    """One deal of ``game`` with its number, as its texts name it: "coup #4", "кон №4";
    poker's "hand #4", "раздача №4" (``capital``: "Hand #4")."""
    shared = games_texts().words  # the games' shared word (coups)
    try:
        words = registry.texts_of(game).words
    except KeyError:  # no such game
        words = shared
    template = (words.get(_lang(lang), {}).get("deal_no") or words.get("en", {}).get("deal_no")
                or shared.get(_lang(lang), {}).get("deal_no") or shared["en"]["deal_no"])
    text = template.format(n=n)
    return text[:1].upper() + text[1:] if capital else text


def reason_text(lang: str, reason: Reason) -> str:
    """The sentence for an engine refusal."""
    return REASONS[_lang(lang)].get(reason, REASONS[_lang(lang)][Reason.NOT_ALLOWED])


def action_label(lang: str, kind: str) -> str:
    """The button label of an action kind."""
    found = games_texts().actions.get(_lang(lang), {}).get(kind)
    return found if found is not None else kind.replace("_", " ").capitalize()


def has_word(lang: str, value: str, context: str = "") -> bool:
    """True when ``value`` has an explicit translation (as ``context:value`` or plain)."""
    words = games_texts().words.get(_lang(lang), {})
    return (bool(context) and f"{context}:{value}" in words) or value in words


def word(lang: str, value: str, context: str = "") -> str:
    """A translated phase, role, status or word-valued fact; ``context`` (``phase``,
    ``hint``...) picks the meaning where one word has two. Unknown words pass through."""
    words = games_texts().words.get(_lang(lang), {})
    if context and f"{context}:{value}" in words:
        return words[f"{context}:{value}"]
    found = words.get(value) or HOST_WORDS[_lang(lang)].get(value)
    return found if found is not None else value.replace("_", " ")


def info_label(lang: str, key: str) -> str:
    """The label of a key of a view's facts (``facts``, ``my_facts``)."""
    return games_texts().facts.get(_lang(lang), {}).get(key,
                                                        key.replace("_", " ").capitalize())


def value_text(lang: str, value: str, key: str = "") -> str | None:
    """The translation of a word-valued string (a hint, an outcome), or None
    when it is not a word we know (a name, a hash): such strings are shown as they are."""
    texts = games_texts()
    lang = _lang(lang)
    words, values = texts.words.get(lang, {}), texts.values.get(lang, {})
    actions = texts.actions.get(lang, {})
    if key and f"{key}:{value}" in words:
        return words[f"{key}:{value}"]
    if value in values:
        return values[value]
    if key == "action" and value in actions:
        return actions[value]  # the safe default a timeout applied
    return None


def _row(value: Rows, names: dict[int, str], lang: str | None) -> str:
    """Players' lines (a result, shown hands), "; " between: "Ann: 10♥ A♠ +20 (win, 5 points)"."""
    numbered = games_texts().numbered.get(lang or "en", {})
    out = []
    for line in value.rows:
        head = names.get(line.player, str(line.player))
        main: list[str] = []
        extra: list[str] = []
        for k, v in line.fields.items():
            text = format_value(v, names, k, lang)
            if k == "outcome" and isinstance(v, Word):
                extra.insert(0, text)
            elif isinstance(v, Count | Points | Chips) and k in numbered:
                extra.append(numbered[k].format(n=v.n, **{
                    f"n_{noun}s": count(lang or "en", v.n, noun) for noun in NOUNS}))
            elif isinstance(v, Cards | Chips | Signed):
                main.append(text)
            else:
                extra.append(f"{word(lang or 'en', k)} {text}")
        body = " ".join(main) + (f" ({', '.join(extra)})" if extra else "")
        out.append(f"{head}: {body.strip()}" if body.strip() else head)
    return "; ".join(out)


def format_value(value: Value, names: dict[int, str], key: str = "",
                 lang: str | None = None) -> str:
    """Human form of one typed value (event data, a fact), by its type: cards pretty,
    players named, a win or loss signed, words translated (with ``lang``; English words
    without), a poker hand worded, lists joined."""
    if isinstance(value, Cards):
        return " ".join(pretty(c) for c in value.cards)
    if isinstance(value, Players):
        return ", ".join(names.get(p, str(p)) for p in value.ids)
    if isinstance(value, Signed):
        return f"+{value.n}" if value.n > 0 else str(value.n)
    if isinstance(value, Chips | Count | Points):
        return str(value.n)
    if isinstance(value, Flag):
        return "✓" if value.on else "✗"
    if isinstance(value, Hand):
        return hand_text(lang or "en", value)
    if isinstance(value, Word):
        found = value_text(lang, value.word, key) if lang is not None else None
        return value.word if found is None else found
    if isinstance(value, Text):
        return value.text
    if isinstance(value, Each):
        return ", ".join(f"{names.get(p, str(p))} {format_value(v, names, key, lang)}"
                         for p, v in value.values.items())
    if value.rows:
        return _row(value, names, lang)
    sep = " " if all(isinstance(v, Cards) for v in value.items) else ", "
    return sep.join(format_value(v, names, key, lang) for v in value.items)


def empty(value: Value) -> bool:
    """A value with nothing in it (no cards, nobody, no lines)."""
    return (isinstance(value, Cards) and not value.cards) or (
        isinstance(value, Players) and not value.ids) or (
        isinstance(value, Rows) and not value.rows and not value.items) or (
        isinstance(value, Each) and not value.values)


class _Fields(dict[str, str]):
    """An event's fields for its template; ``{n_cards}`` (``_chips``, ``_points``) is the
    number field ``n`` with its noun in the right form ("5 cards", "2 карты")."""

    def __init__(self, fields: dict[str, str], lang: str, data: dict[str, Value]) -> None:
        super().__init__(fields)
        self.lang, self.data = lang, data

    def __missing__(self, key: str) -> str:
        field, _, noun = key.rpartition("_")
        value = self.data.get(field)
        if noun[:-1] in NOUNS and noun.endswith("s") and isinstance(
                value, Count | Chips | Points | Signed):
            return count(self.lang, value.n, noun[:-1])
        raise KeyError(key)


def templates(lang: str, kind: str) -> tuple[str, ...]:
    """The templates of an event kind, most specific first."""
    found = games_texts().events.get(_lang(lang), {}).get(kind)
    if found is None:
        return ()
    return (found,) if isinstance(found, str) else found


def event_text(lang: str, event: Event, names: dict[int, str]) -> Markup:
    """One HTML line describing ``event`` (already filtered for its reader): the first of
    its templates whose fields the event carries, else a generic line of its data."""
    lang = _lang(lang)
    fields = _Fields({k: escaped(format_value(v, names, k, lang))
                      for k, v in event.data.items()}, lang, event.data)
    fields.update(_typed_fields(event))
    line = _templated(lang, event, fields)
    if line is not None:
        return line
    head = escape(word(lang, event.kind))
    if not fields:
        return head
    body = ", ".join(f"{escape(word(lang, k))} {v}" for k, v in fields.items()
                     if not isinstance(event.data[k], Text) or k == "name")
    return Markup(f"{head}: {body}") if body else head


def _typed_fields(event: Event) -> dict[str, str]:
    """The fields a typed event carries beside its data: a settlement's or a proof's coup,
    a proof's record (the compact JSON the verifier reads)."""
    if isinstance(event, CardsProven):
        return {"coup": str(event.coup), "record": str(escape(compact(event.record)))}
    if isinstance(event, Settlement):
        return {"coup": str(event.coup)}
    return {}


def has_template(lang: str, event: Event) -> bool:
    """True when one of the event kind's templates tells ``event`` (no generic line)."""
    lang = _lang(lang)
    fields = _Fields({k: "x" for k in event.data}, lang, event.data)
    fields.update(_typed_fields(event))
    return _templated(lang, event, fields) is not None


def _templated(lang: str, event: Event, fields: _Fields) -> Markup | None:
    # a field with nothing in it (no possible hands yet) is as good as missing where a
    # plainer template follows: "Ann shows K♣ 3♦: king high", not "...: king high; "
    gone = [f"{{{k}}}" for k, v in event.data.items() if empty(v)]
    found = templates(lang, event.kind)
    for i, template in enumerate(found):
        if i < len(found) - 1 and any(field in template for field in gone):
            continue
        try:
            return markup(template.format_map(fields))
        except (KeyError, IndexError, ValueError):
            continue
    return None


def choice_label(lang: str, choice: str) -> str:
    """A choice button's label: the choice's word translated."""
    return word(lang, choice)


def card_label(card: str) -> str:
    """A card's button label (a pick among his own cards)."""
    return pretty(card)
