"""Counters, step losses, Hit Points, Damage markers and Breaking Points (note §2.2, §3.8;
seed [L607-L699], [L2243-L2255], [L639-L647])."""

from __future__ import annotations

import pytest

from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.forces import (
    Counter,
    Face,
    FaceKind,
    Faction,
    Group,
    StepLoss,
    apply_step,
    fresh_state,
)
from app.engine.black_reach.loaders import load_sample_catalogue
from app.engine.black_reach.tables import DamageMarker

CV = {UnitClass.INFANTRY: 2, UnitClass.LIGHT_VEHICLE: 0, UnitClass.HEAVY_VEHICLE: None}


def squad(hit_points: int = 0) -> Counter:
    return Counter(
        "squad",
        "Squad",
        Faction.ORKS,
        UnitClass.INFANTRY,
        (
            Face(FaceKind.INTACT, 4, 4, CV, on_step_loss=StepLoss.FLIP),
            Face(FaceKind.REDUCED, 5, 4, CV, on_step_loss=StepLoss.DESTROY),
        ),
        hit_points=hit_points,
    )


def test_a_step_flips_to_the_reduced_face_and_a_second_removes_it() -> None:
    counter = squad()
    first = apply_step(counter, fresh_state(counter))
    assert first.flipped
    assert not first.destroyed
    assert first.state.face is FaceKind.REDUCED
    assert first.state.on_board
    second = apply_step(counter, first.state)
    assert second.destroyed
    assert not second.state.on_board
    with pytest.raises(ValueError, match="already destroyed"):
        apply_step(counter, second.state)


def test_a_coup_double_takes_both_steps_at_once() -> None:
    counter = squad()
    result = apply_step(counter, fresh_state(counter), steps=2)
    assert result.flipped
    assert result.destroyed
    assert result.steps_taken == 2


def test_hit_points_cancel_steps_first() -> None:
    counter = squad(hit_points=1)
    result = apply_step(counter, fresh_state(counter), steps=2)
    assert (result.hit_points_used, result.steps_taken) == (1, 1)
    assert result.state.face is FaceKind.REDUCED
    assert result.state.hit_points == 0
    spared = apply_step(counter, fresh_state(squad(hit_points=2)), steps=2)
    assert spared.steps_taken == 0
    assert spared.state.face is FaceKind.INTACT


def test_a_light_vehicle_becomes_its_wreck() -> None:
    catalogue = load_sample_catalogue()
    transport = catalogue.counters["sample-um-transport"]
    result = apply_step(transport, fresh_state(transport))
    assert result.destroyed
    assert result.state.face is FaceKind.WRECK
    assert result.state.on_board  # a wreck stays as a terrain element [L633-L637]
    buggy = catalogue.counters["sample-ork-buggy"]  # no wreck face: removed
    gone = apply_step(buggy, fresh_state(buggy))
    assert gone.destroyed
    assert not gone.state.on_board


def test_a_heavy_vehicle_takes_damage_markers_and_a_second_of_a_kind_wrecks_it() -> None:
    tank = load_sample_catalogue().counters["sample-um-battle-tank"]
    state = fresh_state(tank)
    with pytest.raises(ValueError, match="Damage marker"):
        apply_step(tank, state)
    hit = apply_step(tank, state, damage=[DamageMarker.HULL])
    assert not hit.destroyed
    assert hit.state.damage.markers == (DamageMarker.HULL,)
    again = apply_step(tank, hit.state, damage=[DamageMarker.HULL])
    assert again.destroyed
    assert again.state.face is FaceKind.WRECK
    assert again.state.damage.wreck
    doubled = apply_step(tank, state, steps=2)
    assert doubled.destroyed
    assert doubled.state.damage.wreck


def test_only_heavy_vehicles_take_damage_markers() -> None:
    counter = squad()
    with pytest.raises(ValueError, match="only heavy vehicles"):
        apply_step(counter, fresh_state(counter), damage=[DamageMarker.HULL])


def test_a_group_breaks_at_its_breaking_point() -> None:
    group = Group("g", "tile", "orks", ("a", "b", "c"), breaking_point=2, victory_points=3)
    assert not group.lose("a").broken
    broken = group.lose("a").lose("b")
    assert broken.broken
    assert not broken.restore("b").broken  # Fils de Gork mends it [L2196-L2202]
    assert Group("h", "tile", "orks", ("a",)).lose("a").broken  # default Breaking Point 1


def test_a_bad_catalogue_lists_every_problem_with_its_place() -> None:
    from app.engine.black_reach.loaders import catalogue_from_dict
    from app.engine.errors import ProfileError

    raw = {
        "format": "auspex-black-reach-forces/1",
        "counters": [
            {
                "id": "a",
                "name": "A",
                "faction": "eldar",
                "class": "infantry",
                "footprint": 2,
                "faces": [
                    {
                        "kind": "intact",
                        "dv": 0,
                        "mv": 4,
                        "cv": {"infantry": 2, "tanks": 1},
                        "on_step_loss": "flip",
                    }
                ],
            },
        ],
        "tiles": [
            {
                "id": "t",
                "name": "T",
                "faction": "orks",
                "cost": 5,
                "counters": ["ghost"],
                "slots": [{"bands": []}, {"bands": []}, {"bands": []}],
            }
        ],
        "options": [
            {
                "id": "o",
                "name": "O",
                "faction": "orks",
                "type": "ordnance",
                "cost": 1,
                "bands": ["red"],
            }
        ],
    }
    with pytest.raises(ProfileError) as info:
        catalogue_from_dict(raw)
    fields = {f for f, _ in info.value.errors}
    assert {
        "counters[0].faction",
        "counters[0].footprint",
        "counters[0].faces[0].dv",
        "counters[0].faces[0].cv.tanks",
        "counters[0].faces",  # a flip symbol with no reduced face
        "tiles[0].slots",  # at most 2 slots [L2271]
        "options[0].ordnance",
    } <= fields
