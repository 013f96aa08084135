"""Army lists: create, read, edit, copy, delete (owner only), validation, ready gating,
export / import, share links, and the stateless roster check. Flushes, never commits.

Access: a list is its owner's; to anyone else it does not exist (404). Every read validates the
list against its catalogue (the parsed catalogue is cached, a validation takes well under a
millisecond), so points and violations are never stale. A list is "ready" only while valid;
any edit makes it a draft again.

For the matches and leagues features: :func:`ready_snapshot`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import lock_user
from app.armies import advice, loadout, messages
from app.armies.exceptions import (
    ArmyChanged,
    ArmyLimitReached,
    ArmyNotFound,
    ArmyNotReady,
    ArmyNotValid,
    InvalidArmy,
    SharedArmyNotFound,
    UnitNotFound,
    WrongRuleSystem,
)
from app.armies.models import Army, ArmyStatus
from app.armies.schemas import (
    PEN,
    WH40K_10E,
    Army10eCreate,
    ArmyUpdate,
    PenArmyCreate,
    PenUnitIn,
    RosterCheck,
    UnitIn,
)
from app.armies.systems import system_for, systems
from app.catalog import service as catalogs
from app.catalog.models import CatalogueRecord
from app.catalog.pen_units import PenArmy
from app.core import security
from app.core.config import get_settings
from app.core.db import as_aware, utcnow
from app.core.i18n import gettext as _
from app.engine.errors import Message, ProfileError
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    ValidationResult,
    closest,
    export_json,
    validate,
)

SHARE_PREFIX = "army_"
MAX_NAME = 200
MAX_ARMIES = 500  # army lists one user keeps (created, copied or imported); 409 past it

_UNITS_10E: TypeAdapter[list[UnitIn]] = TypeAdapter(list[UnitIn])


# -- errors ------------------------------------------------------------------------------------


def field_error(field: str, message: str, kind: str) -> dict[str, Any]:
    return {"field": field or None, "message": message, "type": kind}


def pydantic_errors(exc: ValidationError, prefix: str) -> list[dict[str, Any]]:
    out = []
    for err in exc.errors():
        path = ".".join([prefix, *(str(p) for p in err["loc"])]).strip(".")
        out.append(field_error(path, err["msg"], err["type"]))
    return out


def profile_errors(exc: ProfileError, prefix: str = "") -> list[dict[str, Any]]:
    out = []
    for field, message in exc.errors:
        path = (
            f"{prefix}.{field}"
            if prefix and field and not field.startswith("[")
            else prefix + field
        )
        out.append(field_error(path.replace("[", ".").replace("]", ""), message, "invalid_profile"))
    return out


def invalid(errors: list[dict[str, Any]], templates: Sequence[Message | None] = ()) -> InvalidArmy:
    """The 422 of ``errors``; ``templates`` (one per entry, when known) lets a page show each
    engine message in the reader's language, the problem document staying as it is."""
    detail = "; ".join(f"{e['field'] or 'body'}: {e['message']}" for e in errors[:10])
    refused = InvalidArmy(detail, errors=errors)
    if len(templates) == len(errors):
        refused.templates = tuple(templates)
    return refused


def refused(exc: ProfileError, prefix: str = "") -> InvalidArmy:
    """The 422 of an engine error (a roster or document value out of bounds): every problem,
    each with the engine's message a page translates."""
    return invalid(profile_errors(exc, prefix), exc.templates)


# -- the view of a list ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ArmyView:
    """A list with everything a reader needs: its catalogue, the engine's value of it (a
    roster or a PEN army) and its validation, with messages in the current language."""

    army: Army
    record: CatalogueRecord | None
    catalogue: Catalogue | None
    roster: Roster | None
    result: ValidationResult | None
    pen: PenArmy | None
    validation: dict[str, Any]
    template: str = "armies/army.html"  # the list page (its rule system's)

    @property
    def valid(self) -> bool:
        return bool(self.validation["valid"])

    @property
    def points(self) -> int:
        return int(self.validation["points"])

    @property
    def points_limit(self) -> int | None:
        limit = self.validation["points_limit"]
        return None if limit is None else int(limit)

    @property
    def catalogue_outdated(self) -> bool:
        return (
            self.record is not None
            and self.army.catalogue_version is not None
            and self.army.catalogue_version != self.record.version
        )


