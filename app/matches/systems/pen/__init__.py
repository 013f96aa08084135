"""PEN as a match (ADR 0013): ``PenBattle`` or, for the Dynamics turn structure,
``DynamicsBattle`` (both through :class:`PenMatch`), the PEN missions of ``data/missions/pen``
(§3.2-§3.3 of the PEN rules), army snapshots from the PEN unit editor's lists (or a guest's
pasted PEN army), and no combat-in-match hooks: the battle resolves its own shooting and
assaults from the tracked state.

The match option ``turn_structure`` (issue 14) chooses how the turns are played: ``classic``
(the default: each player's turn in its phases), ``alternation`` (the set-up option of §3.5,
the PEN battle engine's own) or ``dynamics`` (the Dynamics common turn with hidden orders,
rules/dynamics.md)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from app.core.errors import InvalidInput
from app.engine.dynamics import (
    EVENT_CODEC,  # the PEN battle's events and the common turn's
    DynamicsSetup,
)
from app.engine.dynamics.events import DynamicsCreated
from app.engine.match import Mission
from app.engine.match.game import MatchGame
from app.engine.match.missions import MISSIONS_DIR, load_missions
from app.engine.match.seats import Seat
from app.engine.pen import SYSTEM_ID
from app.engine.pen.battle import BattleSetup
from app.engine.pen.battle.events import BattleCreated
from app.matches.exceptions import InvalidLog
from app.matches.systems import GuestArmies, Imported, MatchSystem, SetupInput
from app.matches.systems.pen import armies
from app.matches.systems.pen.game import TURN_STRUCTURES, PenMatch, structure_of

__all__ = ["SYSTEM", "TURN_STRUCTURES", "PenMatch"]


@cache
def missions() -> dict[str, Mission]:
    """The PEN missions shipped as data (``data/missions/pen``), by id."""
    found = load_missions(MISSIONS_DIR / "pen")
    return {k: m for k, m in found.items() if m.rule_system == SYSTEM_ID}


DYNAMICS_OPTIONS = ("pilots", "plus_two", "tokens_per_type")
# the new-match form's two selects for ``pilots`` (a select posts one value): seat -> option
FORM_PILOTS = {"pilot_a": "A", "pilot_b": "B"}


def parse_options(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """A PEN match's options: ``turn_structure``, one of :data:`TURN_STRUCTURES` (default
    ``classic``); with ``dynamics``, also ``pilots`` (``{"A": 1-10, "B": 1-10}``: the
    Initiative of each army's non-walker vehicles, 3 when not given [L197]) and ``plus_two``
    (``"A"``, ``"B"`` or ``""``: the seat whose role would begin the battle, +2 on the
    advantage tests [L140]) and ``tokens_per_type`` (``{"A": n, "B": n}``: the tokens of each
    order each player has, checked against 5 per 250 points [L47] and at each lock; unset: not
    checked); ``pilot_a`` / ``pilot_b`` (the new-match form's selects, "1" to "10") are one
    seat's entry of ``pilots`` each; otherwise also ``confirm_result`` (``true``: the battle ends
    when both players have confirmed the objectives reported, pen rulings B18). Anything
    else is a 422 naming the field."""
    raw = raw or {}
    structure = raw.get("turn_structure", "classic")
    allowed = {
        "turn_structure",
        *(DYNAMICS_OPTIONS + tuple(FORM_PILOTS) if structure == "dynamics" else ()),
        *(() if structure == "dynamics" else ("confirm_result",)),
    }
    errors = [
        {"field": f"options.{k}", "message": "not an option of this PEN match", "type": "extra"}
        for k in sorted(raw)
        if k not in allowed
    ]
    if structure not in TURN_STRUCTURES:
        errors.append(
            {
                "field": "options.turn_structure",
                "message": f"one of {', '.join(TURN_STRUCTURES)}",
                "type": "enum",
            }
        )
    out: dict[str, Any] = {"turn_structure": structure}
    if "confirm_result" in raw and "confirm_result" in allowed:
        confirm = raw["confirm_result"]
        if confirm in ("1", "0"):  # the new-match form's select
            confirm = confirm == "1"
        if type(confirm) is not bool:
            errors.append(
                {"field": "options.confirm_result", "message": "true or false", "type": "value"}
            )
        out["confirm_result"] = confirm is True
    if structure == "dynamics":
        pilots = raw.get("pilots", {})
        if not isinstance(pilots, Mapping) or any(
            k not in ("A", "B") or type(v) is not int or not 1 <= v <= 10 for k, v in pilots.items()
        ):
            errors.append(
                {
                    "field": "options.pilots",
                    "message": "seat A and/or B, each an Initiative from 1 to 10",
                    "type": "value",
                }
            )
        plus_two = raw.get("plus_two", "")
        if plus_two not in ("", "A", "B"):
            errors.append({"field": "options.plus_two", "message": "A, B or empty", "type": "enum"})
        chosen = dict(pilots) if isinstance(pilots, Mapping) else {}
        for name, seat in FORM_PILOTS.items():
            if name not in raw:
                continue
            value = raw[name]
            if isinstance(value, str) and value.isascii() and value.isdecimal() and len(value) <= 2:
                value = int(value)  # the form's select
            if type(value) is not int or not 1 <= value <= 10:
                errors.append(
                    {
                        "field": f"options.{name}",
                        "message": "an Initiative from 1 to 10",
                        "type": "value",
                    }
                )
            else:
                chosen[seat] = value
        out |= {"pilots": chosen}
        out |= {"plus_two": plus_two}
        tokens = raw.get("tokens_per_type")
        if tokens is not None:  # the optional token-supply check [L47]
            if (
                not isinstance(tokens, Mapping)
                or set(tokens) != {"A", "B"}
                or any(type(v) is not int or not 1 <= v <= 99 for v in tokens.values())
            ):
                errors.append(
                    {
                        "field": "options.tokens_per_type",
                        "message": "seats A and B, each the tokens of each order it has (1-99)",
                        "type": "value",
                    }
                )
            else:
                out |= {"tokens_per_type": dict(tokens)}
    if errors:
        raise InvalidInput("These are not options of a PEN match.", errors=errors)
    return out


def new_setup(given: SetupInput) -> BattleSetup | DynamicsSetup:
    """The PEN set-up of the mission and the two lists; wrapped in a Dynamics set-up when the
    match plays the Dynamics turn, with the pilots and the +2 seat of the options (no transport
    nor escort declared: the defaults of docs/rulings/dynamics.md)."""
    options = given.mission.options
    structure = given.options.get("turn_structure", "classic")
    battle = BattleSetup(
        (
            armies.army_spec(given.armies[Seat.A], Seat.A),
            armies.army_spec(given.armies[Seat.B], Seat.B),
        ),
        points_limit=given.points,
        objectives=len(given.mission.objectives.markers),
        zones=int(options.get("zones") or 0),  # type: ignore[call-overload]
        kill_points=bool(options.get("kill_points", True)),
        alternation=structure == "alternation",
        confirm_result=bool(given.options.get("confirm_result")),
    )
    if structure != "dynamics":
        return battle
    pilots = given.options.get("pilots") or {}
    assert isinstance(pilots, Mapping)
    tokens = given.options.get("tokens_per_type")
    return DynamicsSetup(
        battle,
        pilots={str(k): int(v) for k, v in pilots.items()},
        plus_two=str(given.options.get("plus_two") or ""),
        tokens_per_type=(
            {str(k): int(v) for k, v in tokens.items()} if isinstance(tokens, Mapping) else None
        ),
    )


def _mission_of(setup: BattleSetup) -> tuple[str, str]:
    """The mission and size a set-up was made from (the log holds the set-up, not its ids)."""
    for mission in missions().values():
        if (
            len(mission.objectives.markers) == setup.objectives
            and int(mission.options.get("zones") or 0) == setup.zones  # type: ignore[call-overload]
            and bool(mission.options.get("kill_points", True)) == setup.kill_points
        ):
            for size in mission.battle_sizes:
                if size.points == setup.points_limit:
                    return mission.id, size.id
    raise InvalidLog(
        "The log's victory conditions match no PEN mission "
        f"({setup.objectives} objectives, {setup.zones} zones, {setup.points_limit} pts)."
    )


def imported(game: MatchGame, snapshots: Mapping[str, Any]) -> Imported:
    first = game.envelopes[0].event if game.envelopes else None
    extra: dict[str, Any] = {}
    if isinstance(first, DynamicsCreated):
        setup = first.setup.battle
        extra = {"pilots": dict(first.setup.pilots), "plus_two": first.setup.plus_two}
        if first.setup.tokens_per_type is not None:
            extra["tokens_per_type"] = dict(first.setup.tokens_per_type)
    elif isinstance(first, BattleCreated):
        setup = first.setup
    else:
        raise InvalidLog("The log does not start with the creation of the battle.")
    assert isinstance(game, PenMatch)
    mission_id, size = _mission_of(setup)
    if setup.confirm_result and not extra:
        extra = {"confirm_result": True}
    options = {"options": {"turn_structure": structure_of(game.inner), **extra}}
    return Imported(
        mission_id,
        size,
        armies.snapshot_from_spec(setup.army("A")) | options,
        armies.snapshot_from_spec(setup.army("B")),
    )


def headline(game: MatchGame) -> dict[str, str | None]:
    """The stage, the seat the battle waits for and the phase. Under the Dynamics turn: the
    PEN set-up's stages, then the common turn's stage (placement, reveal, resolve...) with its
    Initiative step as the phase."""
    state = game.state
    if isinstance(game, PenMatch) and game.turn_structure == "dynamics":
        battle = state.battle
        if state.setup is None or str(state.stage) in ("setup", "over"):
            phase = None if battle.phase is None else str(battle.phase)
            return {"stage": str(battle.stage), "active": battle.active_seat, "phase": phase}
        step = f"initiative {state.step}" if state.step else None
        return {"stage": str(state.stage), "active": state.to_act or None, "phase": step}
    return {
        "stage": str(state.stage),
        "active": state.active_seat,
        "phase": None if state.phase is None else str(state.phase),
    }


def export_snapshot(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snapshot.items() if k != "army_id"}


SYSTEM = MatchSystem(
    id=SYSTEM_ID,
    game=PenMatch,
    event_codec=EVENT_CODEC,
    load_missions=missions,
    default_mission="pen-objectives",
    default_size="1500",
    ready_snapshot=armies.ready_snapshot,
    check_snapshot=armies.check_snapshot,
    parse_options=parse_options,
    new_setup=new_setup,
    imported=imported,
    headline=headline,
    guests=GuestArmies(sample=armies.no_sample, pasted=armies.pasted_snapshot),
    export_snapshot=export_snapshot,
)
