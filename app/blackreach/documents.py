"""The three documents of a content set, checked by the engine's own readers.

A set is valid when ``catalogue_from_dict`` accepts its forces, ``boards_from_dict`` its
boards document, and ``scenario_from_dict`` each scenario over those forces and boards. Every
problem is reported at once, each with the path of the field (``forces.counters[0].faces[0].dv``,
``boards.boards[1].elements[0].squares``, ``scenarios[0].sides[1].deployment``), as the
readers report them with the document's name in front. Each document is bounded by the readers'
512 KiB (counted on its compact JSON text), the boards file by the engine's 32 boards and the
scenarios by :data:`MAX_SCENARIOS`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from app.engine.black_reach.armies import Catalogue
from app.engine.black_reach.board import DATA_DIR, Board, boards_from_dict
from app.engine.black_reach.forces import Ability
from app.engine.black_reach.loaders import (
    CATALOGUE_FORMAT,
    MAX_JSON_BYTES,
    catalogue_from_dict,
    parse_json,
    scenario_from_dict,
)
from app.engine.black_reach.scenario import Scenario
from app.engine.errors import ProfileError

MAX_SCENARIOS = 20
MAX_DEPTH = 32  # levels of nested lists and objects in a document (the formats need about 8)
DOCUMENTS = ("forces", "boards", "scenarios")
ABILITY_IDS: tuple[str, ...] = tuple(a.value for a in Ability)


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a document: the path of the field and what it should be."""

    field: str
    message: str


@dataclass(frozen=True, slots=True)
class Documents:
    forces: dict[str, Any]
    boards: dict[str, Any]
    scenarios: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Checked:
    """What the engine read from a set: its problems, and what could be built."""

    problems: list[Problem] = field(default_factory=list)
    catalogue: Catalogue | None = None
    boards: dict[str, Board] = field(default_factory=dict)
    scenarios: list[Scenario | None] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def empty_documents() -> Documents:
    """A new set: no counter, no board, no scenario (valid as it is)."""
    return Documents(
        forces={"format": CATALOGUE_FORMAT, "counters": [], "tiles": [], "options": []},
        boards={"boards": []},
        scenarios=[],
    )


@cache
def _sample_text() -> tuple[bytes, bytes, tuple[bytes, ...]]:
    scenarios = tuple(p.read_bytes() for p in sorted((DATA_DIR / "scenarios").glob("*.json")))
    return (
        (DATA_DIR / "forces.json").read_bytes(),
        (DATA_DIR / "boards.json").read_bytes(),
        scenarios,
    )


def sample_documents() -> Documents:
    """The shipped sample set (``data/black_reach/``): our own made-up content, a fresh copy."""
    forces, boards, scenarios = _sample_text()
    return Documents(
        forces=json.loads(forces),
        boards=json.loads(boards),
        scenarios=[json.loads(s) for s in scenarios],
    )


def size_problem(value: Any, where: str) -> Problem | None:
    """The readers' bound on one document, counted on its compact JSON text."""
    size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_JSON_BYTES:
        return Problem(where, f"at most {MAX_JSON_BYTES} bytes of JSON")
    return None


def not_finite(value: Any) -> bool:
    """Whether a number is NaN or infinite anywhere in ``value`` (Python's JSON reader accepts
    ``NaN`` and ``Infinity``; they are not JSON and Postgres refuses them)."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def too_deep(value: Any, most: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest deeper than ``most`` levels (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > most:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def parse_text(text: str, where: str) -> tuple[Any, list[Problem]]:
    """A document typed in an editor: JSON, bounded as the readers bound a file."""
    try:
        return parse_json(text), []
    except ProfileError as exc:
        return None, [Problem(where, message) for _field, message in exc.errors]
    except RecursionError:
        return None, [Problem(where, "nested too deeply")]


def _prefixed(exc: ProfileError, prefix: str) -> list[Problem]:
    return [Problem(f, m) for f, m in exc.with_prefix(prefix).errors]


def _check_boards(raw: Any, problems: list[Problem]) -> dict[str, Board]:
    """The boards document, read by the engine's reader of a boards file (every problem,
    located under ``boards.``)."""
    try:
        return boards_from_dict(raw)
    except ProfileError as exc:
        problems.extend(_prefixed(exc, "boards"))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        problems.append(Problem("boards", f"cannot be read: {exc}"))
    return {}


def check(docs: Documents) -> Checked:
    """Every problem of the three documents; the scenarios are read once the forces and the
    boards they use are valid (their problems would otherwise be the forces' own again)."""
    problems: list[Problem] = []
    for name in DOCUMENTS:
        value = getattr(docs, name)
        if too_deep(value):
            problems.append(Problem(name, f"lists and objects nested at most {MAX_DEPTH} deep"))
        elif not_finite(value):
            problems.append(Problem(name, "numbers only: NaN and Infinity are not JSON"))
        elif (too_big := size_problem(value, name)) is not None:
            problems.append(too_big)
    if problems:
        return Checked(problems)
    catalogue: Catalogue | None = None
    try:
        catalogue = catalogue_from_dict(docs.forces)
    except ProfileError as exc:
        problems.extend(_prefixed(exc, "forces"))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        problems.append(Problem("forces", f"cannot be read: {exc}"))
    boards = _check_boards(docs.boards, problems)
    scenarios: list[Scenario | None] = []
    if not isinstance(docs.scenarios, list):
        problems.append(Problem("scenarios", "a list"))
    elif len(docs.scenarios) > MAX_SCENARIOS:
        problems.append(Problem("scenarios", f"at most {MAX_SCENARIOS} items"))
    elif catalogue is not None and not problems:
        seen: set[str] = set()
        for i, raw in enumerate(docs.scenarios):
            where = f"scenarios[{i}]"
            try:
                scenario = scenario_from_dict(raw, catalogue, boards)
            except ProfileError as exc:
                problems.extend(_prefixed(exc, where))
                scenarios.append(None)
                continue
            except (TypeError, ValueError, KeyError, AttributeError) as exc:
                problems.append(Problem(where, f"cannot be read: {exc}"))
                scenarios.append(None)
                continue
            if scenario.id in seen:
                problems.append(Problem(f"{where}.id", f"{scenario.id!r} is used twice"))
            seen.add(scenario.id)
            scenarios.append(scenario)
    return Checked(problems, catalogue, boards, scenarios)
