"""Declare Battle Formations: secret until both are in, then revealed; every problem reported.

[L4453-4485] (secret, then revealed), [L3146-3164] Deep Strike, [L3211-3255] Leader,
[L3541-3598] Strategic Reserves (25% of the battle size: 250/500/750), [L4053-4062] Aircraft,
[L1214-1217] embarked units, [L4346-4353] Dedicated Transports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.match.missions import Mission
from app.engine.wh40k10e.battle import Ability, ArmySpec, Formation, ReserveKind, Seat
from app.engine.wh40k10e.battle.commands import (
    DeclareFormations,
    DeployUnit,
    PlaceObjective,
    RollOff,
)
from app.engine.wh40k10e.battle.formations import check_formation, strategic_reserve_cap
from app.engine.wh40k10e.battle.state import Location, Stage
from tests.engine.wh40k10e.battle.table import Table, marines, orks, stage, unit

SECRET_A = Formation(
    attachments=(("a-cap", "a-int"),),
    embarked=(("a-tac", "a-rhino"),),
    reserves=(("a-term", ReserveKind.DEEP_STRIKE), ("a-hell", ReserveKind.STRATEGIC)),
)
OTHER_A = Formation(embarked=(("a-hell", "a-rhino"),))


def to_formations(t: Table) -> None:
    t.do("A", RollOff(), dice=[6, 1])
    for i in range(4):
        t.do("A" if i % 2 == 0 else "B", PlaceObjective())
    t.do("A", RollOff(), dice=[6, 1])
    assert stage(t) is Stage.DECLARE_FORMATIONS


def problems_of(exc: Refusal) -> set[str]:
    problems = exc.details["problems"]
    assert isinstance(problems, list)
    return {p["code"] for p in problems}


def test_opponent_sees_nothing_of_a_secret_formation(new_table: Callable[..., Table]) -> None:
    views = {}
    for name, formation in (("secret", SECRET_A), ("other", OTHER_A)):
        t = new_table()
        to_formations(t)
        t.do("A", DeclareFormations(formation))
        for viewer in ("B", None):
            view = json.dumps(t.battle.view(viewer), sort_keys=True)
            log = json.dumps(t.battle.log_json(viewer), sort_keys=True)
            views[name, viewer] = (view, log)
            # the secret values are absent, not masked
            for needle in (
                '"reserve": "',
                '"location": "reserves"',
                '"location": "embarked"',
                '"leader": "',
                '"bodyguard": "',
                "formation_declared",
                "attachments",
                "my_formation",
                '"a-cap", "a-int"',
            ):
                assert needle not in view, needle
                assert needle not in log, needle
        own = t.battle.view("A")
        assert own["my_formation"]["embarked"][0] == [*formation.embarked[0]]
        assert any(e["event"]["type"] == "formation_declared" for e in t.battle.log_json("A"))
    # non-interference: what B (or a spectator) sees does not depend on A's secret at all
    assert views["secret", "B"] == views["other", "B"]
    assert views["secret", None] == views["other", None]


def test_resubmitting_is_secret_too_and_the_reveal_shows_the_last_one(
    new_table: Callable[..., Table],
) -> None:
    t = new_table()
    to_formations(t)
    t.do("A", DeclareFormations(OTHER_A))
    t.do("A", DeclareFormations(SECRET_A))  # a change of mind leaves no public trace
    public = [e["event"]["type"] for e in t.battle.log_json("B")]
    assert public.count("formation_submitted") == 1
    t.refused("A", DeployUnit("a-int"), "formations_not_revealed")
    t.do("B", DeclareFormations(Formation(reserves=(("b-dakka", ReserveKind.AIRCRAFT),))))
    s = t.state
    assert s.revealed
    assert s.stage is Stage.DEPLOY
    revealed = s.formations[Seat.A]
    assert set(revealed.reserves) == set(SECRET_A.reserves)
    assert (revealed.attachments, revealed.embarked) == (SECRET_A.attachments, SECRET_A.embarked)
    view = t.battle.view("B")
    assert view["formations"]["A"]["reserves"] == [
        ["a-hell", "strategic"],
        ["a-term", "deep_strike"],
    ]
    assert s.units["a-term"].location is Location.RESERVES
    assert s.units["a-tac"].location is Location.EMBARKED
    assert s.units["a-int"].leader == "a-cap"
    t.refused("A", DeclareFormations(OTHER_A), "formations_already_revealed")
    t.refused("A", DeployUnit("a-term"), "not_deployable")
    # the private declaration cannot be undone; the reveal is a barrier
    from app.engine.wh40k10e.battle.commands import Undo

    t.refused("B", Undo(), "cannot_undo")
    t.check_replay()


def test_every_problem_of_a_formation_is_reported_at_once(new_table: Callable[..., Table]) -> None:
    t = new_table()
    to_formations(t)
    bad = Formation(
        attachments=(("a-int", "a-hell"), ("a-cap", "a-term")),  # not a leader / not a bodyguard
        embarked=(("a-term", "a-hell"), ("a-int", "zzz")),  # not a transport / unknown unit
        reserves=(("a-hell", ReserveKind.DEEP_STRIKE), ("a-int", ReserveKind.AIRCRAFT)),
    )
    exc = t.refused("A", DeclareFormations(bad), "invalid_formation")
    assert problems_of(exc) == {
        "not_a_leader",
        "not_a_bodyguard",
        "not_a_transport",
        "unknown_unit",
        "no_deep_strike",
        "not_aircraft",
    }
    assert exc.kind == "rules"
    assert not t.state.players[Seat.A].formation_submitted


def test_aircraft_must_start_in_reserves_unless_hovering(only_war: Mission) -> None:
    from app.engine.wh40k10e.battle import MatchSetup

    setup = MatchSetup({Seat.A: marines(), Seat.B: orks()}, "strike_force", only_war)
    _, problems = check_formation(setup, Seat.B, Formation())
    assert [p["code"] for p in problems] == ["aircraft_must_start_in_reserves"]
    _, problems = check_formation(setup, Seat.B, Formation(hover=("b-dakka",)))
    assert [p["code"] for p in problems] == ["cannot_hover"]  # no Hover ability
    _, problems = check_formation(
        setup, Seat.B, Formation(reserves=(("b-dakka", ReserveKind.AIRCRAFT),))
    )
    assert problems == []


@pytest.mark.parametrize(
    ("size", "cap"), [("incursion", 250), ("strike_force", 500), ("onslaught", 750)]
)
def test_strategic_reserves_cap_is_a_quarter_of_the_battle_size(
    only_war: Mission, size: Any, cap: Any
) -> None:
    """[L3565-3591]: 250 / 500 / 750 points; units embarked in a Transport in Strategic
    Reserves count; a formation at the cap passes, one point over fails."""
    from app.engine.wh40k10e.battle import MatchSetup

    for extra, ok in ((0, True), (1, False)):
        a = ArmySpec(
            "x",
            (
                unit(
                    "t",
                    "Truck",
                    models=1,
                    wounds=8,
                    points=cap - 100,
                    keywords=("VEHICLE", "TRANSPORT"),
                    transport_capacity=10,
                ),
                unit("p", "Passengers", models=5, points=100 + extra),
                unit("h", "Hero", models=1, points=10, keywords=("CHARACTER",)),
            ),
        )
        setup = MatchSetup({Seat.A: a, Seat.B: orks()}, size, only_war)
        assert strategic_reserve_cap(setup) == cap
        formation = Formation(embarked=(("p", "t"),), reserves=(("t", ReserveKind.STRATEGIC),))
        _, problems = check_formation(setup, Seat.A, formation)
        assert ([p["code"] for p in problems] == []) is ok, (size, extra, problems)
        if not ok:
            assert problems[0]["code"] == "strategic_reserves_cap"


def test_leaders_and_transports(only_war: Mission) -> None:
    from app.engine.wh40k10e.battle import MatchSetup

    army = ArmySpec(
        "x",
        (
            unit("cap", "Captain", models=1, keywords=("CHARACTER",), leads=("Squad",)),
            unit("lt", "Lieutenant", models=1, keywords=("CHARACTER",), leads=("Squad",)),
            unit("sq", "Squad", models=10),
            unit("sq2", "Squad", models=5, datasheet="Squad"),
            unit("rh", "Rhino", models=1, keywords=("TRANSPORT",), transport_capacity=10),
            unit("ds", "Drop", models=5, abilities=(Ability.DEEP_STRIKE,)),
            unit("fort", "Bunker", models=1, keywords=("FORTIFICATION",)),
        ),
    )
    setup = MatchSetup({Seat.A: army, Seat.B: orks()}, "strike_force", only_war)

    def codes(f: Formation) -> list[str]:
        return [p["code"] for p in check_formation(setup, Seat.A, f)[1]]

    assert codes(Formation(attachments=(("cap", "sq"), ("lt", "sq")))) == ["bodyguard_taken"]
    assert codes(Formation(attachments=(("cap", "sq"), ("cap", "sq2")))) == ["leader_twice"]
    # a Leader follows its Bodyguard into the Transport: 10 + 1 > 10
    normalized, problems = check_formation(
        setup, Seat.A, Formation(attachments=(("cap", "sq"),), embarked=(("sq", "rh"),))
    )
    assert ("cap", "rh") in normalized.embarked
    assert [p["code"] for p in problems] == ["transport_full"]
    assert codes(Formation(embarked=(("sq2", "rh"), ("cap", "rh")))) == []
    assert codes(Formation(embarked=(("rh", "rh"),))) == ["transport_in_transport"]
    assert codes(Formation(reserves=(("fort", ReserveKind.STRATEGIC),))) == [
        "fortification_in_reserves"
    ]
    # Deep Strike only if every model of the (Attached) unit has it [L3152-3154]
    assert codes(Formation(reserves=(("ds", ReserveKind.DEEP_STRIKE),))) == []
    assert (
        codes(Formation(attachments=(("cap", "sq2"),), reserves=(("sq2", ReserveKind.STRATEGIC),)))
        == []
    )
    normalized, _ = check_formation(
        setup,
        Seat.A,
        Formation(attachments=(("cap", "sq2"),), reserves=(("sq2", ReserveKind.STRATEGIC),)),
    )
    assert ("cap", ReserveKind.STRATEGIC) in normalized.reserves
    assert codes(
        Formation(
            attachments=(("cap", "sq2"),),
            reserves=(("sq2", ReserveKind.STRATEGIC), ("cap", ReserveKind.DEEP_STRIKE)),
        )
    )[:1] == ["attached_split"]


def test_empty_dedicated_transport_is_held_back_then_destroyed_in_round_1(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, {"A": Formation()})  # the Rhino carries nobody
    assert not t.unit("a-rhino").alive
    events = [e["event"] for e in t.battle.log_json("B")]
    destroyed = [e for e in events if e["type"] == "units_destroyed"]
    assert destroyed == [
        {"type": "units_destroyed", "units": ["a-rhino"], "cause": "empty_dedicated_transport"}
    ]
