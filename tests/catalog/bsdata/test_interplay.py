"""Wargear interplay inside a unit (ruling D16) and the entries a matched-play list never holds
(ruling D15): on the tiny hand-written files of :mod:`interplay_files`, then on the real data
with the numbers read from the files by hand (their line is cited)."""

from __future__ import annotations

from pathlib import Path

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.catalog.bsdata.census import census_of
from app.catalog.bsdata.files import Budget, ImportLimits, read_document
from app.catalog.bsdata.model import Workspace
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    validate,
)
from tests.catalog.bsdata.interplay_files import FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
SM = DATA / "bsdata-wh40k-10e"


@pytest.fixture(scope="module")
def interplay() -> Catalogue:
    result = import_files(FILES)
    assert result.ok
    (catalogue,) = result.catalogues
    return catalogue


def roster(*units: RosterUnit, faction: str = "Interplay") -> Roster:
    return Roster(
        faction=faction,
        detachment="First Host",
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit("Boss", warlord=True), *units),
    )


def errors(r: Roster, catalogue: Catalogue) -> list[tuple[str, str, int | None]]:
    return [(v.code.value, v.message_id, v.unit) for v in validate(r, catalogue).errors]


def _docs() -> list:  # type: ignore[type-arg]
    limits = ImportLimits()
    budget = Budget.of(limits)
    return [read_document(name, data, limits, budget) for name, data in FILES]


# -- entries a matched-play list never holds (D15) ----------------------------------------


def test_crusade_only_entries_are_never_selected() -> None:
    ws = Workspace(_docs())
    never = ws.never_selected()
    # Experience is linked only from the Crusade group (hidden without a Crusade force), and
    # its link too; Old Scar sits in the Battle Scars group (D5's bookkeeping)
    assert {"e-xp", "l-xp", "g-crusade", "g-scars", "e-scar", "l-scars"} <= never
    # the unit's own wargear, the Warlord entry and the linked shared wargear are offered
    assert not {"e-raiders", "e-pack", "e-scope", "l-scope", "e-warlord"} & never


def test_a_choice_hidden_unless_a_crusade_entry_is_not_offered(interplay: Catalogue) -> None:
    sheet = interplay.datasheet("Raiders")
    assert sheet is not None
    offered = [c.name for o in sheet.wargear_options for c in o.choices]
    assert "Veteran blade" not in offered  # hidden unless the unit has Experience: never
    assert offered == [
        "Pack",
        "Shield",
        "Flamer",
        "Axe",
        "Sniper rifle",
        "Scope",
        "Heavy gun",
        "Melta gun",
        "Plasma gun",
        "Grenade",
    ]


def test_census_counts_crusade_conditions_as_decided() -> None:
    census = census_of(_docs())
    unit = census.kinds["inside the unit (models, wargear)"]
    # Blade's "Experience" count is decided at import (0); Heavy gun's model count too
    # (a count of models prices the unit); Flamer's and Melta gun's are kept for the validator;
    # Axe's ("a model with a Shield") cannot be written from the unit's counts: undecided
    assert census.never_counted == 1
    # and the caps: Plasma gun's Heavy gun count and Special's Melta gun count are kept for
    # the validator; Grenade's model count (a raise, read by the builder) is a model count
    assert (unit.total, unit.at_import, unit.when_validating, unit.undecided) == (8, 3, 4, 1)
    assert census.kinds["the force built"].at_import == 1


# -- wargear interplay inside a unit (D16) ------------------------------------------------


def test_hidden_choices_become_restrictions_of_their_wargear(interplay: Catalogue) -> None:
    sheet = interplay.datasheet("Raiders")
    assert sheet is not None
    found = {(r.wargear, str(r.when)) for r in sheet.restrictions if r.unavailable}
    assert found == {
        ("Heavy gun", "fewer than 6 models in the unit"),
        ("Melta gun", "fewer than 1 × Scope in the unit"),
        ("Flamer", "fewer than 1 × Pack in the unit"),  # a model's count: the unit's bounds it
        ("Sniper rifle", "at least 1 × Melta gun in the unit"),  # its option closed (max 0)
    }
    (cap,) = [r for r in sheet.restrictions if not r.unavailable]
    assert (cap.wargear, str(cap.when)) == (
        "Plasma gun",
        "more than 1 × Plasma gun in the unit and at least 1 × Heavy gun in the unit",
    )
    # a raised cap is the most any loadout allows: 1, or 2 in a unit of 6 or more
    grenade = next(c for o in sheet.wargear_options for c in o.choices if c.name == "Grenade")
    assert grenade.max_per_unit == 2


