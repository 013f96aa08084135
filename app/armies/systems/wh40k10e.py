"""The army builder's entry for the 10th edition: a roster of catalogue datasheets, validated
against its catalogue by the muster rules (``app.engine.wh40k10e.army``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import advice, service
from app.armies.exceptions import ArmyNotFound
from app.armies.models import Army, ArmyStatus
from app.armies.schemas import WH40K_10E, Army10eCreate, ArmyUpdate, PenArmyCreate
from app.armies.systems import ArmyForm
from app.catalog import service as catalogs
from app.catalog.exceptions import CatalogueNotFound
from app.core.i18n import gettext as _
from app.engine.errors import ProfileError
from app.engine.wh40k10e.army import import_json, validate
from app.engine.wh40k10e.army.roster import ROSTER_FORMAT


@dataclass(frozen=True)
class Wh40k10e:
    id: str = WH40K_10E
    export_format: str = ROSTER_FORMAT
    page_template: str = "armies/army.html"
    update_fields: tuple[str, ...] = (
        "catalog",
        "faction",
        "detachment",
        "battle_size",
        "include_legends",
    )

    def view(self, db: Session, army: Army) -> service.ArmyView:
        record = catalogs.by_id(db, army.catalogue_id) if army.catalogue_id is not None else None
        if record is None:  # pragma: no cover - the foreign key forbids it
            raise ArmyNotFound(f"The catalogue of army list {army.id} is gone.")
        catalogue = catalogs.parsed(db, record)
        roster = service.roster_of(army, record)
        result = advice.refine(roster, catalogue, validate(roster, catalogue))
        return service.ArmyView(
            army,
            record,
            catalogue,
            roster,
            result,
            None,
            service.validation_json(result),
            self.page_template,
        )

    def apply_update(self, db: Session, user: User, army: Army, data: ArmyUpdate) -> bool:
        changed = False
        record = catalogs.by_id(db, army.catalogue_id) if army.catalogue_id else None
        if data.catalog is not None:
            new = catalogs.resolve(db, user, data.catalog)
            if record is None or new.id != record.id:
                army.catalogue_id = new.id
                changed = True
            record = new
        assert record is not None
        catalogue = catalogs.parsed(db, record)
        if data.faction is not None:
            faction = service.faction_of(catalogue, data.faction)
            if faction != army.faction:
                army.faction = faction
                changed = True
        if data.detachment is not None and data.detachment != army.detachment:
            detachment = service.detachment_of(catalogue, army.faction, data.detachment)
            if detachment != army.detachment:
                army.detachment = detachment
                changed = True
        if data.battle_size is not None and data.battle_size != army.battle_size:
            army.battle_size = data.battle_size
            changed = True
        if data.include_legends is not None and data.include_legends != army.include_legends:
            army.include_legends = data.include_legends
            changed = True
        if data.units is not None:
            army.units = service.units_10e(data.units)
            changed = True
        return changed

    def new_army(self, db: Session, user: User, data: Army10eCreate | PenArmyCreate) -> Army:
        assert isinstance(data, Army10eCreate)
        record = service.catalogue_for(db, user, data.catalog)
        catalogue = catalogs.parsed(db, record)
        faction = service.faction_of(catalogue, data.faction)
        return Army(
            owner_id=user.id,
            name=data.name.strip() or data.name,
            rule_system=WH40K_10E,
            status=ArmyStatus.DRAFT,
            catalogue_id=record.id,
            catalogue_version=record.version,
            faction=faction,
            detachment=service.detachment_of(catalogue, faction, data.detachment),
            battle_size=data.battle_size,
            include_legends=data.include_legends,
            units=service.units_10e(data.units),
        )

    def checked_units(self, raw: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return service.units_10e(raw)

    def referrers(self, units: Sequence[Mapping[str, Any]], index: int) -> list[int]:
        """The Leaders attached to unit ``index``."""
        return [j for j, u in enumerate(units) if j != index and u.get("attached_to") == index]

    def unit_removed(self, units: list[dict[str, Any]], index: int) -> None:
        """Leader attachments to later units follow their new index."""
        for u in units:
            target = u.get("attached_to")
            if target == index:
                u["attached_to"] = None
            elif isinstance(target, int) and target > index:
                u["attached_to"] = target - 1

    def unit_restored(
        self,
        units: list[dict[str, Any]],
        index: int,
        unit: Mapping[str, Any],
        led_by: Sequence[int],
    ) -> None:
        for u in units:
            target = u.get("attached_to")
            if isinstance(target, int) and target >= index:
                u["attached_to"] = target + 1
        for j in led_by:
            if 0 <= j < len(units):
                units[j]["attached_to"] = index

    def create_request(self, form: ArmyForm) -> Army10eCreate:
        return Army10eCreate(
            name=form.name.strip(),
            catalog=form.catalog or None,
            faction=form.faction,
            detachment=form.detachment or "",
            battle_size=form.battle_size or "strike-force",
            include_legends=bool(form.include_legends),
        )

    def update_request(self, form: ArmyForm) -> ArmyUpdate:
        return ArmyUpdate(
            name=form.name.strip() or None,
            detachment=form.detachment,
            battle_size=form.battle_size or None,
            include_legends=form.include_legends,
        )

    def import_document(
        self, db: Session, user: User, body: Mapping[str, Any], catalog: str | int | None
    ) -> service.ArmyView:
        try:
            roster = import_json(body)
        except ProfileError as exc:
            raise service.refused(exc) from None
        ref = catalog if catalog is not None else roster.catalogue
        try:
            record = service.catalogue_for(db, user, ref)
        except CatalogueNotFound:
            if catalog is not None:
                raise
            raise service.invalid(
                [
                    service.field_error(
                        "catalogue",
                        f"there is no catalogue {ref!r} you can use: import it, or name another "
                        "one with ?catalog=",
                        "unknown_catalogue",
                    )
                ]
            ) from None
        catalogue = catalogs.parsed(db, record)
        faction = service.faction_of(catalogue, roster.faction)
        army = Army(
            owner_id=user.id,
            name=roster.name.strip()[: service.MAX_NAME] or _("Imported list"),
            rule_system=WH40K_10E,
            status=ArmyStatus.DRAFT,
            catalogue_id=record.id,
            catalogue_version=roster.catalogue_version or record.version,
            faction=faction,
            detachment=roster.detachment,
            battle_size=roster.battle_size.value,
            include_legends=roster.include_legends,
            units=[service.unit_dict(u) for u in roster.units],
        )
        db.add(army)
        db.flush()
        return service.view(db, army)


SYSTEM = Wh40k10e()
