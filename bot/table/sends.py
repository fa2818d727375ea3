"""What a step must send, as outbox items: the group's messages and each player's DMs.

A step's sends are composed here (:func:`step_drafts`) from the views
(:mod:`bot.view.screens` draws them) and written by the commit with the step
(:meth:`bot.table.tables.Tables.commit`), for the courier (:mod:`bot.outbox.courier`) to
send; each item is drafted from its kind's model (:mod:`bot.outbox.payloads`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from bot.outbox.payloads import (
    DirectMessage,
    ephemeral_delete,
    ephemeral_edit,
    group_message,
    prompt_edit,
    settlement,
    table_post,
    turn_prompt,
)
from bot.table.record import Ask, OpenEphemeral, Proof, Table, TableMeta
from bot.view import i18n, logbook, proofs, render, results, screens
from bot.view.scene import scene
from bot.view.screens import Prompt, own_keyboard, prompt
from bot.view.sight import Sight
from games.cards import pretty_all
from games.engine import (
    About,
    Cards,
    CardsProven,
    Event,
    Points,
    Purpose,
    Settlement,
    ShoeRevealed,
    Step,
    StoodUp,
    TimedOut,
    visible_events,
)
from games.verify.check import compact
from storage.base import OutboxDraft

MAX_COUP_LINES = 60
"""The coup's log lines kept in the table record at most."""


def step_drafts(lang: str, langs: dict[int, str], table: Table, step: Step[Any], sight: Sight,
                meta: TableMeta, timed_out: Sequence[int], prompts: frozenset[int],
                open_prompts: dict[int, tuple[int, str]], deadline: float | None, *,
                app: str | None = None, in_app: bool = False, elsewhere: bool = False,
                on_page: frozenset[int] = frozenset(), earned: Sequence[tuple[int, str]] = ()
                ) -> tuple[int | None, list[OutboxDraft]]:
    """What a step sends (and its record updated in ``meta``): the coup's result, stand-
    ups, the table anew for a new coup, and each player's private events in his own
    language, his turn prompt counting down to ``deadline`` (with the Mini App's button
    for its page ``app``). Also the coup the step settles, if it settles one. ``in_app``:
    the table is played in the Mini App, whose group gets a coup's card and its result and
    nothing else: a stand-up (a second timeout, in the middle of a coup) is told by the
    coup's log, which the page shows and the result folds, not by a message of its own.
    ``elsewhere``: every awaited player sees his turn away from the group (his private chat, his
    open page): in the Mini App, a settled coup's table is then posted anew only when the
    next coup starts (its card), not for what comes between (the next bank's offer).
    ``on_page``: awaited players whose open page shows their turn (no prompt for them, see
    :func:`direct_messages`). ``earned``: the achievements the coup it settles earns its
    players (player and key), kept with its result."""
    old, new, chat_id = table.state, step.state, table.chat_id
    view = sight.view()
    names = meta.names
    seated = {s.player: s.name for seats in (table.sight.view().seats, view.seats)
              for s in seats}
    if any(names.get(p) != n for p, n in seated.items()):
        names = meta.names = {**names, **seated}
    log = list(meta.coup_log)
    public = visible_events(step.events, None)
    # a timeout is told by the engine's own event, folded into what it did for him; the
    # host's line only for an awaited player whose engine said nothing of it
    told = {e.player for e in public if isinstance(e, TimedOut)}
    if untold := [p for p in timed_out if p not in told]:
        log.append({"kind": logbook.TIMED_OUT, "data": {"players": untold}})
    settled: tuple[Settlement, list[dict[str, Any]]] | None = None
    announcements = []
    for event, by_timeout in logbook.timeouts_folded(logbook.deals_merged(public)):
        if isinstance(event, ShoeRevealed):
            meta.revealed = proofs.revealed_record(event)
            if event.purpose is Purpose.BANK_DRAW:
                continue  # a shoe only drawn from for the bank: /verify proves it, and
                # the log says nothing of its being finished (only a talia's shoe is)
        if isinstance(event, StoodUp):
            player = event.player
            name = names.get(player, str(player)) if player is not None else "?"
            announcements.append(i18n.t(lang, "stood_up", name=name))
        if isinstance(event, Settlement):
            settled = (event, log)
            log = []
        elif logbook.logged(event):
            log.append(logbook.log_entry(event, by_timeout))
    if new.coup != old.coup and settled is None and new.coup > 0:
        log = log[-4:]  # a new coup began without a result (a void coup, a stand-off)
    meta.coup_log = log[-MAX_COUP_LINES:]
    drafts = []
    between = new.coup == meta.msg_coup and in_app and elsewhere
    if settled is not None:
        result, coup_log = settled
        meta.last_result = results.kept_result(result, coup_log, earned)
        # with no table posted before the next coup, the result tells what came after it
        drafts.append(settlement(chat_id, results.result_text(
            lang, view.game, result, names, coup_log, log if between else ())))
    if not in_app:  # in the app the coup's log tells a stand-up (its result shows it)
        drafts += [group_message(chat_id, text) for text in announcements]
    if (settled is not None or new.coup != meta.msg_coup) and view.seats and not between:
        meta.msg_coup = new.coup
        drafts.append(table_post(chat_id))
    # a player's proof of his own cards is kept for him, and sent when he asks (/verify)
    proven = [e for e in step.events if isinstance(e, CardsProven)]
    if proven:
        meta.proofs = {**meta.proofs, **{
            p: Proof(hand=e.coup, record=compact(e.record)) for e in proven
            if (p := e.player) is not None}}
    drafts += direct_messages(
        langs, chat_id, sight, [e for e in step.events if not isinstance(e, CardsProven)],
        names, prompts, meta.decision, meta.coup_log, deadline, open_prompts, app, on_page,
        meta.last_result)
    return (settled[0].coup if settled is not None else None), drafts


