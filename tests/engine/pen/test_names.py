"""PEN names: French or English, case- and accent-insensitive, unknown ones with a suggestion."""

import pytest

from app.engine.pen.names import RULE_INFO, Rule, RuleRef, UnknownName, normalise, parse_rule


@pytest.mark.parametrize("rule", list(Rule))
def test_every_rule_is_found_by_its_french_and_english_names(rule: Rule) -> None:
    info = RULE_INFO[rule]
    assert parse_rule(info.french).rule is rule
    assert parse_rule(info.english).rule is rule
    assert parse_rule(info.french.upper()).rule is rule
    assert parse_rule(normalise(info.french)).rule is rule  # accents stripped


def test_the_seed_has_44_universal_special_rules_and_28_properties() -> None:
    # note §2.10 "complete list (44)" [L355-L478]; §2.9 lists 28 properties [L624-L706]
    scopes = [info.scope.value for info in RULE_INFO.values()]
    assert scopes.count("unit") == 44
    assert scopes.count("weapon") == 28


@pytest.mark.parametrize(
    ("text", "rule", "value", "param"),
    [
        ("Perforant", Rule.REND, None, None),
        ("rending", Rule.REND, None, None),
        ("PÉNÉTRANT", Rule.PENETRATING, None, None),
        ("penetrant", Rule.PENETRATING, None, None),
        ("anti-vehicule", Rule.ANTI_VEHICLE, None, None),
        ("Anti-endurance", Rule.ANTI_TOUGHNESS, 4, None),  # default X = 4+ [L630]
        ("Anti-endurance (3+)", Rule.ANTI_TOUGHNESS, 3, None),
        ("Empoisonnée (2+)", Rule.POISONED, 2, None),
        ("poisoned 3+", Rule.POISONED, 3, None),
        ("Surchauffe", Rule.OVERHEAT, 6, None),  # default X = 6 [L694]
        ("Enrayement 4+", Rule.OVERHEAT, 4, None),
        ("Précision (5+)", Rule.PRECISION, 5, None),
        ("Personnage indépendant", Rule.INDEPENDENT_CHARACTER, None, None),
        ("Ennemi juré", Rule.PREFERRED_ENEMY, None, None),
        ("Ennemi juré (Orks)", Rule.PREFERRED_ENEMY, None, "Orks"),
        ("Hit & Run", Rule.HIT_AND_RUN, None, None),
        ("Insensible à la douleur", Rule.FEEL_NO_PAIN, None, None),
        ("feel no pain", Rule.FEEL_NO_PAIN, None, None),
        ("Guerrier éternel", Rule.ETERNAL_WARRIOR, None, None),
        ("Jumelée", Rule.TWIN_LINKED, None, None),
        ("twin-linked", Rule.TWIN_LINKED, None, None),
        ("Tirs soutenus", Rule.SUSTAINED_FIRE, None, None),
        ("tir soutenu", Rule.SUSTAINED_FIRE, None, None),  # the §6.1 table's spelling [L565]
        ("IEM", Rule.EMP, None, None),
        ("Distorsion", Rule.IGNITE, None, None),
        ("Têtes chercheuses", Rule.AUTO_TARGETING, None, None),
        ("Ils ne connaîtront pas la peur", Rule.ATSKNF, None, None),
        ("Charge rapide", Rule.FLEET, None, None),
    ],
)
def test_parse_rule(text: str, rule: Rule, value: int | None, param: str | None) -> None:
    ref = parse_rule(text)
    assert ref == RuleRef(rule, value, param)


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("Perfornat", "Perforant"),
        ("Embrasment", "Embrasement"),
        ("Blesant", "Blessant"),
        ("twinlinked", "Jumelée"),
    ],
)
def test_unknown_name_suggests_the_closest(text: str, suggestion: str) -> None:
    with pytest.raises(UnknownName) as err:
        parse_rule(text)
    assert err.value.suggestion == suggestion
    assert suggestion in str(err.value)


def test_unknown_name_without_anything_close() -> None:
    with pytest.raises(UnknownName) as err:
        parse_rule("xyzzy")
    assert err.value.suggestion is None


@pytest.mark.parametrize("text", ["Blessant (3+)", "Anti-endurance (banana)", "Perforant 4+"])
def test_bad_parameters_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected a roll|takes no parameter"):
        parse_rule(text)


def test_str_round_trip() -> None:
    assert str(parse_rule("anti-toughness (3+)")) == "Anti-endurance (3+)"
    assert str(parse_rule("ennemi jure (orks)")) == "Ennemi juré (orks)"
    assert str(parse_rule("surchauffe")) == "Surchauffe"
