"""From a table to what people see: the group's table message and a player's turn prompt.

Pure functions over a viewer's scene (:class:`bot.view.scene.Scene`): the table message
(:class:`TableScreen`) from the public scene, a player's turn prompt, his view shown to
him alone in the group and his decision keyboard from his own. Which of them a step
sends, as outbox items, is :mod:`bot.table.sends`'s to say.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from markupsafe import Markup

from bot.view import achievements, i18n, keyboards, proofs, render, results
from bot.view.keyboards import Keyboard
from bot.view.logbook import hands_first, log_lines
from bot.view.scene import Scene
from bot.view.scene import scene as scene_of
from bot.view.sight import Sight
from games.engine import Event, ShoeRevealed, StoodUp, TimedOut, visible_events


@dataclass(frozen=True)
class TableScreen:
    """A table message as it should look now, and the turn it shows."""

    text: str
    markup: Keyboard | None
    coup: int = 0
    version: int = 0
    """The step drawn."""
    decision: int = 0
    """The step at which the awaited players' decision began."""
    awaited: tuple[int, ...] = ()
    prompted: frozenset[int] = frozenset()
    """The awaited players told of their turn in their private chat: the group's message
    is not how they learn it."""
    deadline: float | None = field(default=None, compare=False)
    """The end of the turn's clock as drawn (the time left counts down to it); not compared:
    two drawings of one text are the same message, whatever deadline each was drawn for."""
    called: bool = False
    """A move nobody awaited makes is offered (Start once enough players sit; on a Mini App
    coup's card, banchok's joining): this message is the only place the chat shows it."""
    quiet: bool = False
    """A coup under way at a table played in the Mini App: its message is not edited till
    the result, but where it is the only way an awaited player sees his turn (:attr:`urgent`)."""
    opener: Keyboard | None = field(default=None, compare=False)
    """The *Open table* button alone (None without the Mini App): a coup's result keeps it,
    and between coups the group has the table's link still."""

    @property
    def urgent(self) -> bool:
        """Whether this message is how the table's next press becomes known: an awaited
        player's turn he has no private prompt for, or a step forward nobody is awaited for
        (the Start button that appears when the table becomes startable)."""
        return any(p not in self.prompted for p in self.awaited) or self.called

    @property
    def turn(self) -> tuple[int, bool, tuple[int, ...]]:
        """What the table waits for, as the group's pace tells turns apart: the decision,
        whether a step forward nobody is awaited for is offered (Start appears without a
        new decision), and whom the message shows awaited (a Mini App coup's card: nobody,
        nor its decision: a move it offers the others is drawn once, not at every decision;
        several awaited: those yet to answer)."""
        return self.decision if self.awaited or not self.quiet else 0, self.called, \
            self.awaited

    @property
    def markup_json(self) -> str | None:
        """The keyboard as the ``reply_markup`` parameter."""
        return None if self.markup is None else self.markup.as_json()


def deep_link_payload(chat_id: int) -> str:
    """/start payload naming a table: ``t`` + the chat id (``m`` for minus)."""
    return "t" + str(chat_id).replace("-", "m")


def parse_payload(payload: str) -> int | None:
    """The chat id in a deep link payload, or None."""
    if payload.startswith("t") and re.fullmatch(r"m?\d{1,16}", payload[1:]):
        return int(payload[1:].replace("m", "-"))
    return None


def markup_json(markup: Keyboard | None) -> dict[str, Any] | None:
    """A keyboard as JSON for the outbox."""
    return None if markup is None else markup.as_dict()


def table_render(lang: str, scene: Scene) -> TableScreen:
    """The group's table message, drawn from the public ``scene``: the table, its buttons and
    the coup's log; while the coup after it is on, the last coup's result leads it. With
    the Mini App's direct link (:attr:`Scene.open_url`), the *Open table* button on the
    first row.

    A table played in the Mini App (:attr:`Scene.app`): while a coup is under way (someone
    is awaited in a coup) the message is then the coup's *card* (:data:`TableScreen.quiet`:
    it is posted when the coup starts and left as it is until its result): the table
    without whose turn it is or a clock, a line saying where moves are made, and only the
    buttons nobody awaited decides with (*My cards*, *Join*, *Leave*). An awaited player who
    is not told his turn in private (not in :attr:`Scene.prompted`: he has no private chat
    with the bot) is the exception: the group is the only place he can see it, so the
    message is drawn as in the chat, his turn and buttons on it, and that edit goes out at
    once (it counts against the group's budget), as does the card's offer of a move to the
    others (banchok's joining). :attr:`Scene.no_dm`: players the bot cannot write to: a
    private step tells them their buttons are under *My cards*, once (:attr:`Scene.told`)."""
    layout, screen = _kept(scene, ("table", lang), lambda: _table_screen(lang, scene))
    return dataclasses.replace(screen, text=layout.text(lang, scene.deadline),
                               deadline=None if scene.card else scene.deadline)