def roster_unit(data: Mapping[str, Any]) -> RosterUnit:
    return RosterUnit(
        datasheet=str(data["datasheet"]),
        models=data.get("models"),
        wargear=dict(data.get("wargear") or {}),
        enhancements=tuple(data.get("enhancements") or ()),
        warlord=bool(data.get("warlord", False)),
        attached_to=data.get("attached_to"),
        label=str(data.get("label") or ""),
    )


def unit_dict(unit: RosterUnit) -> dict[str, Any]:
    """A roster unit in its stored (and API) form: every field present."""
    return {
        "datasheet": unit.datasheet,
        "models": unit.models,
        "wargear": dict(unit.wargear),
        "enhancements": list(unit.enhancements),
        "warlord": unit.warlord,
        "attached_to": unit.attached_to,
        "label": unit.label,
    }


def roster_of(army: Army, record: CatalogueRecord | None) -> Roster:
    return Roster(
        faction=army.faction,
        detachment=army.detachment,
        battle_size=BattleSize(army.battle_size or BattleSize.STRIKE_FORCE),
        units=tuple(roster_unit(u) for u in army.units),
        name=army.name,
        catalogue=record.slug if record else None,
        catalogue_version=army.catalogue_version,
        include_legends=army.include_legends,
    )


def validation_json(result: ValidationResult) -> dict[str, Any]:
    """A validation as the API shows it (messages in the current language)."""
    return {
        "valid": result.valid,
        "points": result.points,
        "points_limit": result.points_limit,
        "units": [
            {
                "index": u.index,
                "datasheet": u.datasheet,
                "models": u.models,
                "points": u.points,
                "base_points": u.base_points,
                "wargear_points": u.wargear_points,
                "enhancement_points": u.enhancement_points,
            }
            for u in result.units
        ],
        "violations": [messages.violation_json(v) for v in result.violations],
    }


def view(db: Session, army: Army) -> ArmyView:
    """Build the view of a list (validated now, against its catalogue's current version)."""
    return system_for(army.rule_system).view(db, army)


def catalogue_ref(record: CatalogueRecord) -> dict[str, Any]:
    return {"id": record.id, "slug": record.slug, "name": record.name, "version": record.version}


def army_json(v: ArmyView) -> dict[str, Any]:
    """A list as ``GET /armies/{id}`` answers it."""
    a = v.army
    return {
        "id": a.id,
        "name": a.name,
        "rule_system": a.rule_system,
        "status": a.status,
        "catalog": catalogue_ref(v.record) if v.record else None,
        "catalog_version": a.catalogue_version,
        "catalog_outdated": v.catalogue_outdated,
        "faction": a.faction,
        "detachment": a.detachment,
        "battle_size": a.battle_size,
        "include_legends": a.include_legends,
        "points_limit": v.points_limit,
        "units": list(a.units),
        "validation": v.validation,
        "shared": a.share_digest is not None,
        "shared_at": as_aware(a.shared_at) if a.shared_at else None,
        "created_at": as_aware(a.created_at),
        "updated_at": as_aware(a.updated_at),
    }


def summary_json(v: ArmyView) -> dict[str, Any]:
    a = v.army
    return {
        "id": a.id,
        "name": a.name,
        "rule_system": a.rule_system,
        "status": a.status,
        "faction": a.faction,
        "detachment": a.detachment,
        "battle_size": a.battle_size,
        "points": v.points,
        "points_limit": v.points_limit,
        "valid": v.valid,
        "updated_at": as_aware(a.updated_at),
    }


def shared_json(v: ArmyView) -> dict[str, Any]:
    full = army_json(v)
    keep = (
        "name",
        "rule_system",
        "status",
        "catalog",
        "catalog_version",
        "faction",
        "detachment",
        "battle_size",
        "include_legends",
        "points_limit",
        "units",
        "validation",
        "updated_at",
    )
    return {k: full[k] for k in keep}


# -- reading -------------------------------------------------------------------------------


def own(db: Session, user: User, army_id: int, *, for_change: bool = False) -> Army:
    """The user's list, else ArmyNotFound (another user's list does not exist for them).

    ``for_change``: read afresh and locked until the transaction ends (a Postgres row lock;
    SQLite writers are already serialized by BEGIN IMMEDIATE), so that two concurrent edits of
    one list apply one after the other instead of the second overwriting the first."""
    army = db.get(Army, army_id, with_for_update=for_change, populate_existing=for_change)
    if army is None or army.owner_id != user.id:
        raise ArmyNotFound(f"There is no army list {army_id} of yours.")
    return army


