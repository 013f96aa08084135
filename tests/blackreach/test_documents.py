"""The documents' check: any JSON value gives located problems, never an exception."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.blackreach.documents import Documents, check, empty_documents, sample_documents

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 100) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
keys = st.sampled_from(
    [
        "id",
        "name",
        "faces",
        "kind",
        "dv",
        "mv",
        "cv",
        "abilities",
        "board",
        "boards",
        "sides",
        "squares",
        "width",
        "height",
        "elements",
        "edges",
        "counters",
        "tiles",
        "army",
        "deployment",
    ]
)


def _mutate(value: Any, path: list[int | str], new: Any) -> Any:
    """The value with one nested field replaced (or added) along ``path``."""
    out = copy.deepcopy(value)
    node = out
    for step in path[:-1]:
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and node:
            node = node[step % len(node)]
        else:
            break
    last = path[-1]
    if isinstance(node, dict):
        node[str(last)] = new
    elif isinstance(node, list) and node:
        node[int(last) % len(node) if isinstance(last, int) else 0] = new
    return out


@given(forces=json_values, boards=json_values, scenarios=json_values)
def test_any_json_gives_problems_not_an_exception(forces: Any, boards: Any, scenarios: Any) -> None:
    checked = check(Documents(forces, boards, scenarios))  # type: ignore[arg-type]
    assert all(
        p.field.split(".")[0].split("[")[0] in {"forces", "boards", "scenarios"}
        for p in checked.problems
    )


@given(
    part=st.sampled_from(["forces", "boards", "scenarios"]),
    path=st.lists(st.one_of(keys, st.integers(0, 5)), min_size=1, max_size=6),
    new=json_values,
)
def test_one_changed_field_of_the_sample_gives_problems_not_an_exception(
    part: str, path: list[int | str], new: Any
) -> None:
    docs = sample_documents()
    changed = {"forces": docs.forces, "boards": docs.boards, "scenarios": docs.scenarios}
    changed[part] = _mutate(changed[part], path, new)
    checked = check(Documents(**changed))
    for p in checked.problems:
        assert p.field.startswith(part) or p.field.startswith("scenarios"), p


def test_the_sample_and_an_empty_set_are_valid() -> None:
    assert check(sample_documents()).ok
    assert check(empty_documents()).ok


def test_text_nested_too_deeply_is_a_problem() -> None:
    from app.blackreach.documents import parse_text

    value, problems = parse_text("[" * 50_000 + "]" * 50_000, "forces")
    assert value is None
    assert [(p.field, p.message) for p in problems] == [("forces", "nested too deeply")]
    value, problems = parse_text('{"a": [1, 2]}', "forces")
    assert (value, problems) == ({"a": [1, 2]}, [])


def test_a_document_nested_deeper_than_the_bound_is_refused() -> None:
    from app.blackreach.documents import MAX_DEPTH

    deep: Any = []
    for _ in range(900):
        deep = [deep]
    forces = {**empty_documents().forces, "note": deep}
    checked = check(Documents(forces, {"boards": []}, []))
    assert [(p.field, p.message) for p in checked.problems] == [
        ("forces", f"lists and objects nested at most {MAX_DEPTH} deep")
    ]
    scenario = {"note": [[[[1]]]]}  # shallow: read by the engine, which names its problems
    checked = check(Documents(empty_documents().forces, {"boards": []}, [scenario]))
    assert not any(p.message.startswith("lists and objects") for p in checked.problems)