def _table_screen(lang: str, scene: Scene) -> tuple[render.Layout, TableScreen]:
    """:func:`table_render` of ``scene`` but its time left: the text's layout, and the
    screen (its text and deadline still to fill in)."""
    view, card = scene.table, scene.card
    show_cards = any(s.face_down for s in view.seats)
    under = [results.drawn_result_line(lang, view.game, scene.result, scene.names),
             *earned_lines(lang, scene)] if scene.result is not None else []
    layout = _table_layout(lang, scene, under=under, turn=not card,
                           own=[i18n.t(lang, "app_card")] if card else (),
                           by_cards=[p for p in view.awaiting if p in scene.no_dm]
                           if scene.private else (), told=scene.told)
    markup = keyboards.keyboard(lang, scene.chat_id, view, scene.buttons,
                                set(scene.amount_kinds), show_cards, scene.decision,
                                scene.switch)
    opener = keyboards.Keyboard.of([[keyboards.open_button(lang, scene.open_url)]]) \
        if scene.open_url else None
    if opener is not None:
        markup = markup.with_row(opener.inline_keyboard[0], first=True) \
            if markup is not None else opener
    called = (card or not view.awaiting) and any(
        k not in keyboards.UTILITIES for k in scene.buttons.kinds)
    return layout, TableScreen("", markup, view.coup, view.version, scene.decision,
                               () if card else tuple(view.awaiting), scene.prompted,
                               None, called, scene.quiet, opener)


T = TypeVar("T")


def _kept(scene: Scene, key: Hashable, draw: Callable[[], T]) -> T:
    """What ``draw`` draws of ``scene`` that its deadline does not change, drawn once for
    ``key`` (:attr:`bot.view.scene.Scene.drawn`)."""
    known = scene.drawn.get(key, _UNDRAWN)
    if known is _UNDRAWN:
        if len(scene.drawn) >= DRAWN_KEPT:
            scene.drawn.clear()
        known = scene.drawn[key] = draw()
    drawing: T = known
    return drawing


_UNDRAWN = object()
"""What :func:`_kept` finds for a drawing not kept (a drawing may be None: no keyboard)."""


DRAWN_KEPT = 16
"""Drawings kept of one scene at most (its screens in a language or two)."""


def earned_lines(lang: str, scene: Scene) -> list[Markup]:
    """The achievements the result's players reached with it (:attr:`Scene.earned`), one
    line each: every screen that shows the result draws them so."""
    return achievements.earned_lines(lang, scene.table.game, scene.earned, scene.names)


def _table_layout(lang: str, scene: Scene, own: Sequence[Markup] = (),
                  under: Sequence[Markup] = (), turn: bool = True,
                  by_cards: Sequence[int] = (), told: frozenset[int] = frozenset()
                  ) -> render.Layout:
    """The public table as the group sees it (``own``: a player's lines below it,
    ``under``: lines under its header; without ``turn``, no line of whose turn it is) but
    its time left. The last few entries of the coup's log show as they came; the hands
    lead the collapsed rest."""
    log = scene.log
    older, lead = hands_first(log[:-render.RECENT])
    return render.table_layout(lang, scene.table,
                               log_lines(lang, [*older, *log[-render.RECENT:]], scene.names),
                               scene.private, committed=scene.committed, own=own,
                               under=under, lead=lead, turn=turn, by_cards=by_cards,
                               told=told)


@dataclass(frozen=True)
class Prompt:
    """A player's turn prompt in his private chat: the table from his seat and his keyboard.
    ``digest`` tells two drawings apart by what they show (not the seconds left), so that
    an open prompt is edited only when the table or his choices changed."""

    text: str
    markup: Keyboard | None
    digest: str


def prompt(lang: str, scene: Scene, *, lines: Sequence[Markup] = (),
           last: Markup | None = None, keyboard: bool = True, app: str | None = None
           ) -> Prompt:
    """A player's turn prompt, and his view shown to him alone in the group (one drawing:
    the two cannot tell him different things), from his ``scene``: everything the group's
    table shows (every seat, its up cards and stakes, the bank or pot, whose turn and the
    time left, the coup's events), then his own cards (his up cards too) and private facts,
    what happened to him (``lines``) and ``last`` (by default, while he is awaited: his move
    is here), with his decision keyboard (the amount to call on its button). Without
    ``keyboard``: a prompt whose decision is gone, ``last`` saying what became of it.
    ``app``: the Mini App's page for this table, whose ``web_app`` button goes under his
    keyboard. While it has its keyboard, the achievements the last result's players reached
    show under its header, as the group's table shows them (:attr:`Scene.earned`)."""
    own = [*_kept(scene, ("own", lang), lambda: _own_lines(lang, scene)), *lines]
    buttons = own_keyboard(lang, scene) if keyboard else None
    if last is not None or buttons is not None:
        own.append(i18n.t(lang, "decide_private") if last is None else last)
    under = earned_lines(lang, scene) if keyboard else []
    layout = _kept(scene, ("prompt", lang, keyboard),
                   lambda: _table_layout(lang, scene, under=under))
    text = dataclasses.replace(layout, tail=(*layout.tail, *own)).text(lang, scene.deadline)
    return drawn(text, keyboards.with_app(lang, buttons, app))


