"""Ability parsing: BattleScribe spellings, parameters, unknown abilities with suggestions."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.errors import ProfileError
from app.engine.wh40k10e.abilities import (
    AbilityKind,
    UnknownAbility,
    known_ability_names,
    normalise_keyword,
    parse_abilities,
    parse_ability,
)


@pytest.mark.parametrize(
    ("text", "kind", "shown"),
    [
        ("Assault", AbilityKind.ASSAULT, "Assault"),
        ("HEAVY", AbilityKind.HEAVY, "Heavy"),
        ("Rapid Fire 1", AbilityKind.RAPID_FIRE, "Rapid Fire 1"),
        ("Rapid Fire D3", AbilityKind.RAPID_FIRE, "Rapid Fire D3"),
        ("rapid fire 2", AbilityKind.RAPID_FIRE, "Rapid Fire 2"),
        ("Pistol", AbilityKind.PISTOL, "Pistol"),
        ("Torrent", AbilityKind.TORRENT, "Torrent"),
        ("Blast", AbilityKind.BLAST, "Blast"),
        ("Lethal Hits", AbilityKind.LETHAL_HITS, "Lethal Hits"),
        ("Sustained hits 1", AbilityKind.SUSTAINED_HITS, "Sustained Hits 1"),
        ("Sustained Hits D3", AbilityKind.SUSTAINED_HITS, "Sustained Hits D3"),
        ("Devastating wounds", AbilityKind.DEVASTATING_WOUNDS, "Devastating Wounds"),
        ("Anti-infantry 4+", AbilityKind.ANTI, "Anti-Infantry 4+"),
        ("Anti-INFANTRY 4+", AbilityKind.ANTI, "Anti-Infantry 4+"),
        ("anti-vehicle 2+", AbilityKind.ANTI, "Anti-Vehicle 2+"),
        ("Melta 2", AbilityKind.MELTA, "Melta 2"),
        ("Twin-linked", AbilityKind.TWIN_LINKED, "Twin-linked"),
        ("Twin Linked", AbilityKind.TWIN_LINKED, "Twin-linked"),
        ("Lance", AbilityKind.LANCE, "Lance"),
        ("Ignores Cover", AbilityKind.IGNORES_COVER, "Ignores Cover"),
        ("Indirect fire", AbilityKind.INDIRECT_FIRE, "Indirect Fire"),
        ("Precision", AbilityKind.PRECISION, "Precision"),
        ("Hazardous", AbilityKind.HAZARDOUS, "Hazardous"),
        ("Extra Attacks", AbilityKind.EXTRA_ATTACKS, "Extra Attacks"),
        ("One Shot", AbilityKind.ONE_SHOT, "One Shot"),
        ("[DEVASTATING WOUNDS]", AbilityKind.DEVASTATING_WOUNDS, "Devastating Wounds"),
        ("  sustained_hits 1 ", AbilityKind.SUSTAINED_HITS, "Sustained Hits 1"),
        # the seed's French names [L2004–L2391]
        ("Touches Fatales", AbilityKind.LETHAL_HITS, "Lethal Hits"),
        ("Jumelé", AbilityKind.TWIN_LINKED, "Twin-linked"),
        ("Tir Rapide 1", AbilityKind.RAPID_FIRE, "Rapid Fire 1"),
        ("Déflagration", AbilityKind.BLAST, "Blast"),
        ("Fusion 2", AbilityKind.MELTA, "Melta 2"),
        ("À Risque", AbilityKind.HAZARDOUS, "Hazardous"),
    ],
)
def test_parse_known(text: str, kind: AbilityKind, shown: str) -> None:
    a = parse_ability(text)
    assert a.kind is kind
    assert str(a) == shown
    assert parse_ability(str(a)) == a  # the canonical form parses back to itself


def test_anti_keyword_and_threshold() -> None:
    a = parse_ability("Anti-Chaos Space Marines 3+")
    assert (a.keyword, a.threshold) == ("CHAOS SPACE MARINE", 3)
    assert normalise_keyword("infantries") == "INFANTRY"
    assert normalise_keyword("Monsters") == "MONSTER"
    assert normalise_keyword("Fly") == "FLY"


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("Twin Lnked", "Twin-linked"),
        ("Letal hits", "Lethal Hits"),
        ("Devastatin Wounds", "Devastating Wounds"),
        ("Sustained Hits", "Sustained Hits 1"),
        ("Rapid Fire", "Rapid Fire 1"),
    ],
)
def test_unknown_suggests_closest(text: str, suggestion: str) -> None:
    with pytest.raises(UnknownAbility) as err:
        parse_ability(text)
    assert err.value.suggestion == suggestion
    assert text in str(err.value)
    assert isinstance(err.value, ProfileError)


@pytest.mark.parametrize(
    "text", ["banana", "", "Anti-infantry 7+", "Anti- 4+", "Sustained Hits 11", "x" * 70]
)
def test_rejects(text: str) -> None:
    with pytest.raises(UnknownAbility):
        parse_ability(text)


def test_parse_abilities_reports_every_bad_one() -> None:
    assert [str(a) for a in parse_abilities(["Heavy", "Blast"])] == ["Heavy", "Blast"]
    with pytest.raises(UnknownAbility) as err:
        parse_abilities(["Heavy", "Twin Lnked", "foo"])
    assert [f for f, _ in err.value.errors] == ["abilities[1]", "abilities[2]"]
    assert err.value.field == "abilities[1]"


def test_known_names_cover_every_kind() -> None:
    names = known_ability_names()
    assert len(names) == len(AbilityKind)
    assert "Anti-KEYWORD X+" in names


@given(st.text(max_size=30))
def test_never_crashes_on_arbitrary_text(text: str) -> None:
    with contextlib.suppress(UnknownAbility):
        parse_ability(text)