def direct_messages(langs: dict[int, str], chat_id: int, sight: Sight,
                    events: Sequence[Event], names: dict[int, str],
                    prompts: frozenset[int] = frozenset(), decision: int | None = None,
                    log: Sequence[dict[str, Any]] = (), deadline: float | None = None,
                    open_prompts: Mapping[int, tuple[int, str]] | None = None,
                    app: str | None = None, on_page: frozenset[int] = frozenset(),
                    last: dict[str, Any] | None = None) -> list[OutboxDraft]:
    """Each reader's private events with his cards, in his own language (``langs``); every
    awaited player of ``prompts`` (the host's choice: in a private step every awaited
    player, when his decision is new or its buttons changed) also gets his turn with his
    decision keyboard (with his cards, or on its own): such a DM carries
    ``turn`` (the decision), so that its delivery starts his clock. What a player was told
    about a coup this step settled comes first, under that coup's number, before what he is
    dealt for the next. A DM with a decision keyboard is his turn prompt (:func:`prompt`):
    the table from his seat (the coup's ``log``, the time left to ``deadline``), with a
    ``digest`` of what it shows. A player whose prompt of this decision is open
    (``open_prompts``: its message id and digest) gets no new one: it is edited
    (:data:`DM_EDIT`) where what it shows changed. ``app``: the Mini App's page for the
    table, whose ``web_app`` button goes under each prompt's keyboard. A player of
    ``on_page`` (his open page shows him his turn) gets no new prompt, not even in a
    private step: only his private events, with his cards. ``last``: the last result as the
    record keeps it (a prompt shows the achievements it earned, as the group's table)."""
    open_prompts = open_prompts or {}
    settled_at = next((i for i, e in enumerate(events) if isinstance(e, Settlement)), None)
    earlier, later = (list(events), []) if settled_at is None else (
        list(events[:settled_at]), list(events[settled_at:]))
    if settled_at is not None:
        result = events[settled_at]
        coup = result.coup if isinstance(result, Settlement) else None
        # what follows the result but names the settled coup (a proof of its cards)
        earlier += [e for e in later if isinstance(e, CardsProven) and e.coup == coup]
        later = [e for e in later if e not in earlier]
        out = [DirectMessage(text=render.dm_text(
            langs[player], None, lines, game=sight.view().game, coup=coup), markup=None
            ).draft(player) for player, mine in _private(earlier)
            if (lines := _told(langs[player], mine, names, hand_shown=False))]
    else:
        out, later = [], list(earlier)
    awaited = list(sight.view().awaiting)
    mine_later = dict(_private(later))
    for p in awaited:
        if p in prompts or p in open_prompts:
            mine_later.setdefault(p, [])
    for player, mine in mine_later.items():
        lang, view = langs[player], sight.view(player)
        lines = _told(lang, mine, names, hand_shown=bool(view.my_cards))
        shown = open_prompts.get(player) if player in awaited else None
        # his decision keyboard (as screens.decision_keyboard draws it), drawn from the
        # scene his prompt is drawn from
        mine_now = None if (player in on_page and shown is None) or not (
            sight.private or player in prompts or shown is not None) else scene(
            chat_id, sight, player, deadline, log, names, decision=decision, last=last)
        if mine_now is not None and own_keyboard(lang, mine_now) is not None:
            turn = prompt(lang, mine_now, lines=lines, app=app)
            if shown is not None:
                if turn.digest != shown[1]:
                    out.append(prompt_edit(player, shown[0], turn))
                continue
            out.append(turn_prompt(player, sight.state.version if decision is None
                                   else decision, sight.state.version, turn))
            continue
        if not (lines or view.my_cards or view.my_facts):
            continue  # nothing to tell him: no DM that is a title alone
        out.append(DirectMessage(text=render.dm_text(lang, view, lines), markup=None
                                 ).draft(player))
    return out





