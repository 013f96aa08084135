"""The Black Reach page's words for rerolls and a power used again (issue 16, rulings
153-157): the buttons of the side asked about a roll (reroll it with a Purity Seal or a Grim
marker, the markers left named, or keep it), the notice both sides see while a roll waits,
the Librarian's choice to use his power again or not, and the timeline sentences of their
events. ``black_reach`` asks :func:`label`, :func:`notice` and :func:`describe`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.i18n import gettext as _
from app.core.i18n import lazy

__all__ = ["EVENT_KINDS", "KINDS", "describe", "label", "notice"]

KINDS = frozenset({"reroll", "keep_roll", "decline_power"})
EVENT_KINDS = frozenset(
    {"reroll_offered", "reroll_answered", "power_again_offered", "power_again_declined"}
)
ROLLS = {
    "unit_shot": lazy("shot"),
    "armour_save": lazy("armour save"),
    "assault_resolved": lazy("assault"),
    "unit_sniped": lazy("sniper shot"),
    "damage_located": lazy("location roll"),
    "power_manifested": lazy("Perils of the Warp test"),
    "template_placed": lazy("dispersion roll"),
    "destruction_dealt": lazy("Destruction roll"),
}


def _roll_word(kind: object) -> str:
    word = ROLLS.get(str(kind))
    return _(word) if word is not None else str(kind).replace("_", " ")


def _dice(values: object) -> str:
    return ", ".join(str(v) for v in values) if isinstance(values, list | tuple) else "?"


def label(kind: str, cmd: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The button of a reroll answer or of declining a power used again."""
    if kind == "reroll":
        option = names.get(str(cmd.get("option")), str(cmd.get("option") or ""))
        return _("Reroll it with {option} ({n} left)").format(option=option, n=cmd.get("left"))
    if kind == "keep_roll":
        return _("Keep the roll")
    return _("Do not use the power again")


def notice(
    view: Mapping[str, Any], names: Mapping[str, str], sides: Mapping[str, str]
) -> str | None:
    """What both sides read while a roll waits for a reroll or a power may be used again."""
    roll = view.get("reroll")
    if isinstance(roll, Mapping):
        roller = names.get(str(roll.get("roller")), str(roll.get("roller") or ""))
        side = sides.get(str(roll.get("side")), str(roll.get("side") or ""))
        return _(
            "The {roll} of {unit} rolled {dice}: {side} may reroll it or keep it before it applies."
        ).format(
            roll=_roll_word(roll.get("event")),
            unit=roller,
            dice=_dice(roll.get("values")),
            side=side,
        )
    again = view.get("power_again")
    if isinstance(again, Mapping):
        return _("{unit} may use {power} again at once, paying its cost.").format(
            unit=names.get(str(again.get("unit")), str(again.get("unit") or "")),
            power=names.get(str(again.get("power")), str(again.get("power") or "")),
        )
    return None


def describe(ev: Mapping[str, Any], names: Mapping[str, str], sides: Mapping[str, str]) -> str:
    """The timeline sentence of a reroll or power-again event."""
    kind = str(ev.get("type") or "")
    side = sides.get(str(ev.get("side")), str(ev.get("side") or ""))
    unit = names.get(str(ev.get("unit")), str(ev.get("unit") or ""))
    power = names.get(str(ev.get("power")), str(ev.get("power") or ""))
    if kind == "reroll_offered":
        shown = ev.get("event") or {}
        dice = ev.get("dice") or []
        at = [i for i in ev.get("at") or () if isinstance(i, int) and 0 <= i < len(dice)]
        roller = names.get(str(shown.get("unit")), str(shown.get("unit") or ""))
        return _("{side} is asked whether to reroll the {roll} of {unit} ({dice}).").format(
            side=side,
            roll=_roll_word(shown.get("type")),
            unit=roller,
            dice=_dice([dice[i] for i in at]),
        )
    if kind == "reroll_answered":
        if ev.get("option"):
            option = names.get(str(ev.get("option")), str(ev.get("option")))
            return _("{side} rerolls it with {option}: {dice}.").format(
                side=side, option=option, dice=_dice(ev.get("values"))
            )
        return _("{side} keeps the roll.").format(side=side)
    if kind == "power_again_offered":
        return _("{unit} may use {power} again.").format(unit=unit, power=power)
    return _("{unit} does not use {power} again.").format(unit=unit, power=power)
