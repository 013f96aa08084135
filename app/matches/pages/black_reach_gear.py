"""The Black Reach page's words and fields for the flamer, the grenades, the equipment
markers and the mechanics (issue 16): Lance-Flammes (one form per direction, the units the
flame reaches named, friends included), Grenades and Tankbusta Bombs (a template placed on an
intercase as Tir Direct is, the markers left named), equipment markers announced for a unit's
next action (a select of how many), and a Mekaniak's or a Techmarine's readying (a select of
the change or the die kept, what he is readied with now), with the timeline sentences of their
events. ``black_reach.action_forms`` asks :func:`gear_form` for these commands and
``black_reach.build_command`` reads their fields with :func:`read_form`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy

__all__ = [
    "EVENT_KINDS",
    "GEAR_KINDS",
    "GearForm",
    "describe",
    "gear_form",
    "read_form",
    "structure_label",
]

GEAR_KINDS = frozenset({"flame", "ready_repair", "demolish", "ready_equipment"})
EVENT_KINDS = frozenset(
    {
        "flamer_fired",
        "grenade_thrown",
        "repair_readied",
        "repair_used",
        "demolished",
        "equipment_readied",
        "equipment_used",
        "beam_fired",
        "units_jumped",
        "jump_landed",
    }
)
MAX_MARKERS = 3  # identical equipment markers in one action [L2494-L2496]
DIRECTIONS = {"N": lazy("north"), "E": lazy("east"), "S": lazy("south"), "W": lazy("west")}
EDGES = {"N": lazy("north"), "E": lazy("east"), "S": lazy("south"), "W": lazy("west")}
PICKS = {"low": lazy("keep the low die of two"), "high": lazy("keep the high die of two")}
# a Boss Pole marker's bonus, named by its owner (rulings 147)
POLE_BONUSES = {
    "dakka": lazy("Dakka: +1 to a die"),
    "boss": lazy("Boss: automatic armour save 4+"),
    "zag": lazy("Zag: +1 MV"),
}
MODIFIERS = (-2, -1, 1, 2)


def _direction(facing: object) -> str:
    text = DIRECTIONS.get(str(facing))
    return _(text) if text is not None else str(facing)


def _readied(modifier: object, pick: object) -> str:
    """A Techmarine's die kept, or a Mekaniak's change ("+1")."""
    if isinstance(pick, str) and pick in PICKS:
        return _(PICKS[pick])
    return f"{modifier:+d}" if isinstance(modifier, int) else "?"


@dataclass(frozen=True, slots=True)
class GearForm:
    """What a flame or a readying form shows beyond the button."""

    label: str
    targets: list[tuple[str, str]] = field(default_factory=list)  # flame: (id, name)
    setting: str = ""  # ready_repair: the field posted ("modifier" or "pick")
    settings: list[tuple[str, str]] = field(default_factory=list)  # its (value, label)
    note: str = ""  # ready_repair: what he is readied with now


def _bonus(bonus: object) -> str:
    text = POLE_BONUSES.get(str(bonus))
    return _(text) if text is not None else str(bonus)


def gear_form(
    entry: Mapping[str, Any], cmd: Mapping[str, Any], names: Mapping[str, str]
) -> GearForm:
    kind = str(cmd.get("type") or "")
    unit = names.get(str(cmd.get("unit")), str(cmd.get("unit") or ""))
    if kind == "kombi":  # a Kombi Weapon marker's Lance-Flammes (rulings 150)
        targets = [(str(t), names.get(str(t), str(t))) for t in entry.get("targets") or ()]
        option = names.get(str(cmd.get("option")), str(cmd.get("option") or ""))
        label = _("{unit}: {option}, Lance-Flammes, direction {direction} ({left} left)").format(
            unit=unit,
            option=option,
            direction=_direction(cmd.get("facing")),
            left=entry.get("markers", 0),
        )
        if cmd.get("x") is not None:
            label = _("{flame}, from the transport's square ({x}, {y})").format(
                flame=label, x=cmd.get("x"), y=cmd.get("y")
            )
        return GearForm(label, targets=targets)
    if kind == "flame":
        targets = [(str(t), names.get(str(t), str(t))) for t in entry.get("targets") or ()]
        label = _("{unit}: Lance-Flammes, direction {direction}").format(
            unit=unit, direction=_direction(cmd.get("facing"))
        )
        if cmd.get("x") is not None:  # aboard a transport of several squares (rulings 137)
            label = _("{flame}, from the transport's square ({x}, {y})").format(
                flame=label, x=cmd.get("x"), y=cmd.get("y")
            )
        return GearForm(label, targets=targets)
    if kind == "ready_equipment":  # equipment markers announced before the action
        option = names.get(str(cmd.get("option")), str(cmd.get("option") or ""))
        readied = int(entry.get("readied") or 0)
        if cmd.get("bonus"):  # a Boss Pole: the bonus is the entry's (rulings 147)
            option = _("{option}, {bonus}").format(option=option, bonus=_bonus(cmd["bonus"]))
        return GearForm(
            _("{unit}: use {option} ({left} left)").format(
                unit=unit, option=option, left=entry.get("left", 0)
            ),
            setting="count",
            settings=[(str(n), str(n)) for n in entry.get("counts") or (1,)],
            note=_("Readied now: {count}.").format(count=readied) if readied else "",
        )
    if kind == "demolish":  # Destruction as a Shooting Action at a structure
        return GearForm(
            _("{unit}: Destruction at a structure").format(unit=unit),
            setting="structure",
            settings=[
                (str(k), structure_label(str(k), names)) for k in entry.get("structures") or ()
            ],
        )
    now = entry.get("readied")
    note = (
        _("Readied now: {change}.").format(change=_readied(now.get("modifier"), now.get("pick")))
        if isinstance(now, Mapping)
        else ""
    )
    if entry.get("picks"):
        settings = [(str(p), _(PICKS.get(str(p), str(p)))) for p in entry.get("picks") or ()]
        setting = "pick"
    else:
        settings = [(str(m), f"{int(m):+d}") for m in entry.get("modifiers") or MODIFIERS]
        setting = "modifier"
    return GearForm(
        _("{unit}: ready for an allied heavy vehicle's next location roll").format(unit=unit),
        setting=setting,
        settings=settings,
        note=note,
    )


def structure_label(key: str, names: Mapping[str, str]) -> str:
    """A structure: a board element's id, or ``wreck:<unit>`` for a wreck."""
    if key.startswith("wreck:"):
        unit = key.removeprefix("wreck:")
        return _("the wreck of {unit}").format(unit=names.get(unit, unit))
    return key


