"""The PEN battle's timeline in sentences (the match page's ``#timeline``), and the words the
page shares with it: phases, speeds, reserve modes, the names of the tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.i18n import gettext as _
from app.core.i18n import lazy

__all__ = [
    "PHASES",
    "RESERVE_MODES",
    "SPEEDS",
    "TESTS",
    "Line",
    "describe",
    "sentence",
    "timeline",
    "tr",
]

PHASES = {
    "start": lazy("Start of the turn"),
    "movement": lazy("Movement and shooting"),
    "assault": lazy("Assault"),
}
SPEEDS = {
    "stationary": lazy("stationary"),
    "normal": lazy("normal move"),
    "rapid": lazy("rapid move"),
}
RESERVE_MODES = {
    "standard": lazy("from its table edge"),
    "outflank": lazy("outflank"),
    "deep_strike": lazy("deep strike"),
}
TESTS = {
    "morale": lazy("morale"),
    "pinning": lazy("pinning"),
    "regroup": lazy("regroup"),
    "alert_morale": lazy("morale (alert fire)"),  # a failure stops the squad [L966]
    "shoot_into_melee": lazy("shooting into a melee"),  # [L1130]
}


def tr(table: Mapping[str, str], key: object) -> str:
    text = str(key)
    return _(table.get(text, text))


# -- the timeline -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    text: str
    dice: list[Mapping[str, Any]]
    secret: bool = False
    undone: bool = False


def _dice_summary(roll: Mapping[str, Any] | None) -> str:
    """ "hit 4/6, wound 2/4, saved 1": each stage of an attack with its dice and outcomes."""
    if not roll:
        return ""
    stages: dict[str, list[str]] = {}
    for d in roll.get("dice", ()):
        stages.setdefault(str(d.get("stage") or d.get("label") or ""), []).append(
            str(d.get("outcome") or "")
        )
    parts = []
    for stage, outcomes in stages.items():
        counted: dict[str, int] = {}
        for o in outcomes:
            if o:
                counted[o] = counted.get(o, 0) + 1
        said = ", ".join(f"{n} {o}" for o, n in counted.items())
        parts.append(
            _("{stage}: {n} dice").format(stage=stage, n=len(outcomes))
            + (f" ({said})" if said else "")
        )
    return "; ".join(p for p in parts if p)


def _losses(ev: Mapping[str, Any], names: Mapping[str, str], unit: str, left_key: str) -> str:
    left = ev.get(left_key)
    vehicle = ev.get("vehicle")
    if vehicle:
        if vehicle.get("destroyed"):
            return _("{unit} is destroyed.").format(unit=names.get(unit, unit))
        return _("{unit} loses {n} hull points.").format(
            unit=names.get(unit, unit), n=vehicle.get("hp_lost", 0)
        )
    if left is None:
        return ""
    return _("{unit}: {n} models left.").format(unit=names.get(unit, unit), n=left)


def describe(ev: Mapping[str, Any], names: Mapping[str, str], players: Mapping[str, str]) -> str:
    """An event of the PEN battle as a sentence; one it does not know, its kind in words."""
    said = sentence(ev, names, players)
    return said if said is not None else str(ev.get("type")).replace("_", " ")


def sentence(
    ev: Mapping[str, Any], names: Mapping[str, str], players: Mapping[str, str]
) -> str | None:
    """The sentence of an event of the PEN battle (``None``: not one of its events). The
    generic page asks it for the PEN events of a Dynamics match (``PageSystem.sentence``)."""
    kind = str(ev.get("type"))
    unit = str(ev.get("unit") or "")
    target = str(ev.get("target") or "")
    n_unit, n_target = names.get(unit, unit), names.get(target, target)
    seat = str(ev.get("seat") or ev.get("winner") or ev.get("first") or "")
    who = players.get(seat) or seat
    if kind == "battle_created":
        return _("The battle is set up.")
    if kind == "reserve_declared":
        mode = str(ev.get("mode") or "standard")
        if mode == "standard":
            return _("{unit} is kept in reserve.").format(unit=n_unit)
        return _("{unit} is kept in reserve ({mode}).").format(
            unit=n_unit, mode=tr(RESERVE_MODES, mode)
        )
    if kind == "step_ended":
        return _("{who} is done with this step.").format(who=who)
    if kind == "roll_off_made":
        return _("{who} wins the roll-off.").format(who=who)
    if kind == "first_chosen":
        return _("{who} plays first.").format(who=who)
    if kind == "unit_deployed":
        return _("{unit} is deployed.").format(unit=n_unit)
    if kind == "scout_moved":
        return _('{unit} makes a scout move of {n}".').format(unit=n_unit, n=ev.get("inches"))
    if kind == "turn_started":
        return _("Round {round}: a new turn starts.").format(round=ev.get("round"))
    if kind == "dawn_rolled":
        return _("Dawn roll: day breaks.") if ev.get("day") else _("Dawn roll: still night.")
    if kind == "reserves_rolled":
        arrived = ", ".join(names.get(u, u) for u in ev.get("arrived", ()))
        return _("Reserves rolled: {units} arrive.").format(units=arrived or _("nobody"))
    if kind == "test_taken":
        result = _("passed") if ev.get("passed") else _("failed")
        return _("{unit} takes a {test} test: {result}.").format(
            unit=n_unit, test=tr(TESTS, ev.get("test")), result=result
        )
    if kind == "phase_started":
        return tr(PHASES, ev.get("phase"))
    if kind == "unit_arrived":
        return _("{unit} arrives from reserve.").format(unit=n_unit)
    if kind == "unit_moved":
        return _('{unit} moves ({speed}, {n}").').format(
            unit=n_unit, speed=tr(SPEEDS, ev.get("speed")), n=ev.get("inches")
        )
    if kind == "went_to_ground":
        return _("{unit} goes to ground.").format(unit=n_unit)
    if kind == "unit_shot":
        text = _shot(ev, n_unit, n_target)
        summary = _dice_summary(ev.get("roll"))
        losses = _losses(ev, names, target, "models_left")
        if ev.get("pinning"):
            losses += " " + _("Pinning test.")
        return " ".join(p for p in (text, summary + ("." if summary else ""), losses) if p)
    if kind == "activation_ended":
        return _("{unit} is done.").format(unit=n_unit)
    if kind == "charge_declared":
        return _('{unit} charges {target} ({n}").').format(
            unit=n_unit, target=n_target, n=ev.get("distance")
        )
    if kind == "combat_resolved":
        return _combat_resolved(ev, names, players)
    if kind == "combat_fought":
        winner = ev.get("winner")
        if winner == "unit":
            won = _("{unit} wins the combat.").format(unit=n_unit)
        elif winner == "target":
            won = _("{unit} wins the combat.").format(unit=n_target)
        elif winner in ("draw", "", None):
            won = _("The combat is a draw.")
        else:
            won = _("{unit} wins the combat.").format(unit=names.get(str(winner), str(winner)))
        text = _("{unit} fights {target}.").format(unit=n_unit, target=n_target)
        left = _("{unit}: {n} models left; {target}: {m} models left.").format(
            unit=n_unit,
            n=ev.get("unit_models_left"),
            target=n_target,
            m=ev.get("target_models_left"),
        )
        summary = _dice_summary(ev.get("roll"))
        extra = ""
        if ev.get("swept"):
            extra = _("Sweeping advance: {n} models caught.").format(n=ev.get("swept"))
        elif ev.get("retreating"):
            extra = _("Morale failed: the losers fall back.")
        parts = (text, summary + ("." if summary else ""), left, won, extra)
        return " ".join(p for p in parts if p)
    if kind == "rammed":
        return _("{unit} rams.").format(unit=n_unit)
    if kind == "embarked":
        return _("{unit} embarks.").format(unit=n_unit)
    if kind == "disembarked":
        if not ev.get("emergency"):
            return _("{unit} disembarks.").format(unit=n_unit)
        text = _("{unit} makes an emergency disembark and goes to ground.").format(unit=n_unit)
        if ev.get("rapid"):  # out of a fast transport over 12 ps [L309]
            text += " " + _("It counts as having made a rapid move.")
        return text
    if kind == "regenerated":
        return _("{unit} regenerates.").format(unit=n_unit)
    if kind == "passengers_hit":
        return " ".join(
            p
            for p in (
                _("{unit} is hit as its transport is destroyed.").format(unit=n_unit),
                _losses(ev, names, unit, "models_left"),
            )
            if p
        )
    if kind == "retreated":
        if not ev.get("caught"):
            return _("{unit} breaks off and retreats.").format(unit=n_unit)
        return " ".join(
            (
                _("{unit} breaks off and is caught by a sweeping advance.").format(unit=n_unit),
                _losses(ev, names, unit, "models_left"),
            )
        ).strip()
    if kind == "disengaged":
        return _('{unit} disengages ({n}").').format(unit=n_unit, n=ev.get("inches"))
    if kind == "consolidated":
        return _('{unit} consolidates ({n}").').format(unit=n_unit, n=ev.get("inches"))
    if kind == "poison_tested":
        if ev.get("passed"):
            return _("{unit} resists the poison.").format(unit=n_unit)
        return _("{unit} loses a wound to the poison.").format(unit=n_unit)
    if kind == "accident_tested":
        if ev.get("passed"):
            return _("{unit} avoids the accident.").format(unit=n_unit)
        return _("{unit} suffers the accident.").format(unit=n_unit)
    if kind == "out_of_control_ended":
        return _("{unit} stops: immobilised.").format(unit=n_unit)
    new = _new_event(kind, ev, n_unit, n_target, names)
    if new is not None:
        return new
    if kind == "round_started":
        return _("Round {round}: {who} plays first.").format(
            round=ev.get("round"), who=players.get(str(ev.get("first")), ev.get("first"))
        )
    if kind == "squad_chosen":
        return _("{unit} is played.").format(unit=n_unit)
    if kind == "activation_passed":
        return _("{unit} has played.").format(unit=n_unit) if unit else _("Pass.")
    if kind == "game_length_rolled":
        if ev.get("continues"):
            return _("Game length after round {round}: the battle goes on.").format(
                round=ev.get("round")
            )
        return _("Game length after round {round}: the battle ends.").format(round=ev.get("round"))
    if kind == "control_reported":
        holder = str(ev.get("seat") or "")
        return _("Objective {objective}: held by {who}.").format(
            objective=ev.get("objective"),
            who=players.get(holder, holder) if holder else _("nobody"),
        )
    if kind == "result_confirmed":
        return _("{who} confirms the result.").format(who=who)
    if kind == "battle_ended":
        return _("The battle is over.")
    if kind in ("undone", "undo_requested", "undo_refused"):
        return {
            "undone": _("An action is undone."),
            "undo_requested": _("{who} asks to undo an action.").format(who=who),
            "undo_refused": _("The undo is refused: the roll stands."),
        }[kind]
    return None


def _shot(ev: Mapping[str, Any], n_unit: str, n_target: str) -> str:
    """A shot's first sentence: on alert out of turn (pen rulings B35), through a transport's
    fire points (B32), or a plain one."""
    weapon = ev.get("weapon")
    if ev.get("fire_points"):
        return _(
            "{unit} shoots {target} with {weapon} from its transport ({n} models firing)."
        ).format(unit=n_unit, target=n_target, weapon=weapon, n=ev.get("fire_points"))
    if ev.get("alert"):
        return _("{unit} fires on alert at {target} with {weapon}.").format(
            unit=n_unit, target=n_target, weapon=weapon
        )
    return _("{unit} shoots {target} with {weapon}.").format(
        unit=n_unit, target=n_target, weapon=weapon
    )


def _new_event(
    kind: str, ev: Mapping[str, Any], n_unit: str, n_target: str, names: Mapping[str, str]
) -> str | None:
    """Alert state, duels and Hit & Run (pen rulings B34-B36); ``None``: another event."""
    if kind == "alert_declared":
        return _("{unit} goes on alert.").format(unit=n_unit)
    if kind == "alert_ended":
        return _("{unit} ends its alert fire.").format(unit=n_unit)
    if kind == "stopped":
        return _("{unit} is stopped by the alert fire: no shooting nor charge this turn.").format(
            unit=n_unit
        )
    if kind == "challenge_issued":
        return _("{unit} challenges {target} to a duel.").format(unit=n_unit, target=n_target)
    if kind == "challenge_answered":
        challenger = str(ev.get("challenger") or "")
        n_challenger = names.get(challenger, challenger)
        if ev.get("accepted"):
            return _("{unit} accepts the duel with {challenger}.").format(
                unit=n_unit, challenger=n_challenger
            )
        return _("{unit} refuses the duel: it strikes at Initiative 1 this turn.").format(
            unit=n_unit
        )
    if kind == "hit_and_run_declared":
        step = ev.get("initiative") or 0
        if not step:
            return _("{unit} will try to leave by Hit & Run after its own Initiative step.").format(
                unit=n_unit
            )
        return _("{unit} will try to leave by Hit & Run after Initiative step {n}.").format(
            unit=n_unit, n=step
        )
    return None


def _combat_resolved(
    ev: Mapping[str, Any], names: Mapping[str, str], players: Mapping[str, str]
) -> str:
    """A combat of several squads or with a vehicle [L1205-L1213]: what each squad has left,
    the winning side, the losers' morale and the sweeping advance."""
    unit, target = str(ev.get("unit") or ""), str(ev.get("target") or "")
    text = _("{unit} fights {target}.").format(
        unit=names.get(unit, unit), target=names.get(target, target)
    )
    summary = _dice_summary(ev.get("roll"))
    left = " ".join(
        _losses(sq, names, str(sq.get("unit")), "models_left") for sq in ev.get("squads", ())
    )
    winner = str(ev.get("winner") or "")
    if winner in ("A", "B"):
        won = _("{who} wins the combat.").format(who=players.get(winner, winner))
    else:
        won = _("The combat is a draw.")
    extra = ""
    fled = ", ".join(names.get(str(u), str(u)) for u in ev.get("retreating", ()))
    if fled:
        extra = _("Morale failed: {units} fall back.").format(units=fled)
    if ev.get("swept"):
        extra += " " + _("Sweeping advance: {n} models caught.").format(n=ev.get("swept"))
    gone = ", ".join(names.get(str(u), str(u)) for u in ev.get("disengaged", ()))
    if gone:  # left between two Initiative steps (pen rulings B34)
        extra += " " + _("{units} left the combat by Hit & Run.").format(units=gone)
    parts = (text, summary + ("." if summary else ""), left, won, extra.strip())
    return " ".join(p for p in parts if p)


def timeline(
    entries: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    players: Mapping[str, str],
    *,
    limit: int = 80,
) -> list[Line]:
    """The latest ``limit`` entries as sentences, newest first."""
    undone = {e["event"].get("batch") for e in entries if e["event"].get("type") == "undone"}
    out: list[Line] = []
    for entry in list(entries)[-limit:][::-1]:
        ev = entry["event"]
        players_ = {**players, "A": players.get("A") or "A", "B": players.get("B") or "B"}
        roll = ev.get("roll") or {}
        out.append(
            Line(
                entry["seq"],
                describe(ev, names, players_),
                list(roll.get("dice", ()))[:30],
                entry.get("audience") is not None,
                entry.get("batch") in undone,
            )
        )
    return out
