"""The match feature is neutral: each rule system plugs its game in (ADR 0013)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.engine import registry, systems
from app.engine.match.game import GameStatus, MatchGame
from app.engine.wh40k10e.battle import Battle
from app.matches.systems import playable
from app.matches.systems import systems as match_systems
from app.matches.systems.pen import PenMatch
from tests.matches.conftest import FakeArmies, marines


def test_the_10e_battle_is_a_match_game() -> None:
    battle = Battle()
    assert isinstance(battle, MatchGame)
    assert isinstance(battle.fork(), MatchGame)
    status = battle.status()
    assert status == GameStatus("setup", confirmed=False, winner=None, scores={}, round=0)


def test_a_game_without_the_protocol_members_is_not_a_match_game() -> None:
    class Half:
        def view(self, viewer: str | None) -> dict[str, object]:
            return {}

    assert not isinstance(Half(), MatchGame)


# -- the registry --------------------------------------------------------------------------------


MATCHES = Path(__file__).resolve().parents[2] / "app" / "matches"
SYSTEM_IMPORTS = (
    "app.engine.wh40k10e",
    "app.engine.pen",
    "app.engine.dynamics",
    "app.engine.black_reach",
)
SYSTEM_IDS = ("pen", "black-reach")


def test_every_system_with_the_match_capability_has_an_entry_and_back() -> None:
    systems.load_all()
    engine = {s.id for s in registry.rule_systems() if s.has("match")}
    assert engine == set(match_systems()) == {"wh40k-10e", "pen", "black-reach"}


def test_every_entry_plays_a_match_game_with_its_own_missions() -> None:
    for entry in match_systems().values():
        assert isinstance(entry.game(), MatchGame)
        assert isinstance(entry.game().fork(), entry.game)
        missions = entry.missions()
        assert missions
        assert all(m.rule_system == entry.id for m in missions.values())
        assert entry.default_mission in missions
        entry.missions()[entry.default_mission].battle_size(entry.default_size)


def test_the_pen_game_reads_its_status_in_the_shared_words() -> None:
    assert PenMatch().status() == GameStatus("setup")


def test_an_unknown_ruleset_is_a_422_naming_the_playable_ones() -> None:
    from app.matches.exceptions import UnknownRuleset

    with pytest.raises(UnknownRuleset) as err:
        playable("chess")
    assert "pen" in str(err.value.detail)
    assert "wh40k-10e" in str(err.value.detail)
    assert "black-reach" in str(err.value.detail)


def test_the_pen_game_plays_each_turn_structure_behind_one_protocol() -> None:
    from app.engine.dynamics import DynamicsBattle
    from app.engine.pen.battle import PenBattle

    assert isinstance(PenMatch(), MatchGame)
    assert isinstance(PenMatch().inner, PenBattle)
    assert isinstance(PenMatch().fork(), PenMatch)
    assert not isinstance(PenMatch().inner, DynamicsBattle)


def _system_names(path: Path) -> list[str]:
    """The rule-system literals and engine imports of one module (a schema default excepted)."""
    tree = ast.parse(path.read_text())
    skipped = {  # a schema's default value, and the docstrings
        id(k.value)
        for node in ast.walk(tree)
        for k in getattr(node, "keywords", [])
        if k.arg == "default"
    } | {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in skipped:
                continue
            if "wh40k" in node.value.lower() or node.value.lower() in SYSTEM_IDS:
                found.append(f"{path.name}:{node.lineno} {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(SYSTEM_IMPORTS):
                found.append(f"{path.name}:{node.lineno} from {node.module}")
        elif isinstance(node, ast.Import):
            found.extend(
                f"{path.name}:{node.lineno} import {a.name}"
                for a in node.names
                if a.name.startswith(SYSTEM_IMPORTS)
            )
    return found


def _own_system_page(path: Path) -> bool:
    """A system's own page module (``pages/<system>.py`` or ``pages/<system>/...``): the shared
    registry ``pages/__init__.py`` is scanned."""
    parts = path.relative_to(MATCHES).parts
    return parts[0] == "pages" and parts != ("pages", "__init__.py")


def test_the_match_feature_never_names_a_rule_system_outside_its_systems() -> None:
    modules = [
        p
        for p in sorted(MATCHES.rglob("*.py"))
        if "systems" not in p.relative_to(MATCHES).parts and not _own_system_page(p)
    ]
    assert len(modules) > 10
    names = {p.relative_to(MATCHES).as_posix() for p in modules}
    assert {"web.py", "present.py", "pages/__init__.py"} <= names
    assert [f for p in modules for f in _system_names(p)] == []


def test_the_scan_finds_a_rule_system_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        'from app.engine.pen.battle import PenBattle\nif ruleset == "wh40k-10e":\n    pass\n'
        'x = Field(default="wh40k-10e")\n"""About wh40k."""\n'
    )
    assert _system_names(bad) == [
        "bad.py:1 from app.engine.pen.battle",
        "bad.py:2 'wh40k-10e'",
    ]


# -- the 10th edition through the neutral layer ---------------------------------------------------


def test_a_match_without_ruleset_is_a_10e_match_and_says_so(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice = user_client("Alice")
    army = armies.ready(alice, marines())
    r = alice.post("/api/v1/matches", json={"army_id": army})
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["ruleset"] == created["rule_system"] == "wh40k-10e"
    assert (created["mission"], created["battle_size"]) == ("only-war", "strike_force")
    listed = alice.get("/api/v1/matches").json()
    assert [m["ruleset"] for m in listed] == ["wh40k-10e"]
    samples = alice.get("/api/v1/matches/samples").json()
    assert samples
    assert alice.get("/api/v1/matches/samples", params={"ruleset": "wh40k-10e"}).json() == samples


def test_10e_options_are_checked_by_the_10e_system(
    user_client: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice = user_client("Alice")
    army = armies.ready(alice, marines())
    r = alice.post("/api/v1/matches", json={"army_id": army, "options": {"starting_cp": 99}})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.starting_cp"
    r = alice.post("/api/v1/matches", json={"army_id": army, "options": {"starting_cp": 3}})
    assert r.status_code == 201, r.text
