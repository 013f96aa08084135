"""In a real browser (issue 17): catalogues uploaded without their game system wait for it, and
the .gst alone completes them; a pasted list's catalogue is detected, and the list's page names
it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_army_builder import register

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

FIXTURES = Path(__file__).resolve().parents[1] / "catalog" / "fixtures"
PASTED = Path(__file__).resolve().parents[1] / "armies" / "pasted"


def test_the_game_system_added_alone_completes_the_waiting_catalogues(page) -> None:  # type: ignore[no-untyped-def]
    register(page)
    page.goto("/catalogs/import")
    cats = sorted(str(p) for p in FIXTURES.glob("*.cat"))
    page.set_input_files("#import-form input[type=file]", cats)
    page.click("#import-form button[type=submit]")
    panel = page.locator("#missing-game-system")
    expect(panel).to_be_visible(timeout=60_000)
    expect(panel.locator("#waiting-files")).to_contain_text("test-marines.cat")
    expect(page.locator("#import-result")).to_contain_text("Test Marines")

    page.set_input_files(
        "#add-game-system-form input[type=file]", str(FIXTURES / "test-system.gst")
    )
    page.click("#add-game-system")
    expect(page.locator("#kept-used")).to_contain_text("test-marines.cat", timeout=60_000)
    expect(page.locator("#missing-game-system")).to_have_count(0)
    expect(page.locator("#import-result")).to_contain_text("new version of a catalogue you had")


def test_a_pasted_list_names_the_catalogue_it_was_read_with(page) -> None:  # type: ignore[no-untyped-def]
    register(page)
    page.goto("/armies/import")
    expect(page.locator("#import-catalog")).to_have_value("")
    page.fill("#import-document", (PASTED / "wtc.txt").read_text(encoding="utf-8"))
    page.click("#import-submit")
    page.wait_for_selector("#army-name")
    expect(page.locator("#import-catalogue")).to_contain_text("Starter catalogue")
