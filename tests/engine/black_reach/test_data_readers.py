"""The data readers report every problem of a file at once, each located by a path
(docs/black-reach-data.md; review of issue 16): boards, the boards file, notes, and the counter
references of tiles and options when an id is used twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.black_reach.board import (
    DATA_DIR,
    MAX_NOTE,
    DefenceColour,
    UnitClass,
    board_from_dict,
    boards_from_dict,
    load_sample_boards,
)
from app.engine.black_reach.loaders import (
    CATALOGUE_FORMAT,
    catalogue_from_dict,
    load_sample_catalogue,
    scenario_from_dict,
)
from app.engine.errors import ProfileError


def fields(err: pytest.ExceptionInfo[ProfileError]) -> list[str]:
    return [f for f, _ in err.value.errors]


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# -- boards ----------------------------------------------------------------------------------


def test_a_board_reports_every_problem_at_once() -> None:
    raw = {
        "name": "b",
        "width": 3,
        "height": 3,
        "colour": "red",
        "sample": "yes",
        "elements": [
            {"squares": [[0, 0]]},
            {"id": "far", "squares": [[5, 5]]},
            {"id": "ok", "squares": [[1, 1], [1]], "defence_colours": ["yellow", "pink"]},
            {"id": "cls", "squares": [[2, 2]], "forbidden_to": ["tanks"], "structure": 0},
        ],
        "edges": [
            {"id": "w", "kind": "moat", "edges": [[[0, 0], [1, 0]]]},
            {"id": "v", "kind": "wall", "edges": [[[0, 0], [1, 1]], [[0, 0], [0, 1]]]},
            {"id": "x", "kind": "wall", "edges": [[[2, 2], [3, 2]]]},
            "wall",
        ],
    }
    with pytest.raises(ProfileError) as err:
        board_from_dict(raw)
    assert sorted(fields(err)) == sorted(
        [
            "board.colour",
            "board.sample",
            "board.elements[0].id",
            "board.elements[1].squares",
            "board.elements[2].squares[1]",
            "board.elements[2].defence_colours[1]",
            "board.elements[3].forbidden_to[0]",
            "board.elements[3].structure",
            "board.edges[0].kind",
            "board.edges[1].edges[0]",
            "board.edges[2].edges[0]",
            "board.edges[3]",
        ]
    )
    messages = dict(err.value.errors)
    assert messages["board.elements[2].defence_colours[1]"] == "one of yellow, violet, grey"
    assert messages["board.edges[1].edges[0]"] == "two orthogonally adjacent squares"
    assert messages["board.edges[2].edges[0]"] == "both squares on the board"


def test_a_board_of_unknown_size_still_reads_its_elements() -> None:
    """A bad width is one problem, not one more per element off a board of no squares."""
    raw = {
        "name": "",
        "width": 0,
        "height": 2,
        "elements": [{"id": "e", "squares": [[1, 1]], "difficult": 1}],
    }
    with pytest.raises(ProfileError) as err:
        board_from_dict(raw)
    assert fields(err) == ["board.name", "board.width", "board.elements[0].difficult"]


def test_a_good_board_reads_its_elements() -> None:
    board = board_from_dict(
        {
            "name": "b",
            "width": 2,
            "height": 2,
            "note": "our own",
            "elements": [
                {
                    "id": "wood",
                    "squares": [[0, 0], [1, 0]],
                    "defence_bonus": 1,
                    "defence_colours": ["yellow", "violet"],
                    "forbidden_to": ["heavy_vehicle"],
                    "structure": 3,
                }
            ],
            "edges": [{"id": "w", "kind": "barricade", "edges": [[[0, 1], [1, 1]]]}],
        }
    )
    wood = board.element("wood")
    assert wood.defence_colours == {DefenceColour.YELLOW, DefenceColour.VIOLET}  # type: ignore[union-attr]
    assert wood.forbidden_to == {UnitClass.HEAVY_VEHICLE}  # type: ignore[union-attr]
    assert wood.structure == 3  # type: ignore[union-attr]
    assert len(board.squares) == 4


def test_a_board_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ProfileError) as err:
        board_from_dict(["b"])
    assert fields(err) == ["board"]


# -- the boards file -------------------------------------------------------------------------


def test_the_boards_file_refuses_unknown_keys_with_their_path(tmp_path: Path) -> None:
    raw = json.loads((DATA_DIR / "boards.json").read_text())
    raw["extra"] = 1
    raw["boards"][1]["width"] = 99
    path = tmp_path / "boards.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ProfileError) as err:
        load_sample_boards(path)
    assert fields(err) == ["extra", "boards[1].width"]


def test_the_boards_file_needs_a_list_of_boards_with_different_names() -> None:
    with pytest.raises(ProfileError) as err:
        boards_from_dict({"boards": {"b": 1}})
    assert fields(err) == ["boards"]
    board = {"name": "b", "width": 1, "height": 1}
    with pytest.raises(ProfileError) as err:
        boards_from_dict({"boards": [board, board]})
    assert err.value.errors == (("boards[1].name", "'b' is used twice"),)
    with pytest.raises(ProfileError) as err:
        boards_from_dict([board])
    assert fields(err) == [""]


def test_the_sample_boards_still_load() -> None:
    assert {"sample-ruins", "sample-ridge", "sample-barricade-tile"} <= set(load_sample_boards())


# -- notes -----------------------------------------------------------------------------------

BAD_NOTES = [nested(900), 7, {"a": "b"}, "x" * (MAX_NOTE + 1)]


@pytest.mark.parametrize("note", BAD_NOTES)
def test_a_board_note_is_a_bounded_text(note: Any) -> None:
    with pytest.raises(ProfileError) as err:
        board_from_dict({"name": "b", "width": 1, "height": 1, "note": note})
    assert err.value.errors == (("board.note", f"a text of at most {MAX_NOTE} characters"),)


@pytest.mark.parametrize("note", BAD_NOTES)
def test_a_boards_file_note_is_a_bounded_text(note: Any) -> None:
    with pytest.raises(ProfileError) as err:
        boards_from_dict({"note": note, "boards": []})
    assert fields(err) == ["note"]


@pytest.mark.parametrize("note", BAD_NOTES)
def test_a_catalogue_note_is_a_bounded_text(note: Any) -> None:
    with pytest.raises(ProfileError) as err:
        catalogue_from_dict({"format": CATALOGUE_FORMAT, "note": note})
    assert fields(err) == ["note"]


@pytest.mark.parametrize("note", BAD_NOTES)
def test_a_scenario_note_is_a_bounded_text(note: Any) -> None:
    raw = json.loads((DATA_DIR / "scenarios" / "sample-relay.json").read_text())
    raw["note"] = note
    with pytest.raises(ProfileError) as err:
        scenario_from_dict(raw, load_sample_catalogue(), load_sample_boards())
    assert fields(err) == ["note"]


def test_a_note_of_the_longest_length_is_accepted() -> None:
    note = "x" * MAX_NOTE
    assert board_from_dict({"name": "b", "width": 1, "height": 1, "note": note}).name == "b"
    assert boards_from_dict({"note": note, "boards": []}) == {}
    assert not catalogue_from_dict({"format": CATALOGUE_FORMAT, "note": note}).counters
    raw = json.loads((DATA_DIR / "scenarios" / "sample-relay.json").read_text())
    raw["note"] = note
    assert scenario_from_dict(raw, load_sample_catalogue(), load_sample_boards()).sample


# -- counter references ----------------------------------------------------------------------

COUNTER = {
    "id": "c",
    "name": "C",
    "faction": "orks",
    "class": "infantry",
    "faces": [{"kind": "intact", "dv": 3, "cv": {}}],
}


def tile(ident: str, *counters: str) -> dict[str, Any]:
    return {"id": ident, "name": ident, "faction": "orks", "cost": 10, "counters": list(counters)}


def support(ident: str, *counters: str) -> dict[str, Any]:
    return {**tile(ident, *counters), "type": "support", "cost": 5}


def test_a_missing_counter_is_located_at_its_real_list_index() -> None:
    raw = {
        "format": CATALOGUE_FORMAT,
        "counters": [COUNTER],
        "tiles": [tile("t", "lost-0"), tile("t", "c"), tile("u", "c", "lost-2")],
        "options": [support("o", "c"), support("o", "lost-1"), support("p", "lost-2")],
    }
    with pytest.raises(ProfileError) as err:
        catalogue_from_dict(raw)
    assert err.value.errors == (
        ("tiles[1].id", "'t' is used twice"),
        ("options[1].id", "'o' is used twice"),
        ("tiles[0].counters[0]", "no counter 'lost-0'"),
        ("tiles[2].counters[1]", "no counter 'lost-2'"),
        ("options[1].counters[0]", "no counter 'lost-1'"),
        ("options[2].counters[0]", "no counter 'lost-2'"),
    )


def test_a_catalogue_sample_flag_is_checked() -> None:
    with pytest.raises(ProfileError) as err:
        catalogue_from_dict({"format": CATALOGUE_FORMAT, "sample": "yes"})
    assert fields(err) == ["sample"]