def _own_lines(lang: str, scene: Scene) -> tuple[Markup, ...]:
    """The viewer's own lines of his private screens: his cards, his private facts."""
    mine = scene.mine
    own = [render.own_cards(lang, mine)] if mine is not None and mine.my_cards else []
    own += render.info_lines(lang, scene.my_facts, render.names_of(scene.table))
    return tuple(own)


def own_keyboard(lang: str, scene: Scene) -> Keyboard | None:
    """The viewer's own decision keyboard, while he is awaited (his prompt's: drawn once for
    the scene)."""
    if scene.viewer not in scene.awaited:
        return None
    return _kept(scene, ("keyboard", lang), lambda: keyboards.keyboard(
        lang, scene.chat_id, scene.table, scene.buttons, set(scene.amount_kinds), False,
        scene.decision, scene.switch))


def drawn(text: str, markup: Keyboard | None) -> Prompt:
    """A private drawing (a turn prompt, a view in the group for one player) with the
    digest of what it shows: its text less the time left, and its keyboard."""
    shows = _TIME_LEFT.sub("", text) + (markup.as_json() if markup is not None else "")
    return Prompt(text, markup, hashlib.blake2b(shows.encode(), digest_size=8).hexdigest())


_TIME_LEFT = re.compile(r"<tg-time [^>]*>[^<]*</tg-time>")
"""The time left as drawn: not what tells two drawings of a prompt apart."""


def prompt_outcome(lang: str, player: int, actor: int | None, action: str,
                   timed_out: Sequence[int], new_coup: bool,
                   events: Sequence[Event] = (), names: dict[int, str] | None = None, *,
                   game: str = "", coup: int = 0) -> Markup:
    """What became of a player's decision, in one line of his closed prompt: his own
    action (``actor``, its kind ``action``), his time running out, or the decision (or the
    coup ``coup`` of ``game``) being over. His action, or what the table did for him, reads
    as the step's public ``events`` tell it ("✅ Ann bids 50"): a bare label ("✅ Bid") said
    neither how much nor, after a timeout, what was decided."""
    mine = next((e for e in events if e.to is None and e.player == player
                 and not isinstance(e, TimedOut | StoodUp)), None)
    if player == actor and action:
        if mine is not None:
            return i18n.t(lang, "prompt_done", label=i18n.event_text(lang, mine, names or {}))
        return i18n.t(lang, "prompt_done", label=i18n.action_label(lang, action))
    if player in timed_out:
        if mine is not None:
            return i18n.t(lang, "prompt_timed_out_did",
                          line=i18n.event_text(lang, mine, names or {}))
        return i18n.t(lang, "prompt_timed_out")
    if new_coup:
        return i18n.t(lang, "prompt_coup_over", deal=i18n.deal(lang, game, coup, capital=True))
    return i18n.t(lang, "prompt_over")


def closing_text(lang: str, events: Sequence[Event], names: dict[int, str]) -> str:
    """A closed table's closing text: that it closed, what closing did (the table's
    ``events``: the coup voided, chips back), and how each shoe it revealed was made."""
    lines: list[str] = [i18n.t(lang, "closed_table")]
    lines += [i18n.event_text(lang, e, names) for e in visible_events(events, None)
              if not isinstance(e, ShoeRevealed)]
    for event in events:
        if isinstance(event, ShoeRevealed):
            lines.append(proofs.revealed_text(lang, proofs.Revealed.model_validate(
                proofs.revealed_record(event)), names))
    return "\n\n".join(lines)


def decision_keyboard(lang: str, chat_id: int, sight: Sight, player: int,
                      decision: int | None = None, prompted: bool = False,
                      switch: int = 0) -> Keyboard | None:
    """The awaited ``player``'s own actions as buttons for his DM: in a private step, or
    when his turn is prompted there (``prompted``); ``switch``: how its amounts are taken.
    Drawn from his scene, as his prompt's keyboard is."""
    if not (sight.private or prompted):
        return None
    return own_keyboard(lang, scene_of(chat_id, sight, player, None, (), {},
                                       decision=decision, switch=switch))


def ephemeral_view(lang: str, scene: Scene, *, last: Markup | None = None) -> Prompt | None:
    """A player's private view shown to him alone in the group (a Bot API 10.2 ephemeral
    message), drawn from his ``scene`` as his turn prompt is (:func:`prompt`): a player
    without a private chat decides here, on the same facts (the bank or pot, every up card,
    the time left). ``last``: his view once the decision it answered is gone, without a
    keyboard, saying what became of it. None: nothing private to show (no hidden card, no
    fact of his own, no decision): his *My cards* pop-up says so."""
    shown = prompt(lang, scene, last=last, keyboard=last is None)
    private = scene.my_cards or scene.my_facts or shown.markup is not None or last is not None
    return shown if private else None
