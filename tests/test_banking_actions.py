"""The actions the four banking games share are defined once (games.banking), and no
amount of 0 chips is ever taken.

A game keeps a class of its own under a shared kind only where the action differs
(banchok's stake may forbid joining). Every stake, bid, bank or joined part is at
least 1 chip in every banking game (each minimum is at least 1, docs/rules.md §1–§4),
so a 0 is refused as it is parsed, with ``Reason.AMOUNT_OUT_OF_RANGE``, the reason
the engines gave it before.
"""

from __future__ import annotations

import pytest
from test_games_contract import PLAYERS, session

from games import registry
from games.banking import Bid, Decline, Draw, Pass, Retire, Stake, Stand
from games.engine import Action, IllegalAction, Reason, parse_action

BANKING = ("baccarat", "banchok", "chemin_de_fer", "twenty_one")

SHARED: tuple[type[Action], ...] = (Bid, Pass, Stake, Draw, Stand, Retire, Decline)

#: game -> the kinds it takes from games.banking
USES: dict[str, set[str]] = {
    "baccarat": {"bid", "pass", "stake", "draw", "stand", "retire", "decline"},
    "chemin_de_fer": {"bid", "pass", "stake", "draw", "stand", "retire", "decline"},
    "banchok": {"decline"},
    "twenty_one": {"stake", "pass", "stand"},
}


def kind_of(cls: type[Action]) -> str:
    default = cls.model_fields["kind"].default
    assert isinstance(default, str)
    return default


def amount_kinds(game: str) -> list[str]:
    engine = registry.engine(game)
    return sorted(k for k, cls in engine.action_types.items() if "amount" in cls.model_fields)


@pytest.mark.parametrize("game", BANKING)
def test_the_shared_actions_are_the_same_classes_in_every_game(game: str) -> None:
    engine = registry.engine(game)
    shared = {kind_of(cls): cls for cls in SHARED}
    for kind in USES[game]:
        assert engine.action_types[kind] is shared[kind], (game, kind)
    # no copy under a shared kind: a game's own class there has other fields
    for kind, cls in engine.action_types.items():
        if kind in shared and cls is not shared[kind]:
            assert set(cls.model_fields) != set(shared[kind].model_fields), (game, kind)


def test_a_stake_is_one_class_where_it_is_the_same_action() -> None:
    stakes = {game: registry.engine(game).action_types["stake"] for game in BANKING}
    assert stakes["baccarat"] is stakes["chemin_de_fer"] is stakes["twenty_one"] is Stake
    assert stakes["banchok"] is not Stake  # it may forbid joining (docs/rules.md §3.6)
    assert set(stakes["banchok"].model_fields) == {"kind", "amount", "forbid_joining"}


@pytest.mark.parametrize("game", BANKING)
def test_a_zero_stake_is_refused_as_out_of_range(game: str) -> None:
    engine = registry.engine(game)
    for bad in (0, -1):
        with pytest.raises(IllegalAction) as err:
            parse_action(engine, {"kind": "stake", "amount": bad})
        assert err.value.reason == Reason.AMOUNT_OUT_OF_RANGE
    assert parse_action(engine, {"kind": "stake", "amount": 1}) \
        == engine.action_types["stake"].model_validate({"amount": 1})


@pytest.mark.parametrize(("game", "kind"),
                         [(g, k) for g in BANKING for k in amount_kinds(g)])
def test_no_amount_of_zero_chips_is_taken(game: str, kind: str) -> None:
    engine = registry.engine(game)
    with pytest.raises(IllegalAction) as err:
        parse_action(engine, {"kind": kind, "amount": 0})
    assert err.value.reason == Reason.AMOUNT_OUT_OF_RANGE


@pytest.mark.parametrize("game", BANKING)
def test_every_amount_offered_is_at_least_one_chip(game: str) -> None:
    # what makes gt=0 right: no legal action ever asks for less than 1 chip
    engine = registry.engine(game)
    kinds = set(amount_kinds(game))
    offered: set[str] = set()
    for _, step in session(game, seed=11, steps=1500):
        for p in PLAYERS:
            for spec in engine.legal_actions(step.state, p):
                if spec.kind in kinds:
                    offered.add(spec.kind)
                    assert spec.min is not None and spec.min >= 1, (game, spec)
    assert offered == kinds  # every amount action was offered, and checked