def read_form(form: FormData, cmd: dict[str, Any]) -> None:
    """A readying's change or die, or the structure aimed at, into its command (the battle
    checks them)."""
    if cmd.get("type") == "demolish":
        structure = form.get("structure")
        if isinstance(structure, str) and structure:
            cmd["structure"] = structure[:200]
        return
    if cmd.get("type") == "ready_equipment":
        count = form.get("count")
        if isinstance(count, str) and count.strip() in {str(n) for n in range(1, MAX_MARKERS + 1)}:
            cmd["count"] = int(count.strip())
        return
    if cmd.get("type") != "ready_repair":
        return
    modifier = form.get("modifier")
    if isinstance(modifier, str) and modifier.strip() in {str(m) for m in MODIFIERS}:
        cmd["modifier"] = int(modifier.strip())
    pick = form.get("pick")
    if isinstance(pick, str) and pick in PICKS:
        cmd["pick"] = pick


def describe(ev: Mapping[str, Any], names: Mapping[str, str], square: Any) -> str | None:
    """The sentence of a flamer, grenade or mechanic event (``None``: not one of them);
    ``square(step)`` words a square."""
    kind = str(ev.get("type") or "")
    unit = names.get(str(ev.get("unit")), str(ev.get("unit") or ""))
    under = ", ".join(names.get(str(t), str(t)) for t in ev.get("targets") or ())
    if kind == "flamer_fired":
        text = _("{unit} fires its flamer, direction {direction} (template {template}).").format(
            unit=unit, direction=_direction(ev.get("facing")), template=ev.get("template")
        )
        more = _("It reaches: {units}.").format(units=under) if under else _("It reaches nobody.")
        return f"{text} {more}"
    if kind == "grenade_thrown":
        option = names.get(str(ev.get("option")), str(ev.get("option") or ""))
        text = _("{unit} throws {option} on {square}.").format(
            unit=unit, option=option, square=square(ev.get("at"))
        )
        more = _("Under it: {units}.").format(units=under) if under else _("Nobody is under it.")
        return f"{text} {more}"
    if kind == "demolished":
        structure = structure_label(str(ev.get("structure") or ""), names)
        if ev.get("how") == "demolisher":
            return _("{unit} demolishes {structure} at the end of its move.").format(
                unit=unit, structure=structure
            )
        return _("{unit} rolls its Destruction at {structure}.").format(
            unit=unit, structure=structure
        )
    if kind == "units_jumped":  # Da Jump (rulings 132)
        others = [names.get(str(u), str(u)) for u in ev.get("units") or () if u != ev.get("unit")]
        if others:
            return _("{unit} jumps off the battlefield with {other}.").format(
                unit=unit, other=", ".join(others)
            )
        return _("{unit} jumps off the battlefield.").format(unit=unit)
    if kind == "jump_landed":
        edges = ", ".join(_(EDGES.get(str(e), str(e))) for e in ev.get("edges") or ())
        return _("{unit} comes back by the {edge} edge.").format(unit=unit, edge=edges)
    if kind == "beam_fired":  # Killbolt (rulings 129)
        power = names.get(str(ev.get("power")), str(ev.get("power") or ""))
        if under:
            return _("{unit} fires {power} at {square}; under the beam: {units}.").format(
                unit=unit, power=power, square=square(ev.get("at")), units=under
            )
        return _("{unit} fires {power} at {square}; nobody is under the beam.").format(
            unit=unit, power=power, square=square(ev.get("at"))
        )
    if kind in ("equipment_readied", "equipment_used"):
        option = names.get(str(ev.get("option")), str(ev.get("option") or ""))
        if ev.get("bonus"):  # a Boss Pole marker's bonus (rulings 147)
            option = _("{option}, {bonus}").format(option=option, bonus=_bonus(ev["bonus"]))
        words = (
            _("{unit} readies {count} {option} marker(s) for its next action.")
            if kind == "equipment_readied"
            else _("{unit} uses {count} {option} marker(s).")
        )
        return words.format(unit=unit, count=ev.get("count"), option=option)
    if kind == "repair_readied":
        return _("{unit} is readied for a location roll: {change}.").format(
            unit=unit, change=_readied(ev.get("modifier"), ev.get("pick"))
        )
    if kind == "repair_used":
        vehicle = names.get(str(ev.get("vehicle")), str(ev.get("vehicle") or ""))
        text = _("{unit} acts on the location roll of {vehicle}: {change}.").format(
            unit=unit, vehicle=vehicle, change=_readied(ev.get("modifier"), ev.get("pick"))
        )
        if ev.get("oiler"):
            oiler = names.get(str(ev.get("oiler")), str(ev.get("oiler")))
            text += " " + _("With {oiler}'s help.").format(oiler=oiler)
        return text
    return None