def asks_over(chat_id: int, before: Mapping[int, Ask], after: Mapping[int, Ask]
              ) -> list[OutboxDraft]:
    """The prompts shown to one player alone in the group for asks that are over (answered,
    expired, replaced: in ``before`` and not in ``after``): deleted."""
    return [ephemeral_delete(chat_id, p, a.shown) for p, a in before.items()
            if a.shown is not None and (p not in after or after[p].shown != a.shown)]


@dataclass(frozen=True)
class Moment:
    """A table at one version as a player's private screens draw it (his turn prompt, his
    view in the group): what it shows, its coup's log, the names, the step at which the
    decision under way began, and the end of its clock (None: no time left shown)."""

    sight: Sight
    log: Sequence[dict[str, Any]]
    names: dict[int, str]
    decision: int
    deadline: float | None = None
    last: dict[str, Any] | None = None
    """The last result as the record keeps it (its achievements show under the header)."""

    @classmethod
    def of(cls, table: Table, deadline: float | None = None) -> Moment:
        """``table`` as committed, counting down to ``deadline`` while someone is awaited."""
        return cls(table.sight, table.meta.coup_log, table.meta.names, table.meta.decision,
                   deadline if table.sight.view().awaiting else None, table.meta.last_result)

    def view(self, lang: str, chat_id: int, player: int, last: Markup | None = None
             ) -> Prompt | None:
        """``player``'s view in the group now (:func:`bot.view.screens.ephemeral_view`)."""
        return screens.ephemeral_view(lang, scene(chat_id, self.sight, player, self.deadline,
                                                  self.log, self.names,
                                                  decision=self.decision, last=self.last),
                                     last=last)


