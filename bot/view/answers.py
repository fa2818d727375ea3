"""What the presser reads: an outcome (:mod:`bot.view.outcomes`) in words and keyboards.

A press is answered with a pop-up (an alert where it must be read), and may bring a
ForceReply prompt for an amount, a keyboard shown in place of the pressed one, or a
private keyboard to send to his private chat; a typed amount that was not taken is
answered with one message.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from bot.view import i18n, keyboards, render, screens
from bot.view.keyboards import Keyboard
from bot.view.outcomes import (
    Accepted,
    AmountAsked,
    Cards,
    DmOpened,
    Done,
    HostReason,
    LanguageSet,
    NotANumber,
    NotOpened,
    Opened,
    Options,
    Outcome,
    OutOfBounds,
    PickHere,
    PickInPrivate,
    Refused,
    Repeated,
    Selection,
    Switched,
    Typed,
    Waiting,
    WhichAmount,
    YourMove,
)
from bot.view.scene import scene
from games.engine import Reason

ALERTS = frozenset({HostReason.WALLET_LOW})
"""Refusals shown as an alert, to be read before the next press."""


@dataclass(frozen=True)
class Answer:
    """A press's answer: the pop-up's text (``alert``: one to dismiss), and what goes with
    it."""

    text: str
    alert: bool = False
    keyboard: Keyboard | None = None
    """The pressed message's keyboard turns into this one."""
    dm: tuple[int, str, Keyboard] | None = None
    """A message with a keyboard for the presser's private chat: his id, text, keyboard."""
    prompt: tuple[str, str] | None = None
    """A ForceReply prompt to post for the presser: its text and the input field's
    placeholder (the amounts it takes); in the group, or in his private chat where he
    pressed (``prompt_private``)."""
    prompt_private: bool = False
    prompt_here: bool = False
    """The prompt goes to the presser alone in the group (an ephemeral message): he pressed
    on his view shown to him alone there."""


def answer(outcome: Outcome, lang: str, group: str) -> Answer:
    """The answer to a press, in the presser's ``lang``; an amount's prompt in the group is
    in the ``group``'s language."""
    if isinstance(outcome, Accepted):
        return Answer(_next(done_label(lang, outcome.done), outcome.next, lang))
    if isinstance(outcome, Repeated):
        return Answer(_next(outcome.label, outcome.next, lang))
    if isinstance(outcome, Refused):
        return Answer(refusal_text(lang, outcome), alert=outcome.reason in ALERTS)
    if isinstance(outcome, AmountAsked):
        return _ask(outcome, lang, group)
    if isinstance(outcome, PickHere):
        return Answer("", keyboard=_keyboard(lang, outcome.selection))
    if isinstance(outcome, Switched):
        return _switched(outcome, lang, group)
    if isinstance(outcome, PickInPrivate):
        text = i18n.t(lang, "pick_private",
                      label=i18n.action_label(lang, outcome.selection.kind))
        return Answer(i18n.t(lang, "see_private"), alert=True,
                      dm=(outcome.player, text, _keyboard(lang, outcome.selection)))
    if isinstance(outcome, Cards):
        if outcome.view is None:
            return Answer(i18n.t(lang, "no_table"), alert=True)
        return Answer(render.cards_popup(lang, outcome.view), alert=True)
    if isinstance(outcome, Opened):
        return Answer(i18n.game_name(lang, outcome.game))
    if isinstance(outcome, NotOpened):
        return Answer(outcome.text, alert=True)
    assert isinstance(outcome, LanguageSet)
    return Answer(i18n.t(outcome.language, "language_set"))


def typed_answer(outcome: Typed, lang: str) -> str:
    """The reply to a typed amount that was not taken, in ``lang`` (the group's, or the
    player's own in his private chat)."""
    if isinstance(outcome, NotANumber):
        return i18n.t(lang, "amount_not_number", name=outcome.name)
    if isinstance(outcome, OutOfBounds):
        return i18n.t(lang, "amount_bounds", name=outcome.name, min=outcome.min,
                      max=outcome.max)
    if isinstance(outcome, WhichAmount):
        return i18n.t(lang, "amount_which", name=outcome.name, bot=outcome.bot)
    text = refusal_text(lang, outcome)
    return i18n.t(lang, "named", name=outcome.name, text=text) if outcome.name is not None else text


def dm_opened(lang: str, opened: DmOpened) -> tuple[str, Keyboard | None] | None:
    """What Start in private shows of a table, in its ``lang``: the player's cards, if any,
    and his pending private decision keyboard, with the Mini App's button where the bot has
    it; None when there is neither cards nor a decision."""
    view = opened.sight.view(opened.player)
    markup = screens.decision_keyboard(lang, opened.chat_id, opened.sight, opened.player,
                                       opened.decision, opened.prompted)
    if not view.my_cards and markup is None:
        return None
    lines = [i18n.t(lang, "decide_private")] if markup is not None else []
    if opened.app:
        markup = keyboards.with_app(lang, markup or Keyboard(()), opened.app)
    return render.dm_text(lang, view, lines), markup