def get(db: Session, user: User, army_id: int) -> ArmyView:
    return view(db, own(db, user, army_id))


def list_armies(db: Session, user: User) -> list[ArmyView]:
    armies = db.scalars(
        select(Army)
        .where(Army.owner_id == user.id)
        .order_by(Army.updated_at.desc(), Army.id.desc())
    )
    return [view(db, a) for a in armies]


# -- writing ---------------------------------------------------------------------------------


def catalogue_for(db: Session, user: User | None, ref: str | int | None) -> CatalogueRecord:
    if ref is None:
        return catalogs.starter(db)
    return catalogs.resolve(db, user, ref)


def faction_of(catalogue: Catalogue, name: str) -> str:
    found = catalogue.faction(name)
    if found is None:
        near = closest(name, catalogue.factions)
        hint = f" (did you mean {' or '.join(near)}?)" if near else ""
        raise invalid(
            [
                field_error(
                    "faction",
                    f"the catalogue has no faction {name!r}{hint}; it has "
                    f"{', '.join(catalogue.factions)}",
                    "unknown_faction",
                )
            ]
        )
    return found


def detachment_of(catalogue: Catalogue, faction: str, name: str) -> str:
    """The catalogue's spelling of detachment ``name`` of ``faction`` ("" for none); a
    detachment of another faction, or of none, is refused (422 naming the field)."""
    if not name.strip():
        return ""
    found = catalogue.detachment(name, faction)
    if found is not None:
        return found.name
    other = catalogue.detachment(name)
    ours = [d.name for d in catalogue.detachments_of(faction)]
    if other is not None:
        message = _("%(detachment)s is a detachment of %(other)s, not of %(faction)s.") % {
            "detachment": other.name,
            "other": other.faction,
            "faction": faction,
        }
    else:
        message = _("%(faction)s has no detachment %(detachment)s.") % {
            "detachment": name,
            "faction": faction,
        }
    if ours:
        message += " " + _("Pick one of: %(names)s.") % {"names": ", ".join(ours)}
    raise invalid([field_error("detachment", message, "unknown_detachment")])


def units_10e(raw: Sequence[Mapping[str, Any]] | Sequence[UnitIn]) -> list[dict[str, Any]]:
    try:
        units = _UNITS_10E.validate_python(
            [u.model_dump() if isinstance(u, UnitIn) else u for u in raw]
        )
    except ValidationError as exc:
        raise invalid(pydantic_errors(exc, "units")) from None
    out: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    templates: list[Message | None] = []
    for i, u in enumerate(units):
        try:
            out.append(unit_dict(roster_unit(u.model_dump())))
        except ProfileError as exc:
            problems.extend(profile_errors(exc, f"units.{i}"))
            templates.extend(exc.templates)
    if problems:
        raise invalid(problems, templates)
    return out


def room_for_one_more(db: Session, user: User) -> None:
    """409 when ``user`` keeps :data:`MAX_ARMIES` lists; called before each new list (created,
    copied, imported), with the user's row held so that two at once count one after the other."""
    lock_user(db, user.id)
    held = db.scalar(select(func.count()).select_from(Army).where(Army.owner_id == user.id))
    if (held or 0) >= MAX_ARMIES:
        raise ArmyLimitReached(
            _("You have %(n)d army lists, the most one account may keep: delete one first.")
            % {"n": MAX_ARMIES}
        )


def create(db: Session, user: User, data: Army10eCreate | PenArmyCreate) -> ArmyView:
    room_for_one_more(db, user)
    army = system_for(data.rule_system).new_army(db, user, data)
    db.add(army)
    db.flush()
    return view(db, army)


def _mark_ready(db: Session, army: Army) -> ArmyView:
    seen = view(db, army)
    if not seen.valid:
        errors = [v for v in seen.validation["violations"] if v["severity"] == "error"]
        raise ArmyNotValid(
            f"The list has {len(errors)} error(s): fix them before marking it ready.",
            violations=seen.validation["violations"],
        )
    army.status = ArmyStatus.READY
    db.flush()
    return seen


def _edited(army: Army) -> None:
    """Any change makes a ready list a draft again."""
    army.status = ArmyStatus.DRAFT
    army.updated_at = utcnow()


