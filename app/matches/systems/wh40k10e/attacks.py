"""Attacks between two units of a 10th-edition match: the exact odds (nothing written) and a
live roll applied with a ``resolve_attack`` command (moved here from ``app.matches.service``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.engine.combat import CombatResolution, to_jsonable
from app.engine.errors import EngineError, ProfileError, RollerError
from app.engine.match import StaleVersion
from app.engine.match.seats import Seat
from app.engine.wh40k10e.battle import Battle, command_seed
from app.engine.wh40k10e.battle import Seat as Seat10e
from app.engine.wh40k10e.battle.commands import ResolveAttack
from app.engine.wh40k10e.battle.eligibility import weapons_refusal
from app.matches.exceptions import CommandRefused, InvalidAttack
from app.matches.models import Match
from app.matches.systems.wh40k10e import combat

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.matches.service import Outcome

__all__ = ["build_attack", "preview", "resolve"]


def _snapshots(match: Match) -> dict[Seat10e, Mapping[str, Any] | None]:
    return {Seat10e.A: match.army_a, Seat10e.B: match.army_b}


def build_attack(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None,
) -> tuple[Battle, combat.BuiltAttack]:
    from app.matches.service import load_battle

    battle = load_battle(db, match)
    assert isinstance(battle, Battle)
    state = battle.state
    if attacker not in state.units or str(state.units[attacker].owner) != str(seat):
        raise InvalidAttack(
            "Pick one of your own units to attack with.",
            errors=[{"field": "attacker", "message": "not your unit", "type": "forbidden"}],
        )
    if target not in state.units:
        raise InvalidAttack(
            "Unknown target unit.",
            errors=[{"field": "target", "message": "unknown unit", "type": "unknown"}],
        )
    built = combat.build_request(_snapshots(match), state, attacker, target, weapons, situation)
    # a weapon is used once per phase: refused (409) before any odds or dice
    refusal = weapons_refusal(state, attacker, built.uses)
    if refusal is not None:
        raise CommandRefused(refusal)
    return battle, built


def _profile_error(exc: ProfileError) -> InvalidAttack:
    return InvalidAttack(
        str(exc),
        errors=[{"field": f, "message": m, "type": "invalid_profile"} for f, m in exc.errors],
    )


def preview(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The exact odds of an attack between two units of the match (nothing is written)."""
    _battle, built = build_attack(db, match, seat, attacker, target, weapons, situation)
    try:
        analysis = combat.analyze(built.request)
    except ProfileError as exc:
        raise _profile_error(exc) from None
    except EngineError as exc:
        raise InvalidAttack(str(exc)) from None
    return {"request": built.request, "analysis": to_jsonable(analysis)}


def resolve(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> tuple[Outcome, CombatResolution]:
    """Roll an attack live (seeded by the match secret, or the dice rolled by hand) and apply
    it to the target's models with a ``resolve_attack`` command."""
    from app.matches.service import execute, match_secret

    battle, built = build_attack(db, match, seat, attacker, target, weapons, situation)
    if expected_version != match.version:
        raise CommandRefused(StaleVersion(expected_version, match.version))
    weapon = ", ".join(built.weapon_names)[:200]
    probe = ResolveAttack(
        attacker, target, weapon=weapon, request=built.request, weapons=built.uses
    )
    roller: combat.BoundedRoller
    if dice is not None:
        roller = combat.BoundedRoller.from_values(dice)  # type: ignore[assignment]
    else:
        roller = combat.BoundedRoller(
            command_seed(match_secret(match), battle.state, probe, str(seat))
        )
    try:
        resolution = combat.resolve(built.request, roller)
    except ProfileError as exc:
        raise _profile_error(exc) from None
    except RollerError as exc:
        raise InvalidAttack(
            str(exc), errors=[{"field": "dice", "message": str(exc), "type": "dice"}]
        ) from None
    if dice is not None and roller.remaining_given:
        raise InvalidAttack(
            f"{roller.remaining_given} of the dice given were not needed by this attack.",
            errors=[{"field": "dice", "message": "too many dice", "type": "dice"}],
        )
    command = {
        "type": "resolve_attack",
        "attacker": attacker,
        "target": target,
        "allocations": [
            {"unit": a.unit, "model": a.model, "damage": a.damage}
            for a in combat.allocations(built, resolution)
        ],
        "weapon": weapon,
        "seed": resolution.seed,
        "dice": [_die(d) for d in resolution.dice],
        "request": built.request,
        "weapons": [
            {"unit": u.unit, "weapon": u.weapon, "models": u.models, "profile": u.profile}
            for u in built.uses
        ],
    }
    outcome = execute(db, match, seat, command, expected_version=expected_version)
    return outcome, resolution


def _die(d: Any) -> dict[str, Any]:
    return {
        "index": d.index,
        "label": d.label,
        "sides": d.sides,
        "value": d.value,
        "original": d.original,
        "face": d.face,
        "modifier": d.modifier,
        "outcome": d.outcome,
        "stage": d.stage,
    }
