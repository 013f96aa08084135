"""Catalogues uploaded without their game system wait for it (issue 17): the .cat is imported
with what it holds and kept; adding the .gst alone imports it again, complete, into the same
catalogue (lists built with it keep working); a failed attempt loses nothing; each step says
what happened and what is kept."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.catalog import service, waiting
from app.catalog.bsdata import ImportLimits
from app.catalog.exceptions import ImportTooLarge
from app.catalog.models import WaitingUpload
from tests.catalog.test_web import logged_in, starter_loaded, upload
from tests.support.web import csrf, html, register

__all__ = ["logged_in", "starter_loaded"]  # the fixtures it uses

CATS = ["test-armoury.cat", "test-marines.cat", "test-orks.cat"]


def _post(client: TestClient, files: list[tuple[str, bytes]], **data: str) -> Any:
    token = csrf(client, "/catalogs/import")
    return client.post("/catalogs/import", data={"csrf_token": token, **data}, files=upload(files))


def _mine(client: TestClient) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in client.get("/api/v1/catalogs").json() if r["yours"]}


def _kept(page: Any) -> str:
    node = page.css_first("#missing-game-system #waiting-files")
    return "" if node is None else str(node.text())


def test_the_gst_alone_completes_the_cat_that_waited(
    logged_in: TestClient, files: list[tuple[str, bytes]], db: Session
) -> None:
    cats = [f for f in files if f[0].endswith(".cat")]
    (gst,) = [f for f in files if f[0].endswith(".gst")]
    first = _post(logged_in, cats)
    assert first.status_code == 201
    page = html(first)
    # step 1: imported with what it holds, the files kept, the way on offered
    assert [a.text(strip=True) for a in page.css("#import-result li > a:first-child")] == [
        "Test Marines",
        "Test Orks",
    ]
    assert all(name in _kept(page) for name in CATS)
    form = page.css_first("#add-game-system-form")
    assert form is not None
    assert form.attributes["action"] == "/catalogs/import"
    assert form.css_first("input[name=csrf_token]") is not None
    hidden = form.css_first("input[type=hidden][name=with_waiting]")
    assert hidden is not None
    assert hidden.attributes["value"] == "on"
    assert ".gst" in str(form.css_first("input[type=file][name=files]").attributes["accept"])  # type: ignore[union-attr]
    partial = _mine(logged_in)
    assert partial["Test Marines"]["version"] == "r12"  # no game system in its version
    # the user may leave and come back: the page still says what waits
    again = html(logged_in.get("/catalogs/import"))
    assert all(name in _kept(again) for name in CATS)
    checkbox = again.css_first("#import-form input#with-waiting[name=with_waiting][checked]")
    assert checkbox is not None

    # a list built with the partial catalogue meanwhile
    headers = {"X-CSRF-Token": csrf(logged_in, "/armies/new")}
    army = logged_in.post(
        "/api/v1/armies",
        json={
            "name": "Waiting",
            "catalog": partial["Test Marines"]["slug"],
            "faction": partial["Test Marines"]["factions"][0],
            "detachment": "",
            "battle_size": "incursion",
            "units": [],
        },
        headers=headers,
    )
    assert army.status_code == 201, army.text

    # step 2: the .gst alone, through the panel's form
    second = _post(logged_in, [gst], with_waiting="on")
    assert second.status_code == 201, second.text
    done = html(second)
    used = done.css_first("#kept-used")
    assert used is not None
    assert all(name in used.text() for name in CATS)
    assert done.css_first("#missing-game-system") is None
    assert "no-game-system" not in {
        li.attributes["data-code"] for li in done.css("#import-report .issue")
    }
    complete = _mine(logged_in)
    assert complete["Test Marines"]["id"] == partial["Test Marines"]["id"]  # the same catalogue
    assert complete["Test Marines"]["version"] == "r12+gst-r7"
    assert complete["Test Orks"]["id"] == partial["Test Orks"]["id"]
    # the same as importing every file at once
    assert html(logged_in.get("/catalogs/import")).css_first("#missing-game-system") is None
    user = db.query(User).filter_by(email="alice@example.com").one()
    assert waiting.waiting(db, user) is None
    listed = logged_in.get(f"/api/v1/armies/{army.json()['id']}", headers=headers)
    assert listed.status_code == 200
    assert listed.json()["catalog"]["id"] == complete["Test Marines"]["id"]


def test_a_failed_attempt_keeps_the_files(
    logged_in: TestClient, files: list[tuple[str, bytes]]
) -> None:
    cats = [f for f in files if f[0].endswith(".cat")]
    (gst,) = [f for f in files if f[0].endswith(".gst")]
    assert _post(logged_in, cats).status_code == 201
    # a broken game system: refused, the kept files still offered
    broken = _post(logged_in, [("test-system.gst", b"<gameSystem")], with_waiting="on")
    assert broken.status_code == 422
    page = html(broken)
    assert page.css_first("#import-errors") is not None
    assert all(name in _kept(page) for name in CATS)
    # the .gst alone through the main form with the box unticked: it has no catalogue of its
    # own, so it is refused; still nothing lost
    alone = _post(logged_in, [gst])
    assert alone.status_code == 422
    assert all(name in _kept(html(alone)) for name in CATS)
    # another .cat still without a game system: both uploads wait together
    (orks,) = [f for f in cats if f[0] == "test-orks.cat"]
    renamed = ("more-orks.cat", orks[1])
    more = _post(logged_in, [renamed], with_waiting="on")
    assert more.status_code == 201
    assert all(name in _kept(html(more)) for name in [*CATS, "more-orks.cat"])
    done = _post(logged_in, [gst], with_waiting="on")
    assert done.status_code == 201
    assert _mine(logged_in)["Test Marines"]["version"] == "r12+gst-r7"


def test_uploading_everything_again_also_ends_the_wait(
    logged_in: TestClient, files: list[tuple[str, bytes]]
) -> None:
    cats = [f for f in files if f[0].endswith(".cat")]
    assert _post(logged_in, cats).status_code == 201
    response = _post(logged_in, files)  # the old way: the .gst with the same files
    assert response.status_code == 201
    page = html(response)
    assert page.css_first("#missing-game-system") is None
    assert page.css_first("#kept-used") is None
    assert html(logged_in.get("/catalogs/import")).css_first("#missing-game-system") is None


def test_the_files_wait_for_their_owner_only(
    logged_in: TestClient, files: list[tuple[str, bytes]], app: Any
) -> None:
    cats = [f for f in files if f[0].endswith(".cat")]
    assert _post(logged_in, cats).status_code == 201
    with TestClient(app, base_url="http://testserver") as bob:
        register(bob, email="bob@example.com", name="Bob")
        page = html(bob.get("/catalogs/import"))
        assert page.css_first("#missing-game-system") is None
        assert page.css_first("#with-waiting") is None
        (gst,) = [f for f in files if f[0].endswith(".gst")]
        refused = _post(bob, [gst], with_waiting="on")
        assert refused.status_code == 422  # nothing of Alice's is read for Bob
        assert _mine(bob) == {}
    assert all(name in _kept(html(logged_in.get("/catalogs/import"))) for name in CATS)


def test_the_api_keeps_and_completes_the_same_way(
    logged_in: TestClient, files: list[tuple[str, bytes]]
) -> None:
    headers = {"X-CSRF-Token": csrf(logged_in, "/catalogs/import")}
    cats = [f for f in files if f[0].endswith(".cat")]
    (gst,) = [f for f in files if f[0].endswith(".gst")]
    first = logged_in.post("/api/v1/catalogs/import", files=upload(cats), headers=headers)
    assert first.status_code == 201, first.text
    assert sorted(first.json()["waiting"]) == CATS
    assert first.json()["kept_used"] == []
    alone = logged_in.post("/api/v1/catalogs/import", files=upload([gst]), headers=headers)
    assert alone.status_code == 422  # not asked to read the kept files: a .gst alone
    done = logged_in.post(
        "/api/v1/catalogs/import",
        files=upload([gst]),
        data={"with_waiting": "true"},
        headers=headers,
    )
    assert done.status_code == 201, done.text
    assert sorted(done.json()["kept_used"]) == CATS
    assert done.json()["waiting"] == []
    assert all(c["version"].endswith("+gst-r7") for c in done.json()["catalogues"])


def _owner(db: Session, email: str = "k@example.com") -> User:
    owner = User(email=email, display_name="K", password_hash="x")
    db.add(owner)
    db.flush()
    return owner


def test_two_uploads_at_once_keep_the_last_files(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Postgres lets two uploads of one user look for a kept set at once: the second insert
    breaks the one-set-per-user constraint, and replaces the first's files instead."""
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    found = waiting._stamp_now
    calls: list[bool] = []

    def unseen_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return None if len(calls) == 1 else found(*args, **kwargs)

    monkeypatch.setattr(waiting, "_stamp_now", unseen_once)
    kept = waiting.keep(db, owner, [("b.cat", b"<b/>")])
    monkeypatch.undo()
    assert kept.names == ("b.cat",)
    assert waiting.files(db, owner) == [("b.cat", b"<b/>")]
    assert len(calls) == 2


