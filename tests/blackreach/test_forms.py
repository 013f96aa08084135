"""The friendly forms: what they build, what they keep, where their problems go."""

from __future__ import annotations

from app.blackreach import forms


def _form(**fields: str | list[str]) -> forms.FormData:
    single = {k.replace("__", "."): v for k, v in fields.items() if isinstance(v, str)}
    multi = {k.replace("__", "."): (v if isinstance(v, list) else [v]) for k, v in fields.items()}
    return forms.FormData(single, multi)


def test_a_counter_form_keeps_what_it_does_not_show() -> None:
    existing = {
        "id": "tank",
        "name": "Tank",
        "faction": "orks",
        "class": "heavy_vehicle",
        "footprint": 2,
        "hit_points": 3,
        "faces": [
            {"kind": "intact", "dv": 9, "mv": 3, "cv": {}, "weapons": [{"slot": "main", "cv": {}}]},
            {"kind": "wreck", "dv": 1},
            {"kind": "inactive", "dv": 2},
        ],
    }
    data = {
        "id": "tank",
        "name": "Big tank",
        "faction": "orks",
        "class": "heavy_vehicle",
        "faces[0]__kind": "intact",
        "faces[0]__dv": "10",
        "faces[0]__mv": "",
        "faces[0]__cv__infantry": "3",
        "faces[0]__abilities": ["assault", "limited_arc"],
        "faces[0]__params": "assault=2, limited_arc=90 ; junk",
    }
    counter = forms.counter_from_form(_form(**data), existing)
    assert counter["name"] == "Big tank"
    assert counter["footprint"] == 2
    assert counter["hit_points"] == 3
    first = counter["faces"][0]
    assert first["weapons"] == [{"slot": "main", "cv": {}}]  # kept
    assert (first["dv"], first["mv"]) == (10, None)  # blank MV: the "X"
    assert first["cv"] == {"infantry": 3, "light_vehicle": None, "heavy_vehicle": None}
    assert first["abilities"] == [{"id": "assault", "param": 2}, {"id": "limited_arc", "param": 90}]
    # no second face in the form: only the faces it does not show remain after the first
    assert [f["kind"] for f in counter["faces"]] == ["intact", "inactive"]
    assert existing["faces"][0]["dv"] == 9  # the stored item is not changed in place


def test_a_number_that_is_not_one_goes_to_the_engine_as_typed() -> None:
    tile = forms.tile_from_form(_form(id="t", name="T", faction="orks", cost="ten"), None)
    assert tile["cost"] == "ten"
    assert "breaking_point" not in tile  # blank: the engine's default


def test_the_fields_of_an_item_fill_its_form_again() -> None:
    counter = {
        "id": "c",
        "name": "C",
        "faction": "orks",
        "class": "infantry",
        "faces": [
            {
                "kind": "intact",
                "dv": 4,
                "mv": None,
                "cv": {"infantry": 2},
                "abilities": [{"id": "assault", "param": 1}, {"id": "ambush"}],
            }
        ],
    }
    fields = forms.counter_fields(counter)
    assert fields["faces[0].mv"] == ""
    assert fields["faces[0].cv.infantry"] == 2
    assert fields["faces[0].cv.heavy_vehicle"] == ""
    assert fields["faces[0].abilities"] == ["assault", "ambush"]
    assert fields["faces[0].params"] == "assault=1"
    again = forms.counter_from_form(
        _form(
            **{
                k.replace(".", "__"): v if isinstance(v, list) else str(v)
                for k, v in fields.items()
            }
        ),
        counter,
    )
    # sent back as shown: the same counter (the classes left out stay left out, issue 16)
    assert again == counter


def test_problems_go_beside_their_field_or_with_their_path_elsewhere() -> None:
    problems = [
        ("forces.counters[2].faces[0].dv", "an integer from 1 to 20"),
        ("forces.counters[2].faces[1]", "an object"),
        ("forces.counters[2].footprint", "1, 2 or 4 squares"),  # not in the form
        ("forces.counters[1].name", "a text"),  # another counter
        ("forces.counters[2]", "an object"),
    ]
    located = forms.locate(problems, "forces.counters[2]", "counter")
    assert located.under("faces[0].dv") == ["an integer from 1 to 20"]
    assert located.exactly("faces[1]") == ["an object"]
    assert located.exactly("") == ["an object"]
    assert located.elsewhere == (
        ("forces.counters[2].footprint", "1, 2 or 4 squares"),
        ("forces.counters[1].name", "a text"),
    )
    # "forces.counters[20]" is not inside "forces.counters[2]"
    assert forms.locate(
        [("forces.counters[20].id", "x")], "forces.counters[2]", "counter"
    ).elsewhere