def test_a_choice_the_unit_size_hides(interplay: Catalogue) -> None:
    five = RosterUnit("Raiders", models=5, wargear={"Heavy gun": 1})
    assert errors(roster(five), interplay) == [
        ("wargear-invalid", "wargear-invalid.unavailable", 1)
    ]
    result = validate(roster(five), interplay)
    (v,) = result.errors
    assert v.message == (
        "Raiders (#2) cannot take Heavy gun while fewer than 6 models in the unit."
    )
    assert v.fix == (
        "Remove Heavy gun, or change the unit so that this no longer holds: fewer than 6 "
        "models in the unit."
    )
    six = RosterUnit("Raiders", models=6, wargear={"Heavy gun": 1})
    assert errors(roster(six), interplay) == []
    # 20 points a model, 10 for the gun
    assert validate(roster(six), interplay).units[1].points == 130


def test_a_choice_another_choice_unlocks(interplay: Catalogue) -> None:
    alone = RosterUnit("Raiders", models=3, wargear={"Melta gun": 2})
    assert errors(roster(alone), interplay) == [
        ("wargear-invalid", "wargear-invalid.unavailable", 1)
    ]
    scoped = RosterUnit("Raiders", models=3, wargear={"Melta gun": 2, "Scope": 1})
    assert errors(roster(scoped), interplay) == []


def test_a_per_model_condition_is_decided_only_when_certain(interplay: Catalogue) -> None:
    # Flamer is hidden on a model without a Pack: with no Pack in the unit, certainly
    no_pack = RosterUnit("Raiders", models=3, wargear={"Flamer": 1})
    assert errors(roster(no_pack), interplay) == [
        ("wargear-invalid", "wargear-invalid.unavailable", 1)
    ]
    # with a Pack somewhere in the unit, the Flamer may be on that model: accepted
    pack = RosterUnit("Raiders", models=3, wargear={"Flamer": 1, "Pack": 1})
    assert errors(roster(pack), interplay) == []
    # Axe is hidden on a model with a Shield: the unit's counts never make it certain
    both = RosterUnit("Raiders", models=3, wargear={"Axe": 3, "Shield": 3})
    assert errors(roster(both), interplay) == []


def test_a_lowered_allowance_and_a_closed_option(interplay: Catalogue) -> None:
    two = RosterUnit("Raiders", models=6, wargear={"Plasma gun": 2})
    assert errors(roster(two), interplay) == []
    heavy = RosterUnit("Raiders", models=6, wargear={"Plasma gun": 2, "Heavy gun": 1})
    assert errors(roster(heavy), interplay) == [("data-restriction", "data-restriction", 1)]
    one = RosterUnit("Raiders", models=6, wargear={"Plasma gun": 1, "Heavy gun": 1})
    assert errors(roster(one), interplay) == []
    sniper = {"Sniper rifle": 1, "Melta gun": 1, "Scope": 1}
    closed = RosterUnit("Raiders", models=3, wargear=sniper)
    assert errors(roster(closed), interplay) == [
        ("wargear-invalid", "wargear-invalid.unavailable", 1)
    ]
    assert (
        errors(roster(RosterUnit("Raiders", models=3, wargear={"Sniper rifle": 3})), interplay)
        == []
    )


def test_a_raised_cap_is_never_refused(interplay: Catalogue) -> None:
    six = RosterUnit("Raiders", models=6, wargear={"Grenade": 2})
    assert errors(roster(six), interplay) == []
    three = RosterUnit("Raiders", models=3, wargear={"Grenade": 3})
    assert errors(roster(three), interplay) == [("wargear-invalid", "wargear-invalid.too-many", 1)]


# -- the real data ------------------------------------------------------------------------


SM_FILES = (
    "Warhammer 40,000.gst",
    "Imperium - Space Marines.cat",
    "Imperium - Agents of the Imperium.cat",
    "Imperium - Imperial Knights - Library.cat",
    "Library - Titans.cat",
    "Library - Astartes Heresy Legends.cat",
    "Unaligned Forces.cat",
)


def _real(names: tuple[str, ...]) -> Catalogue:
    files = [(n, (SM / n).read_bytes()) for n in names]
    result = import_files(files)
    return next(c for c in result.catalogues if "Space Marines" in c.name)


