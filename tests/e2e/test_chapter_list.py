"""In a real browser: import a chapter catalogue (Blood Angels over Space Marines) from the
real BSData files, build a list in one of its detachments with wargear choices, export it as
text and paste it back (issue 17). Skipped when ../shared/data is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_army_builder import add, register

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FILES = (
    ("bsdata-wh40k-10e", "Warhammer 40,000.gst"),
    ("bsdata-wh40k-10e", "Imperium - Space Marines.cat"),
    ("bsdata-wh40k-10e", "Imperium - Agents of the Imperium.cat"),
    ("bsdata-wh40k-10e", "Imperium - Imperial Knights - Library.cat"),
    ("bsdata-wh40k-10e", "Library - Astartes Heresy Legends.cat"),
    ("bsdata-wh40k-10e", "Library - Titans.cat"),
    ("bsdata-wh40k-10e", "Unaligned Forces.cat"),
    ("bsdata-wh40k-10e-more", "Imperium - Blood Angels.cat"),
)


def test_a_chapter_list_with_wargear_choices_exported_and_pasted_back(page) -> None:  # type: ignore[no-untyped-def]
    if not all((DATA / folder / name).is_file() for folder, name in FILES):
        pytest.skip(f"the BSData files are not present at {DATA}")
    register(page)
    page.goto("/catalogs/import")
    page.set_input_files(
        "#import-form input[type=file]", [str(DATA / folder / name) for folder, name in FILES]
    )
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#import-result", timeout=180_000)
    chapter = page.locator("#import-result li", has_text="Blood Angels")
    chapter.locator('a[href^="/armies/new?catalog="]').click()

    # the chapter's Army Faction is its parent's, with the parent's detachments and its own
    page.wait_for_selector("#new-army-form")
    expect(page.locator("#faction-select")).to_have_value("Adeptus Astartes")
    page.select_option("#detachment-select", "The Angelic Host")
    page.fill("#new-army-form input[name=name]", "Angels")
    page.select_option("#new-army-form select[name=battle_size]", "incursion")
    page.click("#create-army")
    page.wait_for_selector("#army-name")
    assert "The Angelic Host" in page.locator(".army-meta").inner_text()

    add(page, "Captain")
    page.wait_for_selector('article.unit-card[data-datasheet="Captain"]')
    add(page, "Sanguinary Guard")
    card = page.locator('article.unit-card[data-datasheet="Sanguinary Guard"]')
    expect(card).to_be_visible()
    # the data requires a ranged weapon for each Guard (no default): a warning until chosen
    expect(card.locator(".unit-violations")).to_contain_text("Angelus Boltgun")
    card.locator("details.unit-edit > summary").click()
    pistols = card.locator('input[name="wargear.Inferno Pistol"]')
    pistols.fill("3")
    pistols.dispatch_event("change")
    card = page.locator('article.unit-card[data-datasheet="Sanguinary Guard"]')
    expect(card.locator(".loadout")).to_contain_text("Inferno Pistol")
    expect(card.locator(".unit-violations")).to_have_count(0)
    points = page.locator("#points-total").inner_text()

    # the text export lists the choice, and pasted back makes the same list
    page.click("#text-export > summary")
    text = page.locator("#text-export textarea").input_value()
    assert "Sanguinary Guard" in text
    assert "3x Inferno Pistol" in text
    page.goto("/armies/import")
    page.fill("#import-document", text)
    page.click("#import-submit")
    page.wait_for_selector("#army-name")
    assert page.locator("#army-name").inner_text() == "Angels"
    assert page.locator("#points-total").inner_text() == points
    pasted = page.locator('article.unit-card[data-datasheet="Sanguinary Guard"]')
    expect(pasted.locator(".loadout")).to_contain_text("Inferno Pistol")
