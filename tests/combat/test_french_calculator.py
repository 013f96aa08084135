"""Issue 18, French everywhere on the calculator: every step text, die label, stage and detail
key the engines write reaches the page through a translatable message (the extractor sees it,
so ``make messages`` lists it), and no engine key is ever shown as humanised English."""

from __future__ import annotations

import ast
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from babel.messages.extract import extract_from_file

from app.core.config import ROOT
from tests.support.web import html

FR = {"Accept-Language": "fr"}
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy": None,
    "N_": None,
    "lazy_pgettext": ((1, "c"), 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}  # the keywords of scripts/messages.py and tests/core/test_i18n.py


def _extracted(path: str) -> set[str]:
    found: set[str] = set()
    for _line, message, _comments, _context in extract_from_file(
        "python", str(ROOT / path), keywords=KEYWORDS
    ):
        found.update([message] if isinstance(message, str) else [m for m in message if m])
    return found


def _formats(path: str) -> set[str]:
    """Every string literal of a module that is a message with placeholders."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and ("%(" in node.value)
        and not node.value.startswith("^")
    }


def test_every_message_of_the_10e_step_texts_is_extracted() -> None:
    """The roll page's 10th-edition steps and die labels ("Bolt rifle: 20 attacks", "hit
    roll") were built through helpers the extractor did not know: never translated."""
    path = "app/combat/forms/wh40k10e_words.py"
    missing = _formats(path) - _extracted(path)
    assert missing == set()
    assert {"%(name)s: %(n)d attacks", "%(name)s: hit roll", "%(name)s: wound roll"} <= (
        _extracted(path)
    )


# -- no engine key or text shown as English ------------------------------------------------------


