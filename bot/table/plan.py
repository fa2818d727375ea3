"""A step's plan: what an engine step does to the table's record, and what it owes to send.

A step changes more than the game's state. It counts a decision nobody played (docs/rules.md
§0.12), ends the asks to type an amount that it answers, begins a decision (whose clock
starts once every awaited player has been shown it) or goes on with one, sends, edits or
closes turn prompts and the views shown to one player in the group, and books its chips
under a coup. :func:`plan` works all of that out from the table as committed and the step,
writing nothing; :meth:`bot.table.tables.Tables.commit` then writes the plan in one
transaction, and only then is anything sent. The coups a step settles are written with it
(:func:`settled_coups`), so that the standings count each once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from bot.outbox import kinds
from bot.outbox.payloads import PromptEdit
from bot.table import sends
from bot.table.clock import Clock
from bot.table.languages import Languages
from bot.table.record import OpenPrompt, Table, TableMeta
from bot.view import keyboards, screens
from bot.view.sight import Sight
from games.banking import bank_holders
from games.engine import Event, IllegalAction, Settlement, Step, Transfer
from storage.base import OutboxDraft, SettledCoup


@dataclass(frozen=True)
class Cause:
    """Who made a step: the player who acted (None: nobody did), the kind of his action
    (his closed prompt names it), whether it answers a decision (``decided=False``: a
    utility such as *Leave*, after which an awaited actor goes on with the decision he
    has), and the players whose time ran out."""

    actor: int | None = None
    action: str = ""
    decided: bool = True
    timed_out: Sequence[int] = ()


@dataclass(frozen=True)
class Plan:
    """What committing a step writes: the record after it, every send it owes, its
    deadline, the coups and bank holders its transfers are booked with, and the coups it
    settles as the standings count them; and the step's sight, which the committed copy
    keeps."""

    meta: TableMeta
    sight: Sight
    drafts: list[OutboxDraft]
    deadline: float | None
    coup: int
    coups: list[int]
    holders: list[int | None]
    settled: tuple[SettledCoup, ...]


async def plan(clock: Clock, languages: Languages, table: Table, step: Step[Any],
               meta: TableMeta, outbox: Sequence[OutboxDraft], cause: Cause,
               earned: Sequence[tuple[int, str]] = ()) -> Plan:
    """The plan of ``step`` on ``table`` (as committed). ``meta``: the record to commit
    with it, a copy of its own that the plan changes; ``outbox``: what the caller sends
    with the step; ``earned``: the achievements the coup it settles earns (player, key),
    kept with its result."""
    chat_id = table.chat_id
    drafts = [*outbox, *_record_before(table, step, meta, cause)]
    lang = await languages.of(chat_id)
    fresh, deadline = _decision(clock, table, step, meta, cause)
    sight = Sight(table.engine, step.state)
    awaited = set(sight.view().awaiting)
    if sight.private and (untold := awaited & set(meta.dm_blocked) - set(meta.hinted)):
        # the group's table tells him where his buttons are, this decision only
        meta.hinted = {**meta.hinted, **dict.fromkeys(untold, meta.decision)}
    readers = ({p for e in step.events for p in e.to or ()} | awaited | set(meta.prompts)
               | set(meta.ephemerals))
    langs = {p: await languages.of_player(p, lang) for p in readers}

    prompts, on_page, going_on, closed = _prompts(clock, table, sight, meta, fresh, awaited)
    settled, new_drafts = sends.step_drafts(
        lang, langs, table, step, sight, meta, cause.timed_out, prompts,
        {p: (r.message_id, r.digest) for p, r in going_on.items()},
        clock.drawn_due(meta) if awaited else None, app=clock.app_url(chat_id),
        on_page=on_page, earned=earned,
        in_app=clock.in_app(meta),
        elsewhere=bool(awaited) and awaited <= clock.told_elsewhere(chat_id, meta, sight))
    drafts += new_drafts
    coup, coups = booked_coups(step, settled)

    def outcome(p: int) -> Markup:
        """What became of ``p``'s decision, as his closed prompt or view says it; when the
        step settled the coup, with its result (his screen shows why he won or lost)."""
        line = screens.prompt_outcome(
            langs[p], p, cause.actor if cause.decided else None, cause.action,
            cause.timed_out, table.state.coup != step.state.coup, step.events, meta.names,
            game=table.game, coup=table.state.coup)
        return line if settled is None else sends.settled_outcome(
            langs[p], table.game, meta.last_result, meta.names, line)

    if meta.prompts:
        edited = {d.target: PromptEdit.of(d).digest for d in new_drafts
                  if d.kind == kinds.DM_EDIT}
        meta.prompts = {p: r.model_copy(update={"digest": edited[p]}) if p in edited
                        else r for p, r in going_on.items()}
        drafts += [sends.closed_prompt(langs[p], chat_id, table.sight, p, r.message_id,
                                       table.meta.coup_log, meta.names, outcome(p))
                   for p, r in closed.items()]
    if meta.ephemerals:  # a view shown in the group to one player: as his prompt is
        meta.ephemerals, edits = sends.ephemeral_drafts(
            langs, chat_id, sends.Moment.of(table), sends.Moment(
                sight, meta.coup_log, meta.names, meta.decision,
                clock.drawn_due(meta) if awaited else None, meta.last_result),
            meta.ephemerals, outcome)
        drafts += edits
    return Plan(meta, sight, drafts, deadline, coup, coups,
                holders_of(table.sight, step.transfers),
                settled_coups(table.game, meta.opened, clock.now(), step.events))


def settled_coups(game: str, opened: float, at: float,
                  events: Sequence[Event]) -> tuple[SettledCoup, ...]:
    """Each coup ``events`` settle (a :class:`~games.engine.Settlement`), as the standings
    count it: of ``game`` on the table opened at ``opened`` (the two name the coup in its
    chat), settled at ``at``, with the settlement's banker, nets, winners and feats, and its
    hands as JSON has them (``{"category", "ranks"}``, ``{"n", "bust"}``: without the
    value's type tag, the ranks a list), so that a coup read back from its record folds
    the same as the one committed."""
    return tuple(
        SettledCoup(game=game, coup=e.coup, opened=opened, settled_at=at, banker=e.banker,
                    nets=e.nets, winners=e.winners, feats=e.feats,
                    hands={p: h.model_dump(mode="json", exclude={"t"})
                           for p, h in e.hands.items()})
        for e in events if isinstance(e, Settlement))


def _record_before(table: Table, step: Step[Any], meta: TableMeta,
                   cause: Cause) -> list[OutboxDraft]:
    """What the step does to the record before anything is drawn: the count of decisions
    nobody took, and the asks to type an amount it ends (their prompts' ends to send)."""
    if cause.timed_out:  # one more decision nobody took (docs/rules.md §0.12, idle_close)
        meta.idle += 1
    elif cause.actor is not None:
        meta.idle = 0
    if not meta.asks:
        return []
    # an ask to type an amount is answered by his action, and ends with its phase
    same = (step.state.coup, step.state.phase) == (table.state.coup, table.state.phase)
    if cause.actor not in meta.asks and same:
        return []
    asked = meta.asks
    meta.asks = {p: a for p, a in meta.asks.items() if same and p != cause.actor}
    return sends.asks_over(table.chat_id, asked, meta.asks)


def _decision(clock: Clock, table: Table, step: Step[Any], meta: TableMeta,
              cause: Cause) -> tuple[bool, float | None]:
    """Whether the step begins a new decision (recorded in ``meta``, its clock not started),
    and the deadline it is committed with (None: nobody is awaited, or not yet shown)."""
    acted: set[int | None] = ({cause.actor, *cause.timed_out} if cause.decided
                              else set(cause.timed_out))
    fresh = clock.new_decision(table, step.state, acted)
    if fresh:
        # a new decision: its clock starts once every awaited player has been shown it
        meta.decision, meta.due = step.state.version, None
    elif not table.engine.awaiting(step.state):
        meta.due = None
    return fresh, clock.due_of(meta) if table.engine.awaiting(step.state) else None


def _prompts(clock: Clock, table: Table, sight: Sight, meta: TableMeta, fresh: bool,
             awaited: set[int]) -> tuple[frozenset[int], frozenset[int],
                                         dict[int, OpenPrompt], dict[int, OpenPrompt]]:
    """The turn prompts the step owes: whom to send one, whose open page shows his turn
    instead (:meth:`bot.table.clock.Clock.page_shows`, kept in ``meta``), the delivered
    prompts that go on with the decision (edited where they changed) and those that close
    (they lose their keyboards and say what became of their decision)."""
    prompts = clock.prompted(meta, sight)
    on_page = clock.page_shows(table.chat_id, meta, prompts)  # their open page shows it
    prompts -= on_page
    if not fresh:  # the decision goes on: a new prompt only where its buttons changed
        prompts = frozenset(p for p in prompts if _offer(table.sight, p) != _offer(sight, p))
    going_on = {p: r for p, r in meta.prompts.items()
                if r.decision == meta.decision and p in awaited and p not in meta.dm_blocked}
    closed = {p: r for p, r in meta.prompts.items() if p not in going_on}
    return prompts - set(going_on), on_page, going_on, closed


def booked_coups(step: Step[Any], settled: int | None) -> tuple[int, list[int]]:
    """The coup a step's chips are booked under (and /history shows them under): the coup
    it settles, if it settles one, else the coup the table is in after it, so a bank posted
    or antes paid for a coup about to begin are that coup's, not the one before (nor a coup
    #0). A step that settles a coup and deals the next (poker's next antes) books what came
    after the settlement under the next: the per-transfer coups, or none when one coup
    takes them all."""
    if settled is None:
        return step.state.coup, []
    after = len(step.transfers) - (step.settled if step.settled is not None
                                   else len(step.transfers))
    if not after or step.state.coup == settled:
        return settled, []
    return settled, [settled] * (len(step.transfers) - after) + [step.state.coup] * after


def holders_of(sight: Sight, transfers: Sequence[Transfer]) -> list[int | None]:
    """Whose each transfer's bank side is (see :func:`games.banking.bank_holders`), the banker
    before the step being the seat the table showed as the banker; empty when no transfer
    touches a bank."""
    banker = next((s.player for s in sight.view().seats if s.role == "banker"), None)
    holders = bank_holders(transfers, banker)
    return holders if any(h is not None for h in holders) else []


def _offer(sight: Sight, player: int) -> tuple[Any, ...]:
    """What a player's decision offers him (his legal actions but the utilities, which do
    not make a decision), to tell when it changes."""
    try:
        return tuple(s for s in sight.legal(player) if s.kind not in keyboards.UTILITIES)
    except IllegalAction:
        return ()
