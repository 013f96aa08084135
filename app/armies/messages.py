"""Violations in the reader's language.

The engine gives each :class:`~app.engine.wh40k10e.army.Violation` an English ``message`` and
``fix`` built from templates (``MESSAGES`` / ``FIXES``, keyed by ``message_id`` / ``fix_id``) and
``params``. Here the same English templates are marked for translation (a test keeps them equal
to the engine's), translated with gettext, and filled with the params, after the few params that
carry English words (a battle size, "did you mean", "between 5 and 10") are translated too.
Names from the data (datasheets, enhancements, keywords) stay as the data spells them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.engine.wh40k10e.army import Violation

MESSAGES: Mapping[str, str] = {
    "points-over-limit": lazy(
        "The army costs {points} points, {over} over the {limit}-point limit of {battle_size}."
    ),
    "datasheet-limit-exceeded": lazy(
        "{count} units of {datasheet}: an army may include at most {limit}."
    ),
    "no-character": lazy("The army has no Character unit; it needs at least one."),
    "no-warlord": lazy("No Warlord is chosen."),
    "multiple-warlords": lazy("{count} units are marked as Warlord; the army has exactly one."),
    "warlord-not-character": lazy("{datasheet} is not a Character and cannot be the Warlord."),
    "warlord-not-eligible": lazy(
        "{datasheet} cannot be the Warlord of a {faction} army: the catalogue offers it as an "
        "ally only."
    ),
    "faction-mismatch": lazy("{datasheet} does not have the {faction} Faction keyword."),
    "faction-mismatch.unknown-faction": lazy("The catalogue has no faction {faction}."),
    "epic-hero-duplicate": lazy("{datasheet} is an Epic Hero and is included {count} times."),
    "enhancement-limit-exceeded": lazy(
        "The army has {count} Enhancements; at most {limit} are allowed."
    ),
    "enhancement-duplicate": lazy(
        "{enhancement} is taken by more than one unit; each Enhancement is unique."
    ),
    "enhancement-not-character": lazy(
        "{datasheet} is not a Character and cannot take {enhancement}."
    ),
    "enhancement-on-epic-hero": lazy("{datasheet} is an Epic Hero and cannot take {enhancement}."),
    "enhancement-not-eligible": lazy(
        "{enhancement} can only be given to a {requirement} model; {datasheet} is not one."
    ),
    "enhancement-not-eligible.ally": lazy(
        "{datasheet} is an allied unit and cannot take {enhancement}."
    ),
    "multiple-enhancements-on-unit": lazy(
        "{datasheet} has {count} Enhancements; a unit can have at most 1."
    ),
    "enhancement-wrong-detachment": lazy(
        "{enhancement} belongs to the {enhancement_detachment} Detachment, not to {detachment}."
    ),
    "unit-size-invalid": lazy("{datasheet} has {models} models; it must have {allowed}."),
    "wargear-invalid": lazy("{datasheet} cannot take {wargear}."),
    "wargear-invalid.too-many": lazy(
        "{datasheet} takes {count} {wargear}; at most {limit} allowed."
    ),
    "wargear-invalid.alternatives": lazy(
        "{datasheet} takes {count} of {wargear}, which are alternatives ({options}): at most "
        "{limit} in all."
    ),
    "wargear-invalid.unavailable": lazy("{datasheet} cannot take {wargear} while {condition}."),
    "wargear-invalid.required": lazy(
        "{datasheet} takes {count} of {wargear} ({option}): the catalogue requires at least "
        "{limit}."
    ),
    "wargear-invalid.required-while": lazy(
        "{datasheet} takes {count} of {wargear} ({option}): the catalogue requires at least "
        "{limit} while {condition}."
    ),
    "wargear-invalid.roster": lazy(
        "{wargear} is taken {count} times in the army ({units}); at most {limit} allowed."
    ),
    "wargear-invalid.requires": lazy(
        "{datasheet} takes {wargear}, which comes only with {parent}."
    ),
    "wargear-invalid.required-within": lazy(
        "{datasheet} takes {parent} with {count} of {wargear} ({option}): it needs {limit}."
    ),
    "leader-attachment-illegal.no-such-unit": lazy(
        "{datasheet} is attached to unit {target_number}, which is not in the army."
    ),
    "leader-attachment-illegal.self": lazy("{datasheet} is attached to itself."),
    "leader-attachment-illegal.not-a-leader": lazy(
        "{datasheet} is not a Leader and cannot be attached to another unit."
    ),
    "leader-attachment-illegal.not-a-bodyguard": lazy("{datasheet} cannot lead {target}."),
    "leader-attachment-illegal.bodyguard-taken": lazy(
        "{target} already has a Leader ({other}); a Bodyguard unit can have only one."
    ),
    "leader-attachment-illegal.target-attached": lazy(
        "{target} is itself attached to another unit and cannot be led."
    ),
    "leader-attachment-illegal.conditional": lazy(
        "{datasheet} can lead {target} only with certain wargear: check its Leader ability."
    ),
    "unknown-datasheet": lazy("No datasheet called {datasheet}."),
    "unknown-detachment": lazy("No Detachment called {detachment} for {faction}."),
    "unknown-enhancement": lazy("No Enhancement called {enhancement}."),
    "datasheet-not-in-detachment": lazy(
        "{datasheet} cannot be included in an army of the {detachment} Detachment."
    ),
    "legends-not-included": lazy(
        "{datasheet} is a Legends datasheet and the list does not include Legends."
    ),
    "data-restriction": lazy("{datasheet} breaks a restriction of the catalogue: {condition}."),
    "data-restriction.unavailable": lazy(
        "{datasheet} cannot be included in this army: {condition}."
    ),
    "category-limit-exceeded": lazy(
        "{count} {keyword} units in the army: the catalogue allows at most {limit} in "
        "{battle_size}."
    ),
    "category-limit-exceeded.points": lazy(
        "The {keyword} units cost {count} points: the catalogue allows at most {limit} points "
        "of them in {battle_size}."
    ),
    "category-minimum-not-met": lazy(
        "{count} {keyword} units in the army: the catalogue requires at least {limit} in the "
        "{detachment} Detachment."
    ),
    "category-minimum-not-met.points": lazy(
        "The {keyword} units cost {count} points: the catalogue requires at least {limit} "
        "points of them in the {detachment} Detachment."
    ),
}

FIXES: Mapping[str, str] = {
    "points-over-limit": lazy(
        "Remove {over} points: for example remove {suggestion}, or play a larger battle size."
    ),
    "points-over-limit.no-suggestion": lazy(
        "Remove {over} points of units, upgrades or Enhancements, or play a larger battle size."
    ),
    "datasheet-limit-exceeded": lazy("Remove {excess} {datasheet} unit(s)."),
    "no-character": lazy("Add a Character unit{suggestion}."),
    "no-warlord": lazy("Mark one Character as the Warlord{suggestion}."),
    "multiple-warlords": lazy("Keep the Warlord mark on one unit only."),
    "warlord-not-character": lazy("Mark a Character as the Warlord instead."),
    "warlord-not-eligible": lazy("Mark a {faction} Character as the Warlord instead."),
    "faction-mismatch": lazy("Remove {datasheet} or pick a faction it belongs to ({factions})."),
    "faction-mismatch.unknown-faction": lazy("Pick one of: {closest}."),
    "epic-hero-duplicate": lazy("Remove {excess} {datasheet}."),
    "enhancement-limit-exceeded": lazy("Remove {excess} Enhancement(s)."),
    "enhancement-duplicate": lazy("Give {enhancement} to one unit only."),
    "enhancement-not-character": lazy("Give {enhancement} to a Character instead."),
    "enhancement-on-epic-hero": lazy("Give {enhancement} to a Character that is not an Epic Hero."),
    "enhancement-not-eligible": lazy("Give {enhancement} to a {requirement} model instead."),
    "enhancement-not-eligible.ally": lazy("Give {enhancement} to a {faction} Character instead."),
    "multiple-enhancements-on-unit": lazy("Keep one Enhancement on {datasheet}."),
    "enhancement-wrong-detachment": lazy(
        "Remove {enhancement} or choose the {enhancement_detachment} Detachment."
    ),
    "unit-size-invalid": lazy("Set {datasheet} to {allowed} models."),
    "wargear-invalid": lazy("Remove {wargear}{suggestion}."),
    "wargear-invalid.too-many": lazy("Take at most {limit} {wargear}."),
    "wargear-invalid.alternatives": lazy("Keep at most {limit} of {wargear}."),
    "wargear-invalid.unavailable": lazy(
        "Remove {wargear}, or change the unit so that this no longer holds: {condition}."
    ),
    "wargear-invalid.required": lazy("Add {missing} of {wargear} ({option})."),
    "wargear-invalid.roster": lazy("Remove {excess} {wargear} from these units."),
    "wargear-invalid.requires": lazy("Take {parent}, or remove {wargear}."),
    "wargear-invalid.required-within": lazy(
        "Add {missing} of {wargear} ({option}), or remove {parent}."
    ),
    "leader-attachment-illegal": lazy("Attach {datasheet} to one of: {allowed}."),
    "leader-attachment-illegal.not-a-leader": lazy("Detach {datasheet}."),
    "leader-attachment-illegal.bodyguard-taken": lazy(
        "Attach {datasheet} to another Bodyguard unit."
    ),
    "leader-attachment-illegal.conditional": lazy(
        "Check that {datasheet} has the wargear its Leader ability requires for {target}."
    ),
    "unknown": lazy("Check the spelling{suggestion}."),
    "datasheet-not-in-detachment": lazy(
        "Remove {datasheet} or choose a Detachment that allows it{suggestion}."
    ),
    "legends-not-included": lazy("Remove {datasheet} or include Legends in the list's settings."),
    "data-restriction": lazy(
        "Change {datasheet} or the rest of the army so that this no longer holds."
    ),
    "data-restriction.unavailable": lazy("Remove {datasheet} or change the rest of the army."),
    "category-limit-exceeded": lazy("Remove {excess} {keyword} unit(s){suggestion}."),
    "category-limit-exceeded.points": lazy(
        "Remove {excess} points of {keyword} units{suggestion}."
    ),
    "category-minimum-not-met": lazy(
        "Add {missing} {keyword} unit(s){suggestion}, or choose another Detachment."
    ),
    "category-minimum-not-met.points": lazy(
        "Add {missing} points of {keyword} units{suggestion}, or choose another Detachment."
    ),
}

# The engine's wording of the data's conditions (``RosterCondition.describe``), marked for
# translation: the same English strings as ``CONDITION_TEXTS`` of the engine (a test keeps them
# equal), and the compare words they are filled with.
CONDITION_TEXTS: Mapping[str, str] = {
    "models": lazy("{compare} {count} models in the unit"),
    "wargear": lazy("{compare} {count} × {name} in the unit"),
    "unit-keyword": lazy("the unit is {name}"),
    "unit-keyword.not": lazy("the unit is not {name}"),
    "units": lazy("{compare} {count} {name} unit(s) in the army"),
    "keyword": lazy("{compare} {count} {name} unit(s) in the army"),
    "warlord": lazy("{compare} {count} Warlord(s) in the army"),
    "warlord-units": lazy("{name} is the Warlord"),
    "warlord-units.not": lazy("{name} is not the Warlord"),
    "enhancement": lazy("{name} taken {compare} {count} time(s) in the army"),
    "keyword-points": lazy("{compare} {count} points of {name} units in the army"),
    "battle-size": lazy("the battle size is {name}"),
    "battle-size.not": lazy("the battle size is not {name}"),
    "detachment": lazy("the Detachment is {name}"),
    "detachment.not": lazy("the Detachment is not {name}"),
}
COMPARE_WORDS = (
    lazy("at least"),
    lazy("at most"),
    lazy("more than"),
    lazy("fewer than"),
    lazy("exactly"),
    lazy("other than"),
)

BATTLE_SIZES = {
    "Incursion": lazy("Incursion"),
    "Strike Force": lazy("Strike Force"),
    "Onslaught": lazy("Onslaught"),
}

_DID_YOU_MEAN = re.compile(r"^ \(did you mean (?P<names>.*)\?\)$", re.S)
_EXAMPLE = re.compile(r"^, e\.g\. (?P<names>.*)$", re.S)
_POINTS_SUFFIX = re.compile(r"^(?P<unit>.*), (?P<points>\d+) points$", re.S)
_BETWEEN = re.compile(r"^between (?P<lo>\d+) and (?P<hi>\d+)(?: \(points change at (?P<at>.*)\))?$")


def _or(names: str) -> str:
    return names.replace(" or ", _(" or "))


def _suggestion(value: str) -> str:
    if not value:
        return value
    m = _DID_YOU_MEAN.match(value)
    if m:
        return _(" (did you mean %(names)s?)") % {"names": _or(m["names"])}
    m = _EXAMPLE.match(value)
    if m:
        return _(", e.g. %(names)s") % {"names": m["names"]}
    m = _POINTS_SUFFIX.match(value)
    if m:
        return _("%(unit)s, %(points)s points") % {"unit": m["unit"], "points": m["points"]}
    return value


def _allowed(value: str) -> str:
    m = _BETWEEN.match(value)
    if m:
        text = _("between %(lo)s and %(hi)s") % {"lo": m["lo"], "hi": m["hi"]}
        if m["at"]:
            text += _(" (points change at %(sizes)s)") % {"sizes": m["at"]}
        return text
    return _or(value)


def _requirement(value: str) -> str:
    return value.replace(" and ", _(" and ")).replace(" or ", _(" or "))


def localised_params(params: Mapping[str, str | int]) -> dict[str, str | int]:
    """``params`` with their English words translated (names from the data unchanged)."""
    out: dict[str, str | int] = dict(params)
    for key, value in params.items():
        if not isinstance(value, str):
            continue
        if key == "suggestion":
            out[key] = _suggestion(value)
        elif key == "battle_size":
            out[key] = _(BATTLE_SIZES.get(value, value))
        elif key == "allowed" and (value[:1].isdigit() or value.startswith("between")):
            out[key] = _allowed(value)
        elif key == "requirement":
            out[key] = _requirement(value)
        elif key in ("factions", "detachment") and value in ("none", "(none)"):
            out[key] = _(value)
    return out


def _fill(template: str | None, fallback: str, params: Mapping[str, str | int]) -> str:
    if template is None:
        return fallback
    try:
        return _(template).format(**params)
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder
        return fallback


def closest_names(v: Violation) -> list[str]:
    """The closest known names the engine suggests for an unknown one."""
    value = v.params.get("closest")
    if not isinstance(value, str) or not value:
        return []
    return [name for name in value.split(", ") if name]


def violation_json(v: Violation) -> dict[str, Any]:
    """One violation as the API shows it, message and fix in the current language."""
    params = localised_params(v.params)
    if v.condition is not None and "condition" in params:
        # the data's condition worded again in the reader's language (names kept)
        params["condition"] = v.condition.describe(_)
    return {
        "code": v.code.value,
        "severity": v.severity.value,
        "message": _fill(MESSAGES.get(v.message_id), v.message, params),
        "fix": _fill(FIXES.get(v.fix_id), v.fix, params),
        "unit": v.unit,
        "message_id": v.message_id,
        "fix_id": v.fix_id,
        "params": dict(v.params),
        "closest": closest_names(v),
    }


# Words the templates above use in params, marked for translation.
_WORDS = (lazy("none"), lazy("(none)"))
