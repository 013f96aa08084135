"""Small armies and a driver that plays the set-up, for 10th-edition battle tests."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest

from app.engine.match.errors import Refusal
from app.engine.match.events import Event
from app.engine.match.missions import MISSIONS_DIR, Mission, load_mission_file
from app.engine.wh40k10e.battle import (
    Ability,
    ArmySpec,
    Battle,
    BattleOptions,
    Formation,
    MatchSetup,
    ReserveKind,
    Seat,
    UnitSpec,
)
from app.engine.wh40k10e.battle.commands import (
    Command,
    DeclareFormations,
    DeployUnit,
    EndScouts,
    PlaceObjective,
    RollOff,
    ScoutMove,
)
from app.engine.wh40k10e.battle.state import (
    BattleState,
    ChargeInProgress,
    Location,
    Phase,
    Result,
    Stage,
    UnitState,
)


def with_changes(army: ArmySpec, **changes: dict[str, object]) -> ArmySpec:
    """``army`` with some units' fields changed (``unit_id={"field": value}``)."""
    units = tuple(
        dataclasses.replace(u, **changes[u.id.replace("-", "_")])  # type: ignore[arg-type]
        if u.id.replace("-", "_") in changes
        else u
        for u in army.units
    )
    return ArmySpec(army.name, units, army.faction)


def unit(
    uid: str,
    name: str,
    *,
    models: int = 5,
    wounds: int = 1,
    oc: int = 2,
    ld: int = 6,
    points: int = 100,
    keywords: Sequence[str] = ("INFANTRY",),
    abilities: Sequence[Ability] = (),
    **extra: Any,
) -> UnitSpec:
    return UnitSpec(
        id=uid,
        name=name,
        datasheet=extra.pop("datasheet", name),
        models=models,
        wounds=wounds,
        oc=oc,
        leadership=ld,
        points=points,
        keywords=frozenset(keywords),
        abilities=frozenset(abilities),
        **extra,
    )


def marines() -> ArmySpec:
    return ArmySpec(
        "Ultramarines",
        (
            unit(
                "a-int",
                "Intercessors",
                models=5,
                wounds=2,
                oc=2,
                ld=6,
                points=90,
                keywords=("INFANTRY", "GRENADES"),
            ),
            unit(
                "a-cap",
                "Captain",
                models=1,
                wounds=5,
                oc=1,
                ld=6,
                points=80,
                keywords=("INFANTRY", "CHARACTER"),
                leads=("Intercessors",),
            ),
            unit(
                "a-term",
                "Terminators",
                models=5,
                wounds=3,
                oc=1,
                ld=6,
                points=200,
                abilities=(Ability.DEEP_STRIKE,),
            ),
            unit("a-hell", "Hellblasters", models=5, wounds=2, oc=2, ld=6, points=115),
            unit(
                "a-rhino",
                "Rhino",
                models=1,
                wounds=10,
                oc=2,
                ld=6,
                points=75,
                keywords=("VEHICLE", "TRANSPORT", "DEDICATED TRANSPORT", "SMOKE"),
                transport_capacity=6,
                toughness=9,
            ),
            unit(
                "a-tac",
                "Tactical Squad",
                models=5,
                wounds=2,
                oc=2,
                ld=6,
                points=90,
                abilities=(Ability.PISTOLS,),
            ),
        ),
        faction="Adeptus Astartes",
    )


def orks() -> ArmySpec:
    return ArmySpec(
        "Waaagh",
        (
            unit(
                "b-boyz",
                "Boyz",
                models=10,
                wounds=1,
                oc=2,
                ld=7,
                points=80,
                toughness=5,
                keywords=("INFANTRY", "GRENADES"),
            ),
            unit("b-nobz", "Nobz", models=5, wounds=2, oc=2, ld=7, points=105, toughness=5),
            unit(
                "b-komm",
                "Kommandos",
                models=5,
                wounds=1,
                oc=1,
                ld=7,
                points=60,
                scouts=6,
                abilities=(Ability.INFILTRATORS,),
            ),
            unit(
                "b-wagon",
                "Battlewagon",
                models=1,
                wounds=16,
                oc=5,
                ld=7,
                points=160,
                keywords=("VEHICLE", "TRANSPORT"),
                transport_capacity=22,
                toughness=10,
            ),
            unit(
                "b-dakka",
                "Dakkajet",
                models=1,
                wounds=9,
                oc=0,
                ld=7,
                points=130,
                keywords=("VEHICLE", "AIRCRAFT", "FLY"),
            ),
        ),
        faction="Orks",
    )


DEFAULT_FORMATIONS = {
    "A": Formation(embarked=(("a-tac", "a-rhino"),)),
    "B": Formation(reserves=(("b-dakka", ReserveKind.AIRCRAFT),)),
}