def test_a_set_that_keeps_changing_is_refused_not_asserted(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each insert meets a set another upload kept first, each time: after a few tries the
    upload is refused with a conflict (it may be sent again), not an assertion."""
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    monkeypatch.setattr(waiting, "_stamp_now", lambda *args, **kwargs: None)
    with pytest.raises(waiting.KeptFilesBusy):
        waiting.keep(db, owner, [("b.cat", b"<b/>")])
    monkeypatch.undo()
    assert waiting.files(db, owner) == [("a.cat", b"<a/>")]


def _read_meanwhile(
    monkeypatch: pytest.MonkeyPatch, meanwhile: Any, report: dict[str, Any]
) -> None:
    """``meanwhile`` runs while the upload's files are read (another tab of the same user);
    the import reads as ``report`` and stores nothing."""

    def fake_read(files: Any, limits: Any = None) -> Any:
        meanwhile()
        return service.ReadImport((), report)

    monkeypatch.setattr(service, "read_import", fake_read)
    monkeypatch.setattr(
        service, "store_import", lambda db, o, r: service.ImportOutcome((), (), r.report, r.shown)
    )


def test_ending_the_wait_spares_a_set_kept_meanwhile(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The .gst completes the kept a.cat while another tab keeps b.cat: b.cat, never read with
    a game system, still waits."""
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    _read_meanwhile(
        monkeypatch,
        lambda: waiting.keep(db, owner, [("b.cat", b"<b/>"), ("a.cat", b"<a/>")]),
        {"warnings": []},
    )
    done = waiting.import_upload(db, owner, [("sys.gst", io.BytesIO(b"<s/>"))], with_waiting=True)
    assert done.kept_used == ("a.cat",)
    assert done.waiting is not None
    assert done.waiting.names == ("b.cat", "a.cat")
    assert waiting.files(db, owner) == [("b.cat", b"<b/>"), ("a.cat", b"<a/>")]


def test_keeping_merges_with_a_set_kept_meanwhile(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tabs upload catalogues without their game system at once: the files of both wait."""
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    _read_meanwhile(
        monkeypatch,
        lambda: waiting.keep(db, owner, [("b.cat", b"<b/>")]),
        {"warnings": [{"code": "no-game-system"}]},
    )
    done = waiting.import_upload(db, owner, [("c.cat", io.BytesIO(b"<c/>"))], with_waiting=True)
    assert done.kept_used == ("a.cat",)
    assert done.waiting is not None
    assert sorted(done.waiting.names) == ["a.cat", "b.cat", "c.cat"]
    assert sorted(waiting.files(db, owner)) == [
        ("a.cat", b"<a/>"),
        ("b.cat", b"<b/>"),
        ("c.cat", b"<c/>"),
    ]


def test_keeping_after_the_set_was_removed_meanwhile(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another tab ends the wait while this upload is read: its files are kept anew (Postgres
    answered this with StaleDataError, a 500, when the row was loaded before it went)."""
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    seen = waiting._read(db, owner, archive=False)
    _read_meanwhile(
        monkeypatch,
        lambda: waiting.forget(db, owner, seen),
        {"warnings": [{"code": "no-game-system"}]},
    )
    done = waiting.import_upload(db, owner, [("c.cat", io.BytesIO(b"<c/>"))], with_waiting=True)
    assert done.waiting is not None
    assert sorted(waiting.files(db, owner)) == [("a.cat", b"<a/>"), ("c.cat", b"<c/>")]


def test_no_zip_is_read_or_written_under_the_write_lock(
    logged_in: TestClient, files: list[tuple[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept files are unzipped and zipped again while the upload is read, with no
    transaction open (deps.no_transaction): the write that follows only stores them."""
    import zipfile

    unlocked: list[bool] = []
    opened: list[bool] = []
    real = waiting.no_transaction

    @contextmanager
    def tracked(db: Session) -> Iterator[None]:
        with real(db):
            unlocked.append(True)
            yield
            unlocked.pop()

    class Zip(zipfile.ZipFile):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            opened.append(bool(unlocked))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(waiting, "no_transaction", tracked)
    monkeypatch.setattr(waiting, "zipfile", SimpleNamespace(ZipFile=Zip, ZIP_DEFLATED=8))
    cats = [f for f in files if f[0].endswith(".cat")]
    (orks,) = [f for f in cats if f[0] == "test-orks.cat"]
    assert _post(logged_in, cats[:2]).status_code == 201  # kept: zipped
    assert _post(logged_in, [("more-orks.cat", orks[1])], with_waiting="on").status_code == 201
    assert len(opened) == 3, opened  # zipped, unzipped, zipped again
    assert all(opened), opened  # each with no write lock held
    page = html(logged_in.get("/catalogs/import"))
    assert all(name in _kept(page) for name in [cats[0][0], cats[1][0], "more-orks.cat"])


def test_a_cat_without_the_box_ticked_joins_the_files_that_wait(
    logged_in: TestClient, files: list[tuple[str, bytes]]
) -> None:
    """Another upload that again lacks its game system keeps its files with those that wait,
    whether it read them or not."""
    cats = [f for f in files if f[0].endswith(".cat")]
    (orks,) = [f for f in cats if f[0] == "test-orks.cat"]
    assert _post(logged_in, cats).status_code == 201
    more = _post(logged_in, [("more-orks.cat", orks[1])])
    assert more.status_code == 201
    assert all(name in _kept(html(more)) for name in [*CATS, "more-orks.cat"])
    (gst,) = [f for f in files if f[0].endswith(".gst")]
    done = _post(logged_in, [gst], with_waiting="on")
    assert done.status_code == 201
    assert _mine(logged_in)["Test Marines"]["version"] == "r12+gst-r7"


def _alice(db: Session) -> User:
    return db.query(User).filter_by(email="alice@example.com").one()


def _age(db: Session, user: User, days: float) -> datetime:
    then = datetime.now(UTC) - timedelta(days=days)
    db.execute(
        update(WaitingUpload).where(WaitingUpload.owner_id == user.id).values(updated_at=then)
    )
    return then


def test_the_box_ticked_with_no_file_keeps_the_date(
    logged_in: TestClient, files: list[tuple[str, bytes]], db: Session
) -> None:
    """Sending the form with no file does not make the kept files wait a week more."""
    cats = [f for f in files if f[0].endswith(".cat")]
    assert _post(logged_in, cats).status_code == 201
    then = _age(db, _alice(db), 6)
    _post(logged_in, [], with_waiting="on")
    now = waiting.waiting(db, _alice(db))
    assert now is not None
    assert now.since == then


def test_expired_sets_are_removed_by_the_next_write(db: Session) -> None:
    old, new = _owner(db, "old@example.com"), _owner(db, "new@example.com")
    waiting.keep(db, old, [("a.cat", b"<a/>")])
    _age(db, old, 8)
    assert waiting.waiting(db, old) is None  # expired: shown to no one
    waiting.keep(db, new, [("b.cat", b"<b/>")])
    rows = db.scalars(select(WaitingUpload.owner_id)).all()
    assert rows == [new.id]  # and gone at the next write
    _age(db, new, 8)
    assert not waiting.forget(db, new, waiting.Kept())
    assert db.scalars(select(WaitingUpload.owner_id)).all() == []


def test_a_game_system_for_another_game_leaves_the_files_waiting(
    logged_in: TestClient, files: list[tuple[str, bytes]], db: Session
) -> None:
    cats = [f for f in files if f[0].endswith(".cat")]
    (gst,) = [f for f in files if f[0].endswith(".gst")]
    assert _post(logged_in, cats).status_code == 201
    other = (gst[0], gst[1].replace(b'id="sys-test"', b'id="sys-other"', 1))
    wrong = _post(logged_in, [other], with_waiting="on")
    assert wrong.status_code == 201, wrong.text
    codes = {li.attributes["data-code"] for li in html(wrong).css("#import-report .issue")}
    assert "game-system-mismatch" in codes
    assert all(name in _kept(html(wrong)) for name in CATS)
    kept = waiting.waiting(db, _alice(db))
    assert kept is not None
    assert sorted(kept.names) == CATS


def test_a_kept_set_past_the_bounds_is_refused_not_cut(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = _owner(db)
    waiting.keep(db, owner, [("a.cat", b"a" * 60), ("b.cat", b"b" * 60)])
    monkeypatch.setattr(waiting, "_LIMITS", ImportLimits(max_total_bytes=100))
    with pytest.raises(ImportTooLarge) as refused:
        waiting.files(db, owner)
    assert refused.value.extra["limit"] == "total-bytes"
    assert "kept" in refused.value.detail
    monkeypatch.setattr(waiting, "_LIMITS", ImportLimits(max_files=1))
    with pytest.raises(ImportTooLarge):
        waiting.files(db, owner)
