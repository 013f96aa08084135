"""The army builder's entry for PEN: units the players define (``app.catalog.pen_units``,
whose docstring shows a unit's stored shape), an optional points limit, and the checks of the
army as a whole (:func:`~app.catalog.pen_units.army_issues`) worded in the reader's language.

Unit references (``embarked_in``: the transport a unit starts in; ``joins``: the squad an
independent character starts in) are indices in the list, re-numbered here when a unit is
removed or put back, as the 10th edition's Leader attachments are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import service
from app.armies.models import Army, ArmyStatus
from app.armies.schemas import PEN, Army10eCreate, ArmyUpdate, PenArmyCreate, PenUnitIn
from app.armies.systems import ArmyForm
from app.catalog.pen_units import (
    PEN_ARMY_FORMAT,
    PenArmy,
    PenIssue,
    PenUnit,
    army_issues,
    check_unit,
)
from app.combat.forms import pen_types
from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.engine.errors import Message, ProfileError

_UNITS: TypeAdapter[list[PenUnitIn]] = TypeAdapter(list[PenUnitIn])
REFERENCES = ("embarked_in", "joins")  # unit fields naming another unit by index

# Each issue of app.catalog.pen_units.army_issues: (message, fix), marked for extraction and
# translated when a view is built (in the reader's language).
ISSUE_WORDING = {
    "points-over-limit": (
        lazy("The army costs %(points)s points, %(over)s over its limit of %(limit)s."),
        lazy("Remove %(over)s points of units, or raise the limit."),
    ),
    "embarked-not-a-transport": (
        lazy("%(unit)s starts in %(transport)s, which is not a transport."),
        lazy("Pick a vehicle with a transport capacity, or let it start on foot."),
    ),
    "embarked-vehicle": (
        lazy("%(unit)s is a vehicle: it cannot start inside a transport."),
        lazy("Let it start on the table."),
    ),
    "embarked-type": (
        lazy("%(transport)s carries only %(types)s; %(unit)s is %(type)s."),
        lazy("Add the unit's type to what the transport carries, or pick another transport."),
    ),
    "transport-full": (
        lazy("%(transport)s carries %(carried)s models, over its capacity of %(capacity)s."),
        lazy("Let a squad start outside, or raise the capacity."),
    ),
    "joins-missing": (
        lazy("%(unit)s joins squad #%(index)s, which the list does not have."),
        lazy("Pick a squad of the list, or none."),
    ),
    "joins-invalid": (
        lazy(
            "%(unit)s cannot join %(squad)s: an independent character joins a squad that is "
            "neither a vehicle nor another independent character."
        ),
        lazy("Pick another squad, or none."),
    ),
    "joins-elsewhere": (
        lazy("%(unit)s joins %(squad)s but starts in another transport than it."),
        lazy("Put the character in the squad's transport, or in none."),
    ),
    "missing-for-battle": (
        lazy("%(unit)s lacks %(fields)s for a battle."),
        lazy(
            "Fill them in the unit editor, unless its models lack them on purpose (a model "
            "lacking a characteristic passes the tests on it)."
        ),
    ),
}


def issue_json(issue: PenIssue) -> dict[str, Any]:
    """An issue as the API shows a violation (messages in the current language)."""
    message, fix = ISSUE_WORDING[issue.code]
    params = issue.values
    shown = _shown_params(params)
    return {
        "code": issue.code,
        "severity": issue.severity,
        "message": _(message) % shown,
        "fix": _(fix) % shown,
        "unit": issue.unit,
        "message_id": f"pen.{issue.code}",
        "fix_id": f"pen.{issue.code}",
        "params": params,
        "closest": [],
    }


# the characteristics a squad may lack for a battle (pen_units.BATTLE_FIELDS), as a page reads
_FIELD_LABELS = {"WS": lazy("WS"), "BS": lazy("BS"), "I": lazy("I"), "Ld": lazy("Ld")}


def _shown_params(params: Mapping[str, str | int]) -> dict[str, str | int]:
    """An issue's values in the reader's language: unit types ("infantry", "bike") and
    characteristics ("WS, Ld"); names and numbers as they are (``params`` stays the API's)."""
    shown = dict(params)
    if isinstance(shown.get("types"), str):
        shown["types"] = pen_types.unit_types_text(str(shown["types"]).split(", "))
    if isinstance(shown.get("type"), str) and shown["type"] != "-":
        shown["type"] = pen_types.unit_type_label(str(shown["type"]))
    if isinstance(shown.get("fields"), str):
        shown["fields"] = ", ".join(
            _(_FIELD_LABELS[f]) if f in _FIELD_LABELS else f
            for f in str(shown["fields"]).split(", ")
        )
    return shown


def pen_unit(data: Mapping[str, Any]) -> PenUnit:
    return PenUnit.from_dict(dict(data))


def pen_unit_dict(unit: PenUnit) -> dict[str, Any]:
    return PenUnitIn.model_validate(dataclasses.asdict(unit)).model_dump()


def army_of(army: Army) -> PenArmy:
    return PenArmy(
        name=army.name,
        units=tuple(pen_unit(u) for u in army.units),
        points_limit=army.points_limit,
    )


def validation_json(army: PenArmy) -> dict[str, Any]:
    """PEN has no muster rules: the units' bounds (checked when stored), the players' own
    points limit, transports and independent characters, and (warnings) what a battle needs."""
    violations = [issue_json(i) for i in army_issues(army)]
    return {
        "valid": not any(v["severity"] == "error" for v in violations),
        "points": army.points,
        "points_limit": army.points_limit,
        "units": [
            {
                "index": i,
                "datasheet": u.name,
                "models": u.models,
                "points": u.total_points,
                "base_points": u.points,
                "wargear_points": u.total_points - u.points,
                "enhancement_points": 0,
            }
            for i, u in enumerate(army.units)
        ],
        "violations": violations,
    }


def units_pen(raw: Sequence[Mapping[str, Any]] | Sequence[PenUnitIn]) -> list[dict[str, Any]]:
    try:
        units = _UNITS.validate_python(
            [u.model_dump() if isinstance(u, PenUnitIn) else u for u in raw]
        )
    except ValidationError as exc:
        raise service.invalid(service.pydantic_errors(exc, "units")) from None
    out: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    templates: list[Message | None] = []
    for i, u in enumerate(units):
        try:
            out.append(pen_unit_dict(check_unit(pen_unit(u.model_dump()))))
        except ProfileError as exc:
            problems.extend(service.profile_errors(exc, f"units.{i}"))
            templates.extend(exc.templates)
    if problems:
        raise service.invalid(problems, templates)
    return out


@dataclass(frozen=True)
class Pen:
    id: str = PEN
    export_format: str = PEN_ARMY_FORMAT
    page_template: str = "armies/pen.html"
    update_fields: tuple[str, ...] = ("points_limit",)

    def view(self, db: Session, army: Army) -> service.ArmyView:
        pen = army_of(army)
        return service.ArmyView(
            army, None, None, None, None, pen, validation_json(pen), self.page_template
        )

    def apply_update(self, db: Session, user: User, army: Army, data: ArmyUpdate) -> bool:
        changed = False
        if data.points_limit is not None and data.points_limit != army.points_limit:
            army.points_limit = data.points_limit
            changed = True
        if data.units is not None:
            army.units = units_pen(data.units)
            changed = True
        return changed

    def new_army(self, db: Session, user: User, data: Army10eCreate | PenArmyCreate) -> Army:
        assert isinstance(data, PenArmyCreate)
        return Army(
            owner_id=user.id,
            name=data.name.strip() or data.name,
            rule_system=PEN,
            status=ArmyStatus.DRAFT,
            points_limit=data.points_limit,
            units=units_pen(data.units),
        )

    def checked_units(self, raw: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return units_pen(raw)

    def referrers(self, units: Sequence[Mapping[str, Any]], index: int) -> list[int]:
        """The passengers of transport ``index``, or the characters joining squad ``index``."""
        return [
            j
            for j, u in enumerate(units)
            if j != index and any(u.get(key) == index for key in REFERENCES)
        ]

    def unit_removed(self, units: list[dict[str, Any]], index: int) -> None:
        """A reference to the removed unit is dropped; later ones follow their new index."""
        for u in units:
            for key in REFERENCES:
                target = u.get(key)
                if target == index:
                    u[key] = None
                elif isinstance(target, int) and target > index:
                    u[key] = target - 1

    def unit_restored(
        self,
        units: list[dict[str, Any]],
        index: int,
        unit: Mapping[str, Any],
        led_by: Sequence[int],
    ) -> None:
        """Later references follow; the passengers of a transport put back start in it again,
        the characters that joined a squad put back join it again."""
        for u in units:
            for key in REFERENCES:
                target = u.get(key)
                if isinstance(target, int) and target >= index:
                    u[key] = target + 1
        key = "embarked_in" if unit.get("armour") is not None else "joins"
        for j in led_by:
            if 0 <= j < len(units) and units[j].get(key) is None:
                units[j][key] = index

    def create_request(self, form: ArmyForm) -> PenArmyCreate:
        return PenArmyCreate(
            rule_system=PEN, name=form.name.strip(), points_limit=parse_int(form.points_limit)
        )

    def update_request(self, form: ArmyForm) -> ArmyUpdate:
        return ArmyUpdate(name=form.name.strip() or None, points_limit=parse_int(form.points_limit))

    def import_document(
        self, db: Session, user: User, body: Mapping[str, Any], catalog: str | int | None
    ) -> service.ArmyView:
        try:
            pen = PenArmy.from_dict(dict(body))
        except ProfileError as exc:
            raise service.refused(exc) from None
        army = Army(
            owner_id=user.id,
            name=pen.name.strip()[: service.MAX_NAME] or _("Imported list"),
            rule_system=PEN,
            status=ArmyStatus.DRAFT,
            points_limit=pen.points_limit,
            units=units_pen([pen_unit_dict(u) for u in pen.units]),
        )
        db.add(army)
        db.flush()
        return service.view(db, army)


SYSTEM = Pen()
