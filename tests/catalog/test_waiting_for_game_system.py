"""Catalogues uploaded without their game system wait for it (issue 17): the .cat is imported
with what it holds and kept; adding the .gst alone imports it again, complete, into the same
catalogue (lists built with it keep working); a failed attempt loses nothing; each step says
what happened and what is kept."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.catalog import waiting
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


def test_two_uploads_at_once_keep_the_last_files(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Postgres lets two uploads of one user look for a kept set at once: the second insert
    breaks the one-set-per-user constraint, and replaces the first's files instead."""
    owner = User(email="k@example.com", display_name="K", password_hash="x")
    db.add(owner)
    db.flush()
    waiting.keep(db, owner, [("a.cat", b"<a/>")])
    found = waiting._row
    calls: list[bool] = []

    def unseen_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return None if len(calls) == 1 else found(*args, **kwargs)

    monkeypatch.setattr(waiting, "_row", unseen_once)
    kept = waiting.keep(db, owner, [("b.cat", b"<b/>")])
    monkeypatch.undo()
    assert kept.names == ("b.cat",)
    assert waiting.files(db, owner) == [("b.cat", b"<b/>")]
    assert len(calls) == 2
