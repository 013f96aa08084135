"""The importer on the community's real BSData files (read from ../shared at test time; the
tests skip, saying why, only when that directory is absent). Numbers are derived at run time
and checked for consistency; no text from the files is stored here."""

from __future__ import annotations

import time

from app.catalog.bsdata import ImportResult, IssueCode, import_files
from app.engine.wh40k10e.abilities import parse_ability
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Code,
    Roster,
    RosterUnit,
    WeaponKind,
    validate,
)


def faction_catalogue(result: ImportResult, faction: str) -> Catalogue:
    return next(c for c in result.catalogues if c.factions == (faction,))


def test_everything_imports_quickly(real_files: list[tuple[str, bytes]]) -> None:
    start = time.process_time()  # CPU time: the machine is shared
    result = import_files(real_files)
    elapsed = time.process_time() - start
    assert elapsed < 15, f"import took {elapsed:.1f} s of CPU"  # seconds, not minutes
    assert result.report.errors == ()
    assert {c.factions for c in result.catalogues} == {
        ("Adeptus Astartes",),
        ("Orks",),
        ("Agents of the Imperium",),
    }
    assert len(result.report.files) == len(real_files)


def test_space_marines(real_import: ImportResult) -> None:
    sm = faction_catalogue(real_import, "Adeptus Astartes")
    assert len(sm.datasheets) > 100
    squad = sm.datasheet("Intercessor Squad")
    assert squad is not None
    assert squad.battleline
    assert not squad.character
    assert (squad.min_models, squad.max_models) == (5, 10)
    five, ten = squad.points_for(5), squad.points_for(10)
    assert five is not None
    assert ten == 2 * five
    assert {w.name for w in squad.weapons} >= {"Bolt Rifle", "Bolt pistol"}
    captain = sm.datasheet("Captain")
    assert captain is not None
    assert captain.character
    assert captain.is_leader
    assert "Intercessor Squad" in captain.leader_of
    assert captain.profiles[0].invulnerable_save is not None
    rhino = sm.datasheet("Rhino")
    assert rhino is not None
    assert rhino.dedicated_transport
    assert rhino.transport_capacity
    gladius = sm.detachment("Gladius Task Force", "Adeptus Astartes")
    assert gladius is not None
    assert len(gladius.enhancements) == 4
    assert all(e.points > 0 for e in gladius.enhancements)
    assert any(e.eligibility is not None for d in sm.detachments for e in d.enhancements)


def test_orks(real_import: ImportResult) -> None:
    orks = faction_catalogue(real_import, "Orks")
    boyz = orks.datasheet("Boyz")
    assert boyz is not None
    assert boyz.battleline
    assert (boyz.min_models, boyz.max_models) == (10, 20)
    ghaz = orks.datasheet("Ghazghkull Thraka")
    assert ghaz is not None
    assert ghaz.epic_hero
    assert ghaz.character
    gretchin = orks.datasheet("Gretchin")
    assert gretchin is not None
    sizes = [(t.min_models, t.max_models) for t in gretchin.points]
    assert len(sizes) == 2
    assert sizes[1][0] == 2 * sizes[0][0]
    trukk = orks.datasheet("Trukk")
    assert trukk is not None
    assert trukk.dedicated_transport
    assert len(orks.detachments) >= 5


def test_every_weapon_ability_is_mapped_or_kept_and_reported(real_import: ImportResult) -> None:
    reported = {i.params["text"] for i in real_import.report.of(IssueCode.UNMAPPED_ABILITY)}
    profiles = 0
    for c in real_import.catalogues:
        for d in c.datasheets:
            for w in d.weapons:
                for p in w.profiles:
                    profiles += 1
                    for a in p.abilities:
                        assert str(parse_ability(a)) == a  # canonical and parseable
                    assert set(p.unmapped_abilities) <= reported
                    if p.kind is WeaponKind.MELEE:
                        assert p.range is None
    assert profiles > 1000


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_no_rules_text_reaches_a_catalogue(real_import: ImportResult) -> None:
    """Only names and numbers: no string value is longer than a name, and none reads like a
    rule ("This model...", "Each time...")."""
    for c in real_import.catalogues:
        strings = _strings(c.to_dict())
        assert max(len(s) for s in strings) <= 200
        assert not any(s.startswith(("This model", "Each time", "While ")) for s in strings)
        assert not any("\n" in s for s in strings)  # no multi-line text


def test_a_legal_strike_force_list_from_the_real_data(real_import: ImportResult) -> None:
    sm = faction_catalogue(real_import, "Adeptus Astartes")
    gladius = sm.detachment("Gladius Task Force", "Adeptus Astartes")
    assert gladius is not None
    free_enh = next(e for e in gladius.enhancements if e.eligibility is None)
    roster = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Captain", warlord=True, enhancements=(free_enh.name,), attached_to=1),
            RosterUnit("Intercessor Squad", models=10),
            RosterUnit("Intercessor Squad", models=5),
            RosterUnit("Rhino"),
            RosterUnit("Redemptor Dreadnought"),
        ),
    )
    res = validate(roster, sm)
    assert res.valid, [v.message for v in res.violations]
    assert res.points == sum(u.points for u in res.units) < 2000
    bad = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.INCURSION,
        (*roster.units, *(RosterUnit("Redemptor Dreadnought") for _ in range(3))),
    )
    found = {v.code for v in validate(bad, sm).violations}
    assert {Code.POINTS_OVER_LIMIT, Code.DATASHEET_LIMIT_EXCEEDED} <= found