def _refresh_version(db: Session, army: Army) -> None:
    """An edited list is now built with its catalogue's current version."""
    if army.catalogue_id is not None:
        record = catalogs.by_id(db, army.catalogue_id)
        if record is not None:
            army.catalogue_version = record.version


def update(db: Session, user: User, army_id: int, data: ArmyUpdate) -> ArmyView:
    army = own(db, user, army_id, for_change=True)
    system = system_for(army.rule_system)
    foreign = {f for other in systems() for f in other.update_fields} - set(system.update_fields)
    wrong = [f for f in sorted(foreign) if getattr(data, f) is not None]
    if wrong:
        raise WrongRuleSystem(
            f"{', '.join(wrong)}: not a field of a {army.rule_system} list.",
            errors=[
                field_error(f, "not a field of this rule system", "extra_forbidden") for f in wrong
            ],
        )
    changed = False
    if data.name is not None and data.name != army.name:
        army.name = data.name
        changed = True
    if system.apply_update(db, user, army, data):
        changed = True
    if changed:
        _refresh_version(db, army)  # an edited list is built with its catalogue's version now
        _edited(army)
    if data.status == "ready":
        return _mark_ready(db, army)
    if data.status == "draft" and army.status != ArmyStatus.DRAFT:
        army.status = ArmyStatus.DRAFT
    db.flush()
    return view(db, army)


def set_status(db: Session, user: User, army_id: int, status: str) -> ArmyView:
    return update(db, user, army_id, ArmyUpdate.model_validate({"status": status}))


def copy(db: Session, user: User, army_id: int) -> ArmyView:
    source = own(db, user, army_id)
    room_for_one_more(db, user)
    suffix = _(" (copy)")
    army = Army(
        owner_id=user.id,
        name=(source.name[: MAX_NAME - len(suffix)] + suffix),
        rule_system=source.rule_system,
        status=ArmyStatus.DRAFT,
        catalogue_id=source.catalogue_id,
        catalogue_version=source.catalogue_version,
        faction=source.faction,
        detachment=source.detachment,
        battle_size=source.battle_size,
        include_legends=source.include_legends,
        points_limit=source.points_limit,
        units=[dict(u) for u in source.units],
    )
    db.add(army)
    db.flush()
    return view(db, army)


def delete(db: Session, user: User, army_id: int) -> None:
    db.delete(own(db, user, army_id, for_change=True))
    db.flush()


# -- unit editing (the builder) ----------------------------------------------------------------


def _units_changed(db: Session, army: Army, units: list[dict[str, Any]]) -> ArmyView:
    _refresh_version(db, army)  # before the change: its query would flush it, a second UPDATE
    army.units = units
    _edited(army)
    db.flush()
    return view(db, army)


def _unit_index(army: Army, index: int) -> None:
    if not 0 <= index < len(army.units):
        raise UnitNotFound(f"Army list {army.id} has no unit {index}.")


def _require(army: Army, system: str) -> None:
    if army.rule_system != system:
        raise WrongRuleSystem(f"Army list {army.id} is a {army.rule_system} list.")


def add_unit(
    db: Session, user: User, army_id: int, datasheet_id: str, models: int | None = None
) -> ArmyView:
    """Add a unit of the datasheet (by id) at its minimum size, or ``models`` models."""
    army = own(db, user, army_id, for_change=True)
    _require(army, WH40K_10E)
    record = catalogs.by_id(db, army.catalogue_id) if army.catalogue_id else None
    assert record is not None
    sheet = catalogs.datasheet(catalogs.parsed(db, record), datasheet_id)
    unit = {"datasheet": sheet.name, "models": models if models is not None else sheet.min_models}
    return _units_changed(db, army, [*army.units, *units_10e([unit])])


def set_unit(db: Session, user: User, army_id: int, index: int, unit: UnitIn) -> ArmyView:
    """Replace unit ``index``. A unit marked Warlord takes the mark from every other unit."""
    army = own(db, user, army_id, for_change=True)
    _require(army, WH40K_10E)
    _unit_index(army, index)
    units = [dict(u) for u in army.units]
    (units[index],) = units_10e([unit])
    if unit.warlord:
        for i, other in enumerate(units):
            if i != index:
                other["warlord"] = False
    return _units_changed(db, army, units)