class Table:
    """A battle plus shortcuts: play the set-up, send commands, expect refusals."""

    def __init__(self, battle: Battle) -> None:
        self.battle = battle
        self.seed = 1000

    @property
    def state(self) -> BattleState:
        return self.battle.state

    def do(self, seat: str, cmd: Command, dice: Sequence[int] | None = None) -> list[Any]:
        self.seed += 1
        return self.battle.execute(
            cmd, seat, seed=None if dice is not None else self.seed, dice=dice
        )

    def refused(
        self, seat: str, cmd: Command, code: str, dice: Sequence[int] | None = None
    ) -> Refusal:
        version = self.battle.version
        before = self.battle.state
        with pytest.raises(Refusal) as info:
            self.battle.execute(cmd, seat, seed=1, dice=dice)
        assert info.value.code == code, info.value.message
        assert info.value.message
        assert self.battle.version == version
        assert self.battle.state is before
        return info.value

    def unit(self, uid: str) -> UnitState:
        return self.state.units[uid]

    def check_replay(self) -> None:
        """The state is the replay of the log, and the JSON round trip replays to it too."""
        assert Battle(self.battle.envelopes).state == self.battle.state
        text = self.battle.export_json()
        again = Battle.import_log(json.loads(text))
        assert again.state == self.battle.state
        assert again.export_json() == text


def play_setup(
    t: Table,
    formations: dict[str, Formation] | None = None,
    *,
    attacker: str = "A",
    first: str = "A",
    scouts: bool = False,
) -> None:
    """Roll-offs by hand, objectives placed, formations declared, everything deployed."""
    formations = {**DEFAULT_FORMATIONS, **(formations or {})}
    t.do("A", RollOff(), dice=[6, 1])  # A places the first objective
    for i in range(4):
        t.do("A" if i % 2 == 0 else "B", PlaceObjective())
    t.do("A", RollOff(), dice=[6, 1] if attacker == "A" else [1, 6])
    t.do("A", DeclareFormations(formations.get("A", Formation())))
    assert stage(t) is Stage.DECLARE_FORMATIONS
    t.do("B", DeclareFormations(formations.get("B", Formation())))
    while stage(t) is Stage.DEPLOY:
        deployer = t.state.next_seat
        assert deployer is not None
        todo = sorted(
            u.id
            for u in t.state.units_of(deployer)
            if u.location is Location.TO_DEPLOY and u.bodyguard is None
        )
        t.do(str(deployer), DeployUnit(todo[0]))
    t.do("A", RollOff(), dice=[6, 1] if first == "A" else [1, 6])
    while stage(t) is Stage.SCOUTS:
        scout = t.state.next_seat
        assert scout is not None
        if scouts:
            from app.engine.wh40k10e.battle.flow import scout_units

            t.do(str(scout), ScoutMove(scout_units(t.state, scout)[0]))
        else:
            t.do(str(scout), EndScouts())
    assert stage(t) is Stage.BATTLE


def make_table(
    mission: Mission,
    a: ArmySpec | None = None,
    b: ArmySpec | None = None,
    size: str = "strike_force",
    options: BattleOptions | None = None,
) -> Table:
    setup = MatchSetup(
        {Seat.A: a or marines(), Seat.B: b or orks()}, size, mission, options or BattleOptions()
    )
    return Table(Battle.create(setup))


def only_war_mission() -> Mission:
    return load_mission_file(MISSIONS_DIR / "only-war.json")


def goto(t: Table, seat: str, phase: str, round_: int | None = None) -> None:
    """End phases (passing reaction windows, taking Battle-shock tests on 6+6) until it is
    ``seat``'s ``phase`` (in battle round ``round_`` if given)."""
    from app.engine.wh40k10e.battle.commands import BattleShockTest, EndPhase, Pass
    from app.engine.wh40k10e.battle.rules import shock_tests_pending

    for _ in range(200):
        s = t.state
        if (
            str(s.active) == seat
            and str(s.phase) == phase
            and (round_ is None or s.round == round_)
        ):
            return
        if s.window is not None:
            t.do(str(s.window), Pass())
            continue
        if s.coherency:
            confirm_coherency(t)
            continue
        active = str(s.active)
        for u in shock_tests_pending(s):
            t.do(active, BattleShockTest(u), dice=[6, 6])
        if s.fight is not None:
            from app.engine.wh40k10e.battle.commands import Consolidate, Fight
            from app.engine.wh40k10e.battle.eligibility import fight_candidates, fight_turn

            step, seat_next = fight_turn(s)
            if seat_next is not None:
                unit_id = s.fight.next_unit or fight_candidates(s, seat_next, step)[0]
                t.do(str(s.units[unit_id].owner), Fight(unit_id))
                t.do(str(s.units[unit_id].owner), Consolidate(unit_id))
                continue
        t.do(active, EndPhase())
    raise AssertionError(f"never reached {seat} {phase}")


# Read through calls, so that the type checker does not narrow a value the next command changes.
def confirm_coherency(t: Table, *seats: str) -> None:
    """The end-of-turn coherency check answered with no model removed, by ``seats`` (every
    seat it waits for if none is named)."""
    from app.engine.wh40k10e.battle.commands import ConfirmCoherency

    for seat in seats or [str(x) for x in t.state.coherency]:
        t.do(seat, ConfirmCoherency())


def stage(t: Table) -> Stage:
    return t.state.stage


def phase(t: Table) -> Phase | None:
    return t.state.phase


def active(t: Table) -> Seat | None:
    return t.state.active


def result(t: Table) -> Result:
    """The result of an ended battle."""
    assert t.state.result is not None
    return t.state.result


def charge(t: Table) -> ChargeInProgress:
    assert t.state.charge is not None
    return t.state.charge


E = TypeVar("E", bound=Event)


def events(t: Table, cls: type[E]) -> list[E]:
    """The events of one type in the log, in order."""
    return [e.event for e in t.battle.envelopes if isinstance(e.event, cls)]