@pytest.mark.skipif(not SM.is_dir(), reason="../shared/data is absent")
def test_reiver_sergeant_carbine_follows_the_squad() -> None:
    # Imperium - Space Marines.cat, Reiver Squad: the Reiver Sergeant's "Bolt Carbine"
    # (line 9112) is hidden while the unit (scope a7ae-e495-683b-7c90) has fewer than 1
    # "Bolt Carbine and Close Combat Weapon" (id db7a-af1e-7c27-7673, line 9048, the
    # Reivers' option), condition at line 9122
    sm = _real(SM_FILES)
    sheet = sm.datasheet("Reiver Squad")
    assert sheet is not None
    hidden = {(r.wargear, str(r.when)) for r in sheet.restrictions if r.unavailable}
    assert (
        "Bolt Carbine",
        "fewer than 1 × Bolt Carbine and Close Combat Weapon in the unit",
    ) in hidden

    def squad(wargear: dict[str, int]) -> Roster:
        return Roster(
            faction="Adeptus Astartes",
            detachment=sm.detachments[0].name,
            battle_size=BattleSize.STRIKE_FORCE,
            units=(
                RosterUnit("Captain", warlord=True),
                RosterUnit("Reiver Squad", models=5, wargear=wargear),
            ),
        )

    bad = validate(squad({"Bolt Carbine": 1}), sm)
    assert [(v.code.value, v.message_id, v.unit) for v in bad.errors] == [
        ("wargear-invalid", "wargear-invalid.unavailable", 1)
    ]
    good = validate(squad({"Bolt Carbine": 1, "Bolt Carbine and Close Combat Weapon": 4}), sm)
    assert good.errors == ()


@pytest.mark.skipif(not SM.is_dir(), reason="../shared/data is absent")
def test_a_group_inside_a_model_is_read_per_model_not_per_unit() -> None:
    # Imperium - Space Marines.cat, Command Squad [Legends]: the two Company Veterans (line
    # 28700) each have "Weapon Option 2" (line 28762), closed (lines 28871, 28876) when that
    # veteran (scope parent: the model holding the group) has Twin lightning claws (line 28885).
    # One veteran with claws and the other with a flamer is a legal squad.
    sm = _real(SM_FILES)
    sheet = sm.datasheet("Command Squad [Legends]")
    assert sheet is not None
    assert not [r for r in sheet.restrictions if "Twin lightning claws" in str(r.when)]
    roster = Roster(
        faction="Adeptus Astartes",
        detachment=sm.detachments[0].name,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(
            RosterUnit("Captain", warlord=True),
            RosterUnit(
                "Command Squad [Legends]",
                models=5,
                wargear={"Twin lightning claws": 1, "Flamer": 1},
            ),
        ),
        include_legends=True,
    )
    assert [v.code.value for v in validate(roster, sm).errors] == []


# -- a category's minimum (D17) -----------------------------------------------------------


def hunt(*units: RosterUnit, detachment: str = "Hunt Pack") -> Roster:
    return Roster(
        faction="Interplay",
        detachment=detachment,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit("Boss", warlord=True), *units),
    )


def test_a_detachment_requires_units_of_a_keyword(interplay: Catalogue) -> None:
    (limit,) = interplay.limits
    assert (limit.keyword, limit.base, limit.minimum) == ("Hound", -1, True)
    one = validate(hunt(RosterUnit("Hound")), interplay)
    assert [(v.code.value, v.unit) for v in one.errors] == [("category-minimum-not-met", None)]
    (v,) = one.errors
    assert v.message == (
        "1 Hound units in the army: the catalogue requires at least 2 in the Hunt Pack Detachment."
    )
    assert v.fix == "Add 1 Hound unit(s), e.g. Hound, or choose another Detachment."
    assert validate(hunt(), interplay).errors[0].params["missing"] == 2
    assert validate(hunt(RosterUnit("Hound"), RosterUnit("Hound")), interplay).errors == ()
    # no minimum in the other detachment
    assert validate(hunt(detachment="First Host"), interplay).errors == ()


def test_a_minimum_is_not_reported_beside_an_unknown_datasheet(interplay: Catalogue) -> None:
    r = hunt(RosterUnit("Hound"), RosterUnit("Mystery Beast"))
    assert [v.code.value for v in validate(r, interplay).errors] == ["unknown-datasheet"]


def test_a_minimum_round_trips_through_the_catalogue_json(interplay: Catalogue) -> None:
    again = Catalogue.from_dict(interplay.to_dict())
    assert again.limits == interplay.limits


MORE = DATA / "bsdata-wh40k-10e-more"


