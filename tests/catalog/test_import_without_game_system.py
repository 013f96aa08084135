"""A catalogue uploaded without its game system gets a clear answer, and a form to import it
again with the .gst."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.catalog.test_web import logged_in, starter_loaded, upload

__all__ = ["logged_in", "starter_loaded"]  # the fixtures it uses
from tests.support.web import csrf, html


def test_a_cat_without_its_gst_says_so_and_offers_to_add_it(
    logged_in: TestClient, files: list[tuple[str, bytes]]
) -> None:
    token = csrf(logged_in, "/catalogs/import")
    only_cat = [f for f in files if f[0].endswith(".cat")]
    response = logged_in.post(
        "/catalogs/import", data={"csrf_token": token}, files=upload(only_cat)
    )
    assert response.status_code in (201, 422)
    page = html(response)
    panel = page.css_first("#missing-game-system")
    assert panel is not None
    assert ".gst" in panel.text()
    form = panel.css_first("#add-game-system-form")
    assert form is not None
    assert form.attributes["action"] == "/catalogs/import"
    field = form.css_first("input[type=file][name=files][multiple]")
    assert field is not None
    assert ".gst" in str(field.attributes["accept"])
    # with the game system, the answer has no such panel
    again = logged_in.post(
        "/catalogs/import",
        data={"csrf_token": csrf(logged_in, "/catalogs/import")},
        files=upload(files),
    )
    assert html(again).css_first("#missing-game-system") is None