def poison(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every fallback to an engine's English key or text fail the request loudly; returns
    the list of what was looked up (empty when nothing fell back)."""
    from app.combat import present

    seen: list[str] = []

    def unlabelled(name: str) -> str:
        seen.append(name)
        raise AssertionError(f"no label for the engine key {name!r}")

    def untranslated(text: str) -> str:
        seen.append(text)
        raise AssertionError(f"no translation for the engine text {text!r}")

    monkeypatch.setattr(present, "unlabelled", unlabelled)
    monkeypatch.setattr(present, "untranslated", untranslated)
    return seen


@pytest.fixture
def strict(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return poison(monkeypatch)


PEN = {"system": "pen"}
PEN_VEHICLE = {**PEN, "t.kind": "vehicle", "v.front": "10", "w.strength": "8", "t.name": "Rhino"}
PEN_MELEE = {
    **PEN,
    "w.kind": "melee",
    "w.type": "melee",
    "t.attacks": "2",
    "t.strength": "4",
    "t.initiative": "3",
}
PEN_SAVES = {
    **PEN,
    "w.properties": "Perforant",
    "t.wounds": "2",
    "t.cover_save": "5+",
    "t.feel_no_pain": "on",
}


def _page(client, path: str, query: dict[str, str], **headers: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(f"{path}?{urlencode(query)}", headers=headers)
    assert response.status_code == 200, response.text
    return response.text


@pytest.mark.parametrize("query", [PEN, PEN_VEHICLE, PEN_MELEE, PEN_SAVES])
def test_pen_results_label_every_key_of_the_engine(client, strict, query) -> None:  # type: ignore[no-untyped-def]
    """The PEN results page showed every stage or section key missing from the labels as the
    engine's English key ("Glancing hits", a whole "More detail" block, "Pénétration: one")."""
    tree = html(client.get("/calculator?" + urlencode(query)))
    assert tree.css_first("#stages") is not None
    assert strict == []
    details = {n.text(strip=True) for n in tree.css("dl.extra dt, dl.extra dd")}
    assert not details & {"one", "P destroyed", "Expected", "Results", "P at least once"}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("query", [PEN, PEN_VEHICLE, PEN_MELEE, PEN_SAVES])
def test_pen_roll_page_knows_every_text_of_the_engine(client, strict, query, seed) -> None:  # type: ignore[no-untyped-def]
    """Die labels, outcomes, steps and sections of a PEN roll all go through a message: none
    is shown as the engine's English ("to hit", "no_effect", "save None", "target")."""
    _page(client, "/calculator/roll", {**query, "seed": str(seed)})
    assert strict == []


def test_pen_roll_page_words_in_english_and_french(client) -> None:  # type: ignore[no-untyped-def]
    tree = html(client.get("/calculator/roll?" + urlencode({**PEN_SAVES, "seed": "5"})))
    steps = [n.text(strip=True) for n in tree.css("#steps li")]
    assert any("10 attacks at 3+ (skill 4): 9 hits" in s for s in steps), steps
    assert any("1 wound allocated (no save): 1 failed save, 0 W lost" in s for s in steps), steps
    assert not any("None" in s for s in steps), steps
    assert {n.text().strip() for n in tree.css(".model-group")} == {"the target"}
    named = html(client.get("/calculator/roll?" + urlencode({**PEN_VEHICLE, "seed": "2"})))
    assert {n.text().strip() for n in named.css(".model-group")} == {"Rhino"}
    labels = {n.text().strip() for n in named.css(".die-label")}
    assert {"To hit", "Penetration", "Hit location", "Damage (hull table)"} <= labels, labels
    outcomes = {n.text().strip() for n in named.css(".die-outcome")}
    assert "Damaged" in outcomes or "Destroyed" in outcomes, outcomes
    assert not {o for o in outcomes if "_" in o}, outcomes
    french = html(
        client.get("/calculator/roll?" + urlencode({**PEN_SAVES, "seed": "5"}), headers=FR)
    )
    labels = {n.text().strip() for n in french.css(".die-label")}
    assert {"Pour toucher", "Pour blesser", "Sauvegarde de couvert"} <= labels, labels


def test_pen_labels_are_messages_the_extractor_sees() -> None:
    from app.combat.forms import pen_words

    path = "app/combat/forms/pen_words.py"
    found = _extracted(path)
    assert _formats(path) - found == set()
    labels = [pen_words.LABELS[k] for k in pen_words.LABELS]
    assert [m for m in labels if isinstance(m, str) and m not in found] == []
    assert [m for m in labels if isinstance(m, tuple) and m[1] not in found] == []
    # keys built from others
    assert pen_words.translate(pen_words.LABELS["counter_hits"]) == "Hits (strike back)"
    assert pen_words.translate(pen_words.LABELS["wound AP2 mortelle"]) == "Mortelle wound, AP 2"


# -- the PEN pickers ---------------------------------------------------------------------------


def test_pen_pickers_offer_the_engines_names_and_add_one_once(client) -> None:  # type: ignore[no-untyped-def]
    """PEN's special rules, weapon properties and vehicle types were free text in the engine's
    exact spelling: each now has a picker of the engine's names (French, with the English
    beside them, both searched)."""
    tree = html(client.get("/calculator?" + urlencode(PEN)))
    pick = tree.css_first("#f-w-properties-pick")
    assert pick is not None
    weapon = {
        o.attributes["value"]: o.text() for o in tree.css(f"#{pick.attributes['list']} option")
    }
    assert weapon["Perforant"] == "Rending"
    assert weapon["Anti-véhicule"] == "Anti-vehicle"
    rules = tree.css_first("#f-t-rules-pick").attributes["list"]
    unit = {o.attributes["value"] for o in tree.css(f"#{rules} option")}
    assert {"Insensible à la douleur", "Sans peur"} <= unit
    assert not unit & set(weapon)  # a weapon's properties are not a unit's rules
    types = tree.css_first("#f-v-types-pick").attributes["list"]
    assert {o.attributes["value"] for o in tree.css(f"#{types} option")} >= {"tank", "walker"}
    query = {**PEN, "w.properties": "Assommant", "w.properties.pick": "Perforant"}
    response = client.get("/calculator?" + urlencode(query), follow_redirects=False)
    assert response.status_code == 303
    values = dict(parse_qsl(urlsplit(response.headers["location"]).query))
    assert values["w.properties"] == "Assommant, Perforant"
    assert "w.properties.pick" not in values
    again = {**PEN, "w.properties": "Perforant", "w.properties.pick": "perforant"}
    response = client.get("/calculator?" + urlencode(again), follow_redirects=False)
    assert dict(parse_qsl(urlsplit(response.headers["location"]).query))["w.properties"] == (
        "Perforant"
    )
    # the engine reads what the picker adds: a rending weapon's plan has two save groups
    page = html(client.get("/calculator?" + urlencode({**PEN, "w.properties": "Perforant"})))
    assert page.css_first("#stages") is not None


def test_pen_vehicle_roll_counts_hull_points_not_wounds(client) -> None:  # type: ignore[no-untyped-def]
    tree = html(client.get("/calculator/roll?" + urlencode({**PEN_VEHICLE, "seed": "2"})))
    labels = [n.text(strip=True) for n in tree.css("#roll-summary .stat-label")]
    assert labels == ["Hull points lost", "Vehicle destroyed"]
    after = tree.css_first("#target-after").text()
    assert "wound" not in after
    unit = html(client.get("/calculator/roll?" + urlencode({**PEN, "seed": "2"})))
    labels = [n.text(strip=True) for n in unit.css("#roll-summary .stat-label")]
    assert labels[:2] == ["Wounds lost", "Models destroyed"]
