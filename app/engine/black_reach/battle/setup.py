"""The set-up of a Black Reach battle: a scenario (data), the catalogue and boards it reads,
the seats and the deployment of every counter.

The set-up carries the scenario, the forces catalogue and the boards as the JSON they were
read from (``RawJson``), so a log replays the same battle even after the data files change;
:func:`parse_setup` reads them with the loaders of :mod:`app.engine.black_reach.loaders` (every
problem reported at once) and :func:`sample_setup` builds one from our own sample files
(``data/black_reach/``, labelled sample content).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.engine.black_reach.armies import CHECKED_AT_USE
from app.engine.black_reach.board import (
    DATA_DIR,
    MAX_BOARD_SIDE,
    Board,
    Reader,
    at,
    board_from_dict,
)
from app.engine.black_reach.loaders import catalogue_from_dict, parse_json, scenario_from_dict
from app.engine.black_reach.los import Facing
from app.engine.black_reach.scenario import Scenario
from app.engine.errors import ProfileError
from app.engine.match.codec import RawJson

__all__ = [
    "SEATS",
    "BattleSetup",
    "Deploy",
    "load_deployment",
    "parse_setup",
    "sample_setup",
]

SEATS = ("A", "B")
DEPLOYMENT_FORMAT = "auspex-black-reach-deployment/1"
DEPLOYMENT_KEYS = frozenset({"format", "sample", "note", "scenario", "units"})
UNIT_KEYS = frozenset({"unit", "x", "y", "facing"})
MAX_DEPLOYED = 200  # counters in a deployment file
MAX_UNIT_ID = 200  # a unit id: "<side>:<tile path>/<n>:<counter>"


@dataclass(frozen=True, slots=True)
class Deploy:
    """One counter set up on the battlefield: its anchor square (the front square of a
    2-square vehicle, the top-left one of a 4-square one), its facing, and the face it shows
    (``None``: its first face)."""

    unit: str
    x: int
    y: int
    facing: str = "N"
    face: str | None = None


@dataclass(frozen=True, slots=True)
class BattleSetup:
    """Everything a battle starts from. ``seats`` maps each seat (``A``, ``B``) to a side id
    of the scenario."""

    scenario: RawJson
    catalogue: RawJson
    boards: RawJson
    seats: Mapping[str, str]
    deployment: tuple[Deploy, ...] = ()


def _boards(raw: object) -> dict[str, Board]:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("boards"), list):
        raise ProfileError("boards", "an object with a list of boards")
    out: dict[str, Board] = {}
    for i, b in enumerate(raw["boards"]):
        if not isinstance(b, Mapping):
            raise ProfileError(f"boards[{i}]", "a board object")
        board = board_from_dict(b)
        out[board.name] = board
    return out


def _key(setup: BattleSetup) -> str:
    return json.dumps([setup.scenario, setup.catalogue, setup.boards], sort_keys=True)


@lru_cache(maxsize=16)
def _parse(key: str) -> Scenario:
    scenario, catalogue, boards = json.loads(key)
    # the violations the match refuses at use do not stop a log made before them (rulings 86)
    return scenario_from_dict(
        scenario, catalogue_from_dict(catalogue), _boards(boards), tolerate=CHECKED_AT_USE
    )


def parse_setup(setup: BattleSetup) -> Scenario:
    """The scenario of a set-up (raises :class:`ProfileError` naming every bad field)."""
    return _parse(_key(setup))


def _read(path: Path) -> object:
    return parse_json(path.read_bytes())


def load_deployment(scenario_id: str, directory: Path | None = None) -> tuple[Deploy, ...]:
    """The sample deployment of a sample scenario (``deployments/<id>.json``): its format,
    ``sample``, a bounded ``note``, the ``scenario`` it is for and its ``units`` (each
    ``unit``, ``x``, ``y`` and an optional ``facing``); an unknown key anywhere is refused,
    every problem reported at once."""
    path = (directory or DATA_DIR / "deployments") / f"{scenario_id}.json"
    r = Reader()
    obj = r.obj(_read(path), path.name, DEPLOYMENT_KEYS)
    if obj and obj.get("format") != DEPLOYMENT_FORMAT:
        r.fail(at(path.name, "format"), f"expected format {DEPLOYMENT_FORMAT!r}")
    r.note(obj, path.name)
    r.flag(obj, "sample", path.name)
    if "scenario" in obj and r.text(obj, "scenario", path.name) not in ("", scenario_id):
        r.fail(at(path.name, "scenario"), f"the deployment of {scenario_id!r}")
    if obj and not isinstance(obj.get("units"), list):
        r.fail(at(path.name, "units"), "a list")
    out: list[Deploy] = []
    for i, raw in enumerate(r.items(obj, "units", path.name, MAX_DEPLOYED)):
        where = f"{at(path.name, 'units')}[{i}]"
        u = r.obj(raw, where, UNIT_KEYS)
        if not u:
            continue
        unit = r.text(u, "unit", where, most=MAX_UNIT_ID)
        x = r.integer(u, "x", where, 0, MAX_BOARD_SIDE - 1)
        y = r.integer(u, "y", where, 0, MAX_BOARD_SIDE - 1)
        facing = u.get("facing", "N")
        if facing not in Facing.__members__:
            r.fail(at(where, "facing"), f"one of {', '.join(Facing.__members__)}")
        out.append(Deploy(unit, x, y, str(facing), None))
    r.raise_if_any()
    return tuple(out)


def sample_setup(
    scenario_id: str = "sample-relay",
    seats: Mapping[str, str] | None = None,
    deployment: tuple[Deploy, ...] | None = None,
) -> BattleSetup:
    """A set-up from our own sample files: the scenario, the catalogue, the boards and (unless
    given) the sample deployment. Seat A plays the scenario's first side by default."""
    scenario = _read(DATA_DIR / "scenarios" / f"{scenario_id}.json")
    if not isinstance(scenario, Mapping):
        raise ProfileError(scenario_id, "a scenario object")
    sides = [s["id"] for s in scenario["sides"]]
    return BattleSetup(
        scenario=scenario,
        catalogue=_read(DATA_DIR / "forces.json"),
        boards=_read(DATA_DIR / "boards.json"),
        seats=dict(seats) if seats is not None else {"A": sides[0], "B": sides[1]},
        deployment=deployment if deployment is not None else load_deployment(scenario_id),
    )
