"""What a unit carries, its wargear rows, and the calculator links."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from app.armies import loadout
from app.catalog.pen_units import PenCharacteristics, PenUnit, PenWeapon
from app.catalog.starter import starter_catalogue


def sheet(name: str):  # type: ignore[no-untyped-def]
    found = starter_catalogue().datasheet(name)
    assert found is not None
    return found


def carried(name: str, models: int, wargear: dict[str, int]) -> dict[str, int]:
    return {w.name: n for w, n in loadout.loadout(sheet(name), models, wargear)}


def test_default_loadout_follows_the_model_count() -> None:
    assert carried("Intercessor Squad", 10, {}) == {
        "Bolt Rifle": 10,
        "Close combat weapon": 10,
        "Bolt pistol": 10,
    }
    assert carried("Intercessor Squad", 5, {})["Bolt Rifle"] == 5


def test_a_model_type_taken_brings_its_wargear() -> None:
    got = carried("Intercessor Squad", 10, {"Intercessor w/ Grenade Launcher": 2})
    assert got["Astartes grenade launcher"] == 2
    assert got["Bolt Rifle"] == 10  # they keep their rifles


def test_a_choice_replaces_the_option_default_once() -> None:
    # "Power fist" is offered by two of the Captain's options; taken once, it replaces the
    # close combat weapon once.
    got = carried("Captain", 1, {"Power fist": 1})
    assert got["Power fist"] == 1
    assert "Close combat weapon" not in got
    assert got["Master-crafted bolter"] == 1


def test_wargear_rows() -> None:
    rows = {r.name: r for r in loadout.wargear_rows(sheet("Battlewagon"), 1, {"Big shoota": 2})}
    assert rows["Big shoota"].count == 2
    assert rows["Big shoota"].max == 4
    assert "Tracks and wheels" not in rows  # the option's default is not a choice to count
    intercessors = {r.name: r for r in loadout.wargear_rows(sheet("Intercessor Squad"), 10, {})}
    assert intercessors["Intercessor w/ Grenade Launcher"].is_model
    assert intercessors["Intercessor w/ Grenade Launcher"].max == 2
    assert "Intercessor" not in intercessors  # the main model type is not an option


def test_unit_calculator_url() -> None:
    url = loadout.unit_calculator_url(sheet("Intercessor Squad"), 10, {})
    assert url is not None
    parts = urlsplit(url)
    assert parts.path == "/calculator"
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    assert query["system"] == "wh40k-10e"
    assert query["w0.name"] == "Bolt Rifle"
    assert query["w0.models"] == "10"
    assert query["w0.skill"] == "3+"
    assert query["w0.ap"] == "-1"
    assert query["w0.kind"] == "ranged"
    assert not any(k.startswith("t.") for k in query)  # the calculator's default target
    kinds = [v for k, v in parse_qsl(parts.query) if k.endswith(".kind")]
    assert kinds == sorted(kinds, key=lambda k: k != "ranged")  # ranged first


def test_calculator_rows_are_capped() -> None:
    from app.engine.wh40k10e.profiles import MAX_ATTACK_ENTRIES

    profiles = [(p, 1) for w in sheet("Tactical Squad").weapons for p in w.profiles]
    url = loadout.calculator_url(profiles)
    assert url is not None
    rows = {k.split(".")[0] for k, _v in parse_qsl(urlsplit(url).query) if k.startswith("w")}
    assert len(rows) == MAX_ATTACK_ENTRIES


def test_the_calculator_accepts_the_links(client) -> None:  # type: ignore[no-untyped-def]
    urls = dict(loadout.unit_calculator_urls(sheet("Captain"), 1, {"Power fist": 1}))
    assert list(urls) == ["ranged", "melee"]
    for kind, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, kind
    assert 'value="Power fist"' in client.get(urls["melee"]).text
    assert "Power+fist" not in urls["ranged"]  # a unit shoots or fights, never both at once


def test_pen_calculator_url() -> None:
    unit = PenUnit(
        name="Tactiques",
        points=150,
        models=10,
        characteristics=PenCharacteristics(ws=4, bs=4, strength=4, toughness=4, initiative=4),
        weapons=(PenWeapon(name="Bolter", type="rapid fire", strength=4, ap=5, range=24),),
        rules=("ATSKNF",),
    )
    query = dict(
        parse_qsl(
            urlsplit(loadout.pen_calculator_url(unit, unit.weapons[0])).query,
            keep_blank_values=True,
        )
    )
    assert query["system"] == "pen"
    assert query["a.models"] == "10"
    assert query["a.bs"] == "4"
    assert query["w.type"] == "rapid fire"
    assert query["w.ap"] == "5"
    assert query["a.rules"] == "ATSKNF"


# -- choices offered by several options, the unit model by model, the summary ------------------


def test_a_choice_moves_to_the_other_option_that_offers_it() -> None:
    """The Intercessor Sergeant's power weapon replaces the bolt rifle (Weapon 1) or the close
    combat weapon (Weapon 2); the plasma pistol only the bolt rifle. Both taken: the pistol
    takes Weapon 1, the power weapon Weapon 2 (the validator accepts it, ruling M10), and the
    loadout carries both."""
    got = carried("Intercessor Squad", 5, {"Plasma pistol": 1, "Power weapon": 1})
    assert got == {
        "Bolt Rifle": 4,
        "Plasma pistol": 1,
        "Power weapon": 1,
        "Close combat weapon": 4,
        "Bolt pistol": 5,
    }


def test_every_choice_the_validator_accepts_is_carried() -> None:
    """An oracle over the whole starter catalogue: each non-default choice taken once, at the
    unit's minimum size, is carried when the validator finds no wargear violation (options of
    a model type the unit does not have at its minimum are left out: the player takes that
    model type first)."""
    from app.engine.wh40k10e.army import BattleSize, Code, Roster, RosterUnit, name_key, validate

    catalogue = starter_catalogue()
    checked = 0
    for faction in catalogue.factions:
        for s in catalogue.datasheets_of(faction):
            present = {name_key(m.name) for m in s.models if m.min > 0}
            for opt in s.wargear_options:
                if opt.model and name_key(opt.model) not in present:
                    continue
                for choice in opt.choices:
                    if opt.default and name_key(choice.name) == name_key(opt.default):
                        continue
                    wargear = {choice.name: 1}
                    roster = Roster(
                        faction, "", BattleSize.ONSLAUGHT, (RosterUnit(s.name, None, wargear),)
                    )
                    result = validate(roster, catalogue)
                    if any(v.code == Code.WARGEAR_INVALID for v in result.violations):
                        continue
                    got = {
                        name_key(w.name)
                        for w, _n in loadout.loadout(s, result.units[0].models, wargear)
                    }
                    weapons = {name_key(w.name) for w in s.weapons}
                    wanted = {name_key(w) for w in choice.weapons} & weapons
                    assert wanted <= got, (s.name, choice.name)
                    checked += 1
    assert checked > 100


def test_the_unit_model_by_model() -> None:
    kits = loadout.kits(sheet("Inceptor Squad"), 6, {"Plasma Exterminators": 3})
    assert [(k.model, k.count, k.wargear) for k in kits] == [
        ("Inceptor Sergeant", 1, (("Plasma Exterminators", 1), ("Close combat weapon", 1))),
        ("Inceptor", 2, (("Plasma Exterminators", 1), ("Close combat weapon", 1))),
        ("Inceptor", 3, (("Assault Bolters", 1), ("Close combat weapon", 1))),
    ]
    # wargear of the unit as a whole (no model type) is its own group
    nobz = loadout.kits(sheet("Nobz"), 5, {"Ammo Runt": 2})
    assert nobz[-1] == loadout.Kit("", 1, (("Ammo Runt", 2),))


def test_the_loadout_as_players_read_it() -> None:
    assert loadout.describe(
        sheet("Intercessor Squad"), 5, {"Plasma pistol": 1, "Power weapon": 1}
    ) == (
        "5 models: 1 × Intercessor Sergeant with Power weapon, Plasma pistol and Bolt pistol; "
        "4 × Intercessor with Bolt Rifle, Close combat weapon and Bolt pistol"
    )
    # one model: what it carries
    assert loadout.describe(sheet("Battlewagon"), 1, {"Big shoota": 2, "Deff rolla": 1}) == (
        "Deff rolla and 2× Big shoota"
    )
    assert loadout.describe(sheet("Nobz"), 5, {"Ammo Runt": 2}).endswith("; 2× Ammo Runt")


def _rows(url: str) -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    for k, v in parse_qsl(urlsplit(url).query):
        row, _sep, field = k.partition(".")
        if row.startswith("w"):
            rows.setdefault(row, {})[field] = v
    return rows


def test_the_calculator_links_carry_the_choices_one_attack_each() -> None:
    urls = dict(
        loadout.unit_calculator_urls(
            sheet("Intercessor Squad"), 5, {"Plasma pistol": 1, "Power weapon": 1}
        )
    )
    shooting = {r["name"]: r for r in _rows(urls["ranged"]).values()}
    assert shooting["Bolt Rifle"]["models"] == "4"
    assert {r["kind"] for r in shooting.values()} == {"ranged"}
    pistols = [name for name in shooting if name.startswith("Plasma pistol")]
    assert len(pistols) == 1, shooting  # one profile of the plasma pistol, not both
    melee = {r["name"]: r for r in _rows(urls["melee"]).values()}
    assert melee["Power weapon"]["models"] == "1"
    assert {r["kind"] for r in melee.values()} == {"melee"}
