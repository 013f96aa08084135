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

from app.engine.black_reach.board import DATA_DIR, Board, board_from_dict
from app.engine.black_reach.loaders import catalogue_from_dict, parse_json, scenario_from_dict
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
    return scenario_from_dict(scenario, catalogue_from_dict(catalogue), _boards(boards))


def parse_setup(setup: BattleSetup) -> Scenario:
    """The scenario of a set-up (raises :class:`ProfileError` naming every bad field)."""
    return _parse(_key(setup))


def _read(path: Path) -> object:
    return parse_json(path.read_bytes())


def load_deployment(scenario_id: str, directory: Path | None = None) -> tuple[Deploy, ...]:
    """The sample deployment of a sample scenario (``deployments/<id>.json``)."""
    path = (directory or DATA_DIR / "deployments") / f"{scenario_id}.json"
    raw = _read(path)
    if not isinstance(raw, Mapping) or raw.get("format") != DEPLOYMENT_FORMAT:
        raise ProfileError(path.name, f"expected format {DEPLOYMENT_FORMAT!r}")
    units = raw.get("units")
    if not isinstance(units, list):
        raise ProfileError(f"{path.name}.units", "a list")
    out: list[Deploy] = []
    for i, u in enumerate(units):
        if not isinstance(u, Mapping) or not {"unit", "x", "y"} <= set(u):
            raise ProfileError(f"{path.name}.units[{i}]", "unit, x and y")
        out.append(
            Deploy(str(u["unit"]), int(u["x"]), int(u["y"]), str(u.get("facing", "N")), None)
        )
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