def done_label(lang: str, done: Done) -> str:
    """What an accepted press's pop-up says was done: the action's label; for *Join*, the
    chips he sits down with, since that is what Join spends, and a pop-up that said "Join"
    again read like a button still to press."""
    if done.buy_in is not None:
        return i18n.plain(i18n.t(lang, "join_done", amount=done.buy_in))
    return i18n.action_label(lang, done.kind)


def refusal_text(lang: str, refused: Refused) -> str:
    """Why a press changed nothing; for a stale one, with what is current: the presser's
    own move (his actions as his buttons name them) or whom the table waits for."""
    reason = refused.reason
    if isinstance(reason, Reason):
        why: str = i18n.reason_text(lang, reason)
    elif reason is HostReason.STALE_COUP and refused.pressed and refused.coup:
        why = i18n.t(lang, "stale_coup", pressed=i18n.deal(lang, refused.game, refused.pressed),
                     now=i18n.deal(lang, refused.game, refused.coup))
    elif reason in (HostReason.STALE_COUP, HostReason.STALE_AMOUNT):
        why = i18n.t(lang, "stale")
    else:
        why = i18n.t(lang, reason.value)
    now = refused.now
    if isinstance(now, Options):
        keyboard = screens.decision_keyboard(lang, now.chat_id, now.sight, now.player,
                                             now.decision, prompted=True)
        if keyboard is None or not keyboard.inline_keyboard:
            return why
        labels = ", ".join(b.text for row in keyboard.inline_keyboard for b in row)
        return f"{why} {i18n.t(lang, 'now_yours', labels=labels)}"
    if isinstance(now, Waiting):
        return f"{why} {i18n.t(lang, 'now_waiting', names=', '.join(now.names))}"
    return why


def _next(done: str, next_: YourMove | Waiting | None, lang: str) -> str:
    """An accepted press's pop-up: what was done, and whose move it is now (a pop-up costs
    the group nothing, so the presser learns it at once)."""
    if isinstance(next_, YourMove):
        return f"{done} · {i18n.t(lang, 'next_yours')}"
    if isinstance(next_, Waiting):
        return f"{done} · {i18n.t(lang, 'next_waiting', names=', '.join(next_.names))}"
    return done


def _ask(ask: AmountAsked, lang: str, group: str) -> Answer:
    """"✏️ amount": a pop-up (in the presser's ``lang``), and a ForceReply prompt in the
    group (in its language) addressed to the presser (his reply, or "@bot 200", is the
    amount); pressed in his private chat, the prompt is there, in his language, and pressed
    on his view shown to him alone in the group, it is shown to him alone there."""
    lo, hi = ask.min, ask.max
    span = f"{lo}–{hi}" if lo is not None and hi is not None else ""
    who = Markup('<a href="tg://user?id={}">{}</a>').format(ask.player, ask.name)
    # the prompt's words: the group's in the group, his own in his private chat or shown
    # to him alone in the group
    words = lang if ask.private or ask.here else group
    label = i18n.action_label(words, ask.kind)
    if ask.choice is not None:
        label = f"{label} ({i18n.choice_label(words, ask.choice)})"
    if ask.here:  # and where to write it
        text = i18n.t(lang, "ask_prompt_here", range=span, label=label)
    elif ask.private:
        text = i18n.t(lang, "ask_prompt_private", range=span, label=label)
    else:
        text = i18n.t(group, "ask_prompt", who=who, range=span, label=label)
    # the pop-up names where the reply is: here in the group, or here in his private chat
    key = "ask_amount_here" if ask.here else "ask_amount_private" if ask.private \
        else "ask_amount"
    popup = i18n.t(lang, key, min=lo, max=hi) if span else i18n.t(lang, f"{key}_any")
    return Answer(popup, prompt=(text, span), prompt_private=ask.private,
                  prompt_here=ask.here)


def _switched(switched: Switched, lang: str, group: str) -> Answer:
    """The switch's pop-up names the way the amounts are now taken; the pressed keyboard
    turns into the one drawn with it: the group's table message's (in the group's
    language), or the presser's own (with the app's button in his private chat)."""
    o, way = switched.options, switched.way
    if switched.group:
        keyboard = screens.table_render(group, scene(
            o.chat_id, o.sight, None, None, (), {}, decision=o.decision,
            prompted=switched.prompted, open_url=switched.open_url, app=switched.app,
            switch=way)).markup
    else:
        keyboard = keyboards.with_app(lang, screens.decision_keyboard(
            lang, o.chat_id, o.sight, o.player, o.decision, True, way), switched.page)
    text = i18n.t(lang, "switch_done", way=i18n.choice_label(lang, switched.choice))
    return Answer(i18n.plain(text), keyboard=keyboard)


def _keyboard(lang: str, selection: Selection) -> Keyboard:
    return keyboards.selection_keyboard(lang, selection.chat_id, selection.coup,
                                     selection.decision, selection.kind,
                                     list(selection.choices), selection.mask, selection.limit,
                                     selection.app)
