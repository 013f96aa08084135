"""The armies service: ready_snapshot for the matches and leagues features, catalogue versions,
unit editing."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import service
from app.armies.exceptions import ArmyNotFound, ArmyNotReady, UnitNotFound, WrongRuleSystem
from app.armies.schemas import Army10eCreate, ArmyUpdate, PenArmyCreate, PenUnitIn, UnitIn
from app.catalog import service as catalogs
from app.catalog import starter
from app.catalog.exceptions import DatasheetNotFound
from tests.armies.conftest import legal_army


@pytest.fixture
def users(db: Session) -> tuple[User, User]:
    starter.load(db)
    alice = User(email="a@example.com", display_name="A", password_hash="x")
    bob = User(email="b@example.com", display_name="B", password_hash="x")
    db.add_all([alice, bob])
    db.flush()
    return alice, bob


def create(db: Session, user: User, **extra: object) -> service.ArmyView:
    return service.create(db, user, Army10eCreate.model_validate(legal_army(**extra)))


def test_ready_snapshot(db: Session, users: tuple[User, User]) -> None:
    alice, bob = users
    v = create(db, alice)
    with pytest.raises(ArmyNotReady):
        service.ready_snapshot(db, alice, v.army.id)
    service.set_status(db, alice, v.army.id, "ready")
    snap = service.ready_snapshot(db, alice, v.army.id)
    assert snap["army_id"] == v.army.id
    assert snap["rule_system"] == "wh40k-10e"
    assert snap["catalogue"]["slug"] == "starter-wh40k10e"
    assert snap["catalogue_version"] == snap["catalogue"]["version"]
    assert snap["points"] == 775
    assert snap["points_limit"] == 1000
    assert snap["export"]["format"] == "auspex.army"
    assert snap["export"]["units"][0]["datasheet"] == "Captain"
    assert snap["validation"]["valid"] is True
    # plain JSON: it can be stored as is
    import json

    assert json.loads(json.dumps(snap)) == snap
    with pytest.raises(ArmyNotFound):
        service.ready_snapshot(db, bob, v.army.id)
    # an edit makes it a draft again
    service.update(db, alice, v.army.id, ArmyUpdate(name="Changed"))
    with pytest.raises(ArmyNotReady):
        service.ready_snapshot(db, alice, v.army.id)


def test_ready_snapshot_refuses_a_list_the_new_catalogue_breaks(
    db: Session, users: tuple[User, User], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, _ = users
    v = create(db, alice)
    service.set_status(db, alice, v.army.id, "ready")
    # the starter's next version drops the Redemptor Dreadnought
    from dataclasses import replace

    shipped = starter.starter_catalogue()
    newer = replace(
        shipped,
        version=shipped.version + "+next",
        datasheets=tuple(d for d in shipped.datasheets if d.name != "Redemptor Dreadnought"),
    )
    monkeypatch.setattr(starter, "starter_catalogue", lambda: newer)
    starter.load(db)
    seen = service.get(db, alice, v.army.id)
    assert seen.catalogue_outdated
    assert seen.army.catalogue_version == shipped.version
    with pytest.raises(ArmyNotReady) as caught:
        service.ready_snapshot(db, alice, v.army.id)
    assert any(x["code"] == "unknown-datasheet" for x in caught.value.extra["violations"])


def test_pen_snapshot(db: Session, users: tuple[User, User]) -> None:
    alice, _ = users
    unit = PenUnitIn(
        name="Gardes", points=60, models=10, characteristics={"toughness": 3, "wounds": 1}
    )  # type: ignore[arg-type]
    v = service.create(db, alice, PenArmyCreate(rule_system="pen", name="P", units=[unit]))
    service.set_status(db, alice, v.army.id, "ready")
    snap = service.ready_snapshot(db, alice, v.army.id)
    assert snap["catalogue"] is None
    assert snap["export"]["format"] == "auspex.pen-army"
    assert snap["points"] == 60


def test_unit_editing(db: Session, users: tuple[User, User]) -> None:
    alice, _ = users
    v = create(db, alice, units=[])
    record = catalogs.starter(db)
    captain = catalogs.parsed(db, record).datasheet("Captain")
    assert captain is not None
    v = service.add_unit(db, alice, v.army.id, captain.id)
    v = service.add_unit(db, alice, v.army.id, captain.id)
    assert [u["models"] for u in v.army.units] == [1, 1]
    v = service.set_unit(db, alice, v.army.id, 0, UnitIn(datasheet="Captain", warlord=True))
    v = service.set_unit(db, alice, v.army.id, 1, UnitIn(datasheet="Captain", warlord=True))
    assert [u["warlord"] for u in v.army.units] == [False, True]
    with pytest.raises(UnitNotFound):
        service.set_unit(db, alice, v.army.id, 5, UnitIn(datasheet="Captain"))
    with pytest.raises(DatasheetNotFound):
        service.add_unit(db, alice, v.army.id, "no-such-id")


def test_pen_and_10e_operations_do_not_mix(db: Session, users: tuple[User, User]) -> None:
    alice, _ = users
    pen = service.create(db, alice, PenArmyCreate(rule_system="pen", name="P"))
    with pytest.raises(WrongRuleSystem):
        service.add_unit(db, alice, pen.army.id, "x")
    tenth = create(db, alice)
    with pytest.raises(WrongRuleSystem):
        service.save_pen_unit(
            db,
            alice,
            tenth.army.id,
            None,
            PenUnitIn(name="X", points=1, characteristics={"toughness": 3}),
        )  # type: ignore[arg-type]


def test_editing_records_the_current_catalogue_version(
    db: Session, users: tuple[User, User]
) -> None:
    alice, _ = users
    v = create(db, alice)
    v.army.catalogue_version = "old"
    db.flush()
    assert service.get(db, alice, v.army.id).catalogue_outdated
    copy = service.copy(db, alice, v.army.id)
    assert copy.army.catalogue_version == "old"  # a copy is the same list
    edited = service.remove_unit(db, alice, v.army.id, 6)
    assert edited.army.catalogue_version == edited.record.version  # type: ignore[union-attr]
    assert not edited.catalogue_outdated