def remove_unit(db: Session, user: User, army_id: int, index: int) -> ArmyView:
    """Remove unit ``index``; references to later units (Leader attachments, transports,
    joined squads) follow their new index."""
    army = own(db, user, army_id, for_change=True)
    _unit_index(army, index)
    units = [dict(u) for i, u in enumerate(army.units) if i != index]
    system_for(army.rule_system).unit_removed(units, index)
    return _units_changed(db, army, units)


def restore_unit(
    db: Session,
    user: User,
    army_id: int,
    index: int,
    unit: Mapping[str, Any],
    led_by: Sequence[int],
    revision: int,
) -> ArmyView:
    """Undo a removal: put ``unit`` back at ``index`` and re-attach the Leaders (``led_by``,
    indices in the list without it) that were attached to it. ``revision`` is the list's
    revision right after the removal: if the list changed since, ArmyChanged (409)."""
    army = own(db, user, army_id, for_change=True)
    if army.revision != revision:
        raise ArmyChanged(
            f"Army list {army_id} changed since the unit was removed: add it again instead."
        )
    if not 0 <= index <= len(army.units):
        raise UnitNotFound(f"Army list {army.id} has no place {index}.")
    system = system_for(army.rule_system)
    restored = system.checked_units([unit])[0]
    units = [dict(u) for u in army.units]
    system.unit_restored(units, index, restored, led_by)
    units.insert(index, restored)
    return _units_changed(db, army, units)


def save_pen_unit(
    db: Session, user: User, army_id: int, index: int | None, unit: PenUnitIn
) -> ArmyView:
    """Add (``index`` None) or replace a PEN unit; its bounds are checked (422 naming fields)."""
    army = own(db, user, army_id, for_change=True)
    _require(army, PEN)
    units = [dict(u) for u in army.units]
    (checked,) = system_for(PEN).checked_units([unit.model_dump()])
    if index is None:
        units.append(checked)
    else:
        _unit_index(army, index)
        units[index] = checked
    return _units_changed(db, army, units)


# -- export and import -----------------------------------------------------------------------


def export_document(v: ArmyView) -> dict[str, Any]:
    """Our JSON form of the list (what :func:`import_document` reads back, losslessly)."""
    if v.pen is not None:
        doc: dict[str, Any] = dict(v.pen.to_dict())
        doc["summary"] = {
            "points": v.points,
            "points_limit": v.points_limit,
            "valid": v.valid,
        }
        return doc
    assert v.roster is not None
    assert v.catalogue is not None
    assert v.result is not None
    doc = dict(export_json(v.roster, v.catalogue))
    summary = doc.get("summary")
    if isinstance(summary, dict):
        summary["units"] = loadouts_json(v)
    return doc


def loadouts_json(v: ArmyView) -> list[Any]:
    """What each unit carries, for readers of the JSON export (the import ignores it: the
    choices in ``units`` are the list): its models as groups of one model type carrying the
    same wargear, and each weapon with how many models carry it."""
    assert v.roster is not None
    assert v.catalogue is not None
    assert v.result is not None
    faction = v.catalogue.faction(v.roster.faction) or v.roster.faction
    out: list[Any] = []
    for unit, counted in zip(v.roster.units, v.result.units, strict=True):
        sheet = v.catalogue.datasheet(unit.datasheet, faction)
        entry: dict[str, Any] = {"datasheet": unit.datasheet, "models": counted.models}
        if sheet is not None:
            entry["datasheet"] = sheet.name
            wargear = dict(unit.wargear)
            entry["loadout"] = [
                {
                    "model": kit.model or None,
                    "count": kit.count,
                    "wargear": [{"name": n, "count": c} for n, c in kit.wargear],
                }
                for kit in loadout.kits(sheet, counted.models, wargear)
            ]
            entry["weapons"] = [
                {"name": w.name, "models": n}
                for w, n in loadout.loadout(sheet, counted.models, wargear)
            ]
        out.append(entry)
    return out


# -- share links -------------------------------------------------------------------------------


def _share_token(army: Army) -> str | None:
    """The list's share token, derived from the server key, the list and the moment the link
    was made: the owner can see it again (only its digest is stored, to look it up), and a new
    link or a changed server key makes another one."""
    if army.shared_at is None:
        return None
    moment = as_aware(army.shared_at).strftime("%Y%m%dT%H%M%S.%f")
    mac = hmac.new(
        get_settings().secret_key.encode(),
        f"army-share\x00{army.id}\x00{moment}".encode(),
        hashlib.sha256,
    ).digest()
    return SHARE_PREFIX + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def share_token(army: Army) -> str | None:
    """The active share token of the list, if it has one that the owner can see again (a link
    made before tokens were derived cannot be shown: make a new one)."""
    token = _share_token(army)
    if token is None or army.share_digest is None:
        return None
    return token if security.hmac_equal(security.digest(token), army.share_digest) else None