def ephemeral_drafts(langs: Mapping[int, str], chat_id: int, before: Moment, after: Moment,
                     shown: Mapping[int, OpenEphemeral], outcome: Callable[[int], Markup]
                     ) -> tuple[dict[int, OpenEphemeral], list[OutboxDraft]]:
    """What a step does to the private views shown in the group to one player each, with
    their decision keyboards (``shown``): one whose player is still awaited is edited where
    it shows something else now (``after``), as his turn prompt would be; any other loses
    its keyboard and says what became of its decision (``outcome(player)``), drawn from the
    table as it was (``before``). Returns those still open, and the edits."""
    still: dict[int, OpenEphemeral] = {}
    out: list[OutboxDraft] = []
    awaited = after.sight.view().awaiting
    for player, open_view in shown.items():
        lang = langs[player]
        now = after.view(lang, chat_id, player) \
            if player in awaited and after.sight.state.coup == before.sight.state.coup else None
        if now is not None and now.markup is not None:
            still[player] = OpenEphemeral(message_id=open_view.message_id,
                                          decision=after.decision, digest=now.digest)
            if now.digest != open_view.digest:
                out.append(ephemeral_edit(chat_id, player, open_view.message_id, now))
            continue
        out += ephemeral_closed(lang, chat_id, before, player, open_view.message_id,
                                outcome(player))
    return still, out


def ephemeral_closed(lang: str, chat_id: int, moment: Moment, player: int, message_id: int,
                     last: Markup) -> list[OutboxDraft]:
    """The private view shown to ``player`` alone in the group (its ephemeral message
    ``message_id``) once its decision is gone: his view of ``moment``, no keyboard, and
    ``last``, what became of the decision (as :func:`closed_prompt` is for his prompt)."""
    closed = moment.view(lang, chat_id, player, last)
    return [] if closed is None else [ephemeral_edit(chat_id, player, message_id, closed)]


def settled_outcome(lang: str, game: str, last: dict[str, Any] | None,
                    names: dict[int, str], line: Markup) -> Markup:
    """The last lines of a prompt or a view closed by the step that settled its coup:
    what became of his decision (``line``), then the coup's result as the group's result
    words it (``last``, the record's: its headline, coup number, nets and the hands
    shown), so that a player on his own screen sees why he won or lost."""
    result = results.last_result(last)
    if last is None or result is None:
        return line
    return line + Markup("\n\n") + Markup(results.result_text(
        lang, game, result, names, last.get("shown", ())))


def _private(events: Sequence[Event]) -> list[tuple[int, list[Event]]]:
    """Each reader of private events, in order of first mention, with his events."""
    readers: dict[int, list[Event]] = {}
    for e in events:
        for p in e.to or ():
            readers.setdefault(p, []).append(e)
    return list(readers.items())


def _told(lang: str, mine: Sequence[Event], names: dict[int, str], *,
          hand_shown: bool) -> list[Markup]:
    """A player's private events as DM lines, less those that only repeat his cards. Where
    the DM shows no hand of his (``hand_shown`` false: a coup this step settled, or cards
    he has since turned face up), the hand the step dealt him leads as the "Your cards"
    line, with its points where the event tells them (no view of a settled coup does), or,
    where his events do not name the whole hand, those events tell it."""
    rest = [e for e in mine if e.about is not About.OWN_HAND]
    dealt = None if hand_shown else next(
        (e for e in reversed(mine)
         if e.about is About.OWN_HAND and isinstance(e.data.get("cards"), Cards)), None)
    if dealt is not None:
        hand = dealt.data["cards"]
        facts = {k: v for k, v in dealt.data.items() if isinstance(v, Points)}
        return [i18n.t(lang, "your_cards", cards=pretty_all(list(getattr(hand, "cards", ())))),
                *render.info_lines(lang, facts, names),
                *render.event_lines(lang, rest, names)]
    return render.event_lines(lang, rest if hand_shown else mine, names)


def closed_prompt(lang: str, chat_id: int, sight: Sight, player: int, message_id: int,
                  log: Sequence[dict[str, Any]], names: dict[int, str], last: Markup
                  ) -> OutboxDraft:
    """A delivered turn prompt whose decision is gone, edited: the table as it was, no
    keyboard, and ``last``, what became of the decision."""
    return prompt_edit(player, message_id, prompt(
        lang, scene(chat_id, sight, player, None, log, names), keyboard=False, last=last))
