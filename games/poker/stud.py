"""Five-card stud (docs/rules.md §5b), on pokerkit.

1. No ante by default (setting ``ante``). One hole card face down, one up.
2. Four betting rounds; after each, one more card face up, until every
   active player has one hole card and four up cards.
3. Each round is opened by the best combination of up cards (only the up
   cards count; on equal combinations the seat nearest the dealer's left).
   Before anyone bets a player may check; after a bet: call, raise or fold.
4. From the second up card on, each hand's showing value ("pair of queens")
   and possible straights/flushes are announced.
5. Folding turns the up cards down (the view stops showing them); the hole
   card is never shown. One player left wins without showing.
6. Small bet in rounds 1-2, big bet in rounds 3-4, and in round 2 when an
   open pair shows.

The opener and the open-pair big bet are where pokerkit's stud differs from
these rules; :mod:`games.poker.kit` overrides both, and carries the no-ante
case past pokerkit's "some forced bet" check (``ZeroAnte``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from games.engine import (
    Achievement,
    GameTexts,
    PlayerId,
    SeatView,
    TableView,
    Value,
    items,
    public,
    who,
)
from games.engine import cards as show
from games.poker.common import HAND_ACHIEVEMENTS, Ctx, PokerEngine, PokerState
from games.poker.kit import BancoKitState
from games.poker.ranking import hand_of_cards, possible_hands, showing_hand
from games.table import seat_index
from games.texts import game_texts


class StudPokerEngine(PokerEngine):
    """Five-card stud: one hole card, four up cards, four betting rounds."""

    name: ClassVar[str] = "stud_poker"
    texts: ClassVar[GameTexts] = game_texts("stud_poker")
    max_players: ClassVar[int] = 10
    variant: ClassVar[Literal["draw", "stud"]] = "stud"
    default_ante: ClassVar[int] = 0
    achievements: ClassVar[tuple[Achievement, ...]] = (
        Achievement(key="showdown_won", icon="🃏", feat="showdown_won"),
        Achievement(key="showdowns_25", icon="🏆", feat="showdown_won", count=25),
        *HAND_ACHIEVEMENTS)
    rated: ClassVar[bool] = True
    """Its hands count in the chat's poker rating (:mod:`storage.ratings`)."""

    def _deal_due(self, s: PokerState, kit: BancoKitState, ctx: Ctx) -> None:
        self._deal_next(s, kit, ctx)
        assert s.kit is not None
        index = kit.hole_dealee_index
        # a dealing round is over when pokerkit waits for no more cards
        if index is None:
            self._announce(s, ctx)

    @staticmethod
    def _announce(s: PokerState, ctx: Ctx) -> None:
        # docs/rules.md §5b.4: from the second up card on, say what each hand shows
        assert s.kit is not None
        for player in s.kit.players:
            seat = s.seats[seat_index(s.seats, player)]
            up = seat.cards[1:]
            if seat.folded or len(up) < 2:
                continue
            ctx.events.append(public("showing", player=who(player), cards=show(*up),
                                     value=showing_hand(up).typed(),
                                     possible=items(*(p.typed() for p in possible_hands(up)))))

    def view(self, state: PokerState, viewer: PlayerId | None) -> TableView:
        """Up cards of live hands face up; the hole card only to its holder."""
        waiting = self.awaiting(state)
        turn = waiting[0] if waiting else None
        seats = []
        mine: tuple[str, ...] = ()
        my_facts: dict[str, Value] = {}
        for seat in state.seats:
            live = seat.in_hand and not seat.folded
            up = tuple(seat.cards[1:]) if live else ()
            seats.append(SeatView(
                player=seat.player, name=seat.name, stack=seat.stack, stake=seat.bet,
                face_up=up, face_down=1 if live and seat.cards else 0,
                role="dealer" if seat.player == state.button else "",
                status=self._status(state, seat, turn)))
            if live and seat.player == viewer and seat.cards:
                mine = (seat.cards[0],)
                # what his hole card and up cards make, for him alone (his DM or pop-up)
                my_facts["hand"] = hand_of_cards(seat.cards).typed()
        return TableView(game=self.name, version=state.version, coup=state.coup,
                         phase=state.phase, viewer=viewer, seats=tuple(seats), my_cards=mine,
                         pot=self._middle(state), awaiting=tuple(waiting),
                         facts=self._facts(state), my_facts=my_facts, shoe=self._shoe(state))


ENGINE = StudPokerEngine()