@pytest.mark.skipif(not MORE.is_dir(), reason="../shared/data is absent")
def test_real_data_has_one_category_minimum_and_no_catalogue_offers_it() -> None:
    """Read by hand: the only category ``min`` constraint a matched-play modifier raises is
    the Chaos Knights library's War Dog one ("set 3" in the force of its Houndpack Lance
    detachment), and that detachment belongs to a library no catalogue of the files is built
    on (Chaos Space Marines and Death Guard link it for allies only): no list of these files
    gets a minimum."""
    names: dict[str, str] = {}  # every id of the files -> its name
    roots = {}
    for path in sorted(SM.iterdir()) + sorted(MORE.iterdir()):
        if path.suffix in (".cat", ".gst"):
            roots[path.name] = fromstring(path.read_bytes())
            for e in roots[path.name].iter():
                if e.get("id"):
                    names.setdefault(e.get("id") or "", e.get("name") or "")
    raised: list[tuple[str, str]] = []
    for filename, root in roots.items():
        for cat in root.iter():
            if not cat.tag.endswith("categoryEntry"):
                continue
            mins = {
                c.get("id")
                for c in cat.iter()
                if c.tag.endswith("constraint")
                and c.get("type") == "min"
                and c.get("scope") in ("force", "roster")
            }
            for m in cat.iter():
                if not m.tag.endswith("modifier") or m.get("field") not in mins:
                    continue
                if m.get("type") != "set" or m.get("value") == "0":
                    continue
                conds = [
                    names.get(c.get("childId") or "", "")
                    for c in m.iter()
                    if c.tag.endswith("condition")
                ]
                if not any("crusade" in n.lower() or "narrative" in n.lower() for n in conds):
                    raised.append((filename, cat.get("name") or ""))
    assert raised == [("Chaos - Chaos Knights Library.cat", "War Dog")]
    files = [
        (p.name, p.read_bytes())
        for p in sorted(SM.iterdir()) + sorted(MORE.iterdir())
        if p.suffix in (".cat", ".gst")
    ]
    result = import_files(files)
    assert result.catalogues
    assert not [lim for c in result.catalogues for lim in c.limits if lim.minimum]


# -- allies the data admits (D18) ---------------------------------------------------------

SM_FILES = (
    "Warhammer 40,000.gst",
    "Imperium - Space Marines.cat",
    "Imperium - Agents of the Imperium.cat",
    "Imperium - Imperial Knights - Library.cat",
    "Library - Titans.cat",
    "Library - Astartes Heresy Legends.cat",
    "Unaligned Forces.cat",
)


@pytest.fixture(scope="module")
def space_marines() -> Catalogue:
    if not SM.is_dir():
        pytest.skip("../shared/data is absent")
    return _real(SM_FILES)


def agents(sm: Catalogue, size: BattleSize, *names: str) -> Roster:
    return Roster(
        faction="Adeptus Astartes",
        detachment=sm.detachments_of("Adeptus Astartes")[0].name,
        battle_size=size,
        units=(RosterUnit("Captain", warlord=True), *(RosterUnit(n) for n in names)),
    )


def test_real_data_assigned_agents_are_admitted_within_their_cap(
    space_marines: Catalogue,
) -> None:
    # Imperium - Agents of the Imperium.cat: its root links to the Assassins (Vindicare line
    # 17933, Culexus 17947, Callidus 17973) add the category "Assigned Agents - Character"
    # (49d5-cc63-72d1-7bcb) when the primary catalogue is not Agents of the Imperium; that
    # category (line 17502) allows 0, set to 1 in Incursion (d62d-..., the game system's line
    # 748), 2 in Strike Force (baf8-..., line 753), 3 in Onslaught
    assert "assigned agents - character" in space_marines.ally_keywords("Adeptus Astartes")
    two = agents(space_marines, BattleSize.STRIKE_FORCE, "Vindicare Assassin", "Callidus Assassin")
    assert validate(two, space_marines).errors == ()
    three = agents(
        space_marines,
        BattleSize.STRIKE_FORCE,
        "Vindicare Assassin",
        "Callidus Assassin",
        "Culexus Assassin",
    )
    assert [(v.code.value, v.unit) for v in validate(three, space_marines).errors] == [
        ("category-limit-exceeded", 3)
    ]
    (v,) = validate(three, space_marines).errors
    assert (v.params["count"], v.params["limit"]) == (3, 2)
    small = agents(space_marines, BattleSize.INCURSION, "Vindicare Assassin", "Callidus Assassin")
    (w,) = validate(small, space_marines).errors
    assert (w.code.value, w.params["count"], w.params["limit"]) == ("category-limit-exceeded", 2, 1)


def test_real_data_a_unit_the_data_does_not_cap_stays_a_faction_mismatch(
    space_marines: Catalogue,
) -> None:
    # the Inquisitorial Chimera (line 6948, root link 18282) gets no Assigned Agents category
    chimera = agents(space_marines, BattleSize.STRIKE_FORCE, "Inquisitorial Chimera")
    assert [(v.code.value, v.unit) for v in validate(chimera, space_marines).errors] == [
        ("faction-mismatch", 1)
    ]