def create_share(db: Session, user: User, army_id: int) -> tuple[Army, str]:
    """A new read-only share link (replacing any previous one)."""
    army = own(db, user, army_id, for_change=True)
    army.shared_at = utcnow()
    token = _share_token(army)
    assert token is not None
    army.share_digest = security.digest(token)
    db.flush()
    return army, token


def revoke_share(db: Session, user: User, army_id: int) -> Army:
    army = own(db, user, army_id, for_change=True)
    army.share_digest = None
    army.shared_at = None
    db.flush()
    return army


def shared(db: Session, token: str) -> ArmyView:
    """The list behind a share token, else SharedArmyNotFound."""
    if not token.startswith(SHARE_PREFIX) or len(token) > 100:
        raise SharedArmyNotFound("This share link is invalid or revoked.")
    army = db.scalar(select(Army).where(Army.share_digest == security.digest(token)))
    if army is None:
        raise SharedArmyNotFound("This share link is invalid or revoked.")
    return view(db, army)


# -- the stateless check ---------------------------------------------------------------------


def check(db: Session, user: User | None, body: RosterCheck) -> dict[str, Any]:
    """Validate a roster sent in full (nothing stored): points and every violation."""
    record = catalogue_for(db, user, body.catalog)
    catalogue = catalogs.parsed(db, record)
    try:
        roster = Roster(
            faction=body.faction,
            detachment=body.detachment,
            battle_size=BattleSize(body.battle_size),
            units=tuple(
                RosterUnit(
                    datasheet=u.datasheet,
                    models=u.models,
                    wargear=u.wargear,
                    enhancements=tuple(u.enhancements),
                    warlord=u.warlord,
                    attached_to=u.attached_to,
                    label=u.label,
                )
                for u in body.units
            ),
            include_legends=body.include_legends,
        )
    except ProfileError as exc:  # pragma: no cover - the schema has the same bounds
        raise refused(exc) from None
    result = advice.refine(roster, catalogue, validate(roster, catalogue))
    return {**validation_json(result), "catalog": catalogue_ref(record)}


# -- for the matches and leagues features ------------------------------------------------------


def ready_snapshot(db: Session, user: User, army_id: int) -> dict[str, Any]:
    """The frozen content of one of ``user``'s lists that is marked ready, for a match or a
    league to keep.

    Returns a plain-JSON dict::

        {"army_id": 12, "name": "...", "rule_system": "wh40k-10e" | "pen",
         "catalogue": {"id": 1, "slug": "starter-wh40k10e", "name": "...", "version": "..."}
                      | None (PEN),
         "catalogue_version": "<the version the list was built with>" | None,
         "faction": "...", "detachment": "...", "battle_size": "strike-force" | None,
         "include_legends": true | false,
         "points": 1995, "points_limit": 2000 | None,
         "export": <the list's full JSON export (export_document): what
                    POST /api/v1/armies/import reads back>,
         "validation": <points per unit and violations (warnings only, since it is valid)>}

    Raises :class:`ArmyNotFound` (404) if the list is not the user's, and
    :class:`ArmyNotReady` (409) if it is not marked ready, or no longer valid against its
    catalogue's current version (``violations`` lists why). The caller stores the dict; later
    edits of the list do not change it.
    """
    army = own(db, user, army_id)
    if army.status != ArmyStatus.READY:
        raise ArmyNotReady(f"Army list {army_id} is not marked ready.")
    v = view(db, army)
    if not v.valid:
        raise ArmyNotReady(
            f"Army list {army_id} is no longer valid against its catalogue.",
            violations=v.validation["violations"],
        )
    return {
        "army_id": army.id,
        "name": army.name,
        "rule_system": army.rule_system,
        "catalogue": catalogue_ref(v.record) if v.record else None,
        "catalogue_version": army.catalogue_version,
        "faction": army.faction,
        "detachment": army.detachment,
        "battle_size": army.battle_size,
        "include_legends": army.include_legends,
        "points": v.points,
        "points_limit": v.points_limit,
        "export": export_document(v),
        "validation": v.validation,
    }
