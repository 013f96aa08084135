"""A clumsy player and a cheat at the table: the match of each rule system is played from its
legal actions, some sent as they are (so the battle moves on), some edited (a field set to a
hostile value, dropped, added, the command's type changed, a list item spoiled), some with dice
that do not fit or a stale version. Then the exported log, edited the same way, is imported, and
an army's export too. No answer is a server error.

The legal actions come from ``GET /matches/{id}/actions`` (whole commands), so the sweep reaches
the rules' deep states without knowing any system. Deterministic (a seeded ``random.Random``
and ``derandomize``) and bounded by ``COMMAND_STEPS`` commands per match (default 60) and
``IMPORT_EXAMPLES`` edited documents per import route (default 15).
"""

from __future__ import annotations

import contextlib
import copy
import os
import random
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.robustness.conftest import HOSTILE_JSON, World

STEPS = int(os.environ.get("COMMAND_STEPS", "60"))
IMPORT_EXAMPLES = int(os.environ.get("IMPORT_EXAMPLES", "15"))
EDITED = 0.3  # the share of commands sent edited
FIELDS = ("unit", "target", "x", "y", "seat", "weapon", "weapons", "models", "path", "confirm")
TYPES = ("undo", "concede", "end_step", "end_phase", "roll_off", "deploy", "move", "zzz")


def edit(rng: random.Random, command: dict[str, Any]) -> dict[str, Any]:
    """``command`` with one hostile edit."""
    command = copy.deepcopy(command)
    keys = [k for k in command if k != "type"]
    how = rng.choice(("set", "set", "set", "drop", "add", "type", "inner"))
    if how == "set" and keys:
        command[rng.choice(keys)] = rng.choice(HOSTILE_JSON)
    elif how == "drop" and keys:
        del command[rng.choice(keys)]
    elif how == "add":
        command[rng.choice(FIELDS)] = rng.choice(HOSTILE_JSON)
    elif how == "type":
        command["type"] = rng.choice((*TYPES, *HOSTILE_JSON[:12], None, 7))
    else:
        for key in keys:
            value = command[key]
            if isinstance(value, list) and value:
                value[rng.randrange(len(value))] = rng.choice(HOSTILE_JSON)
            elif isinstance(value, dict) and value:
                value[rng.choice(list(value))] = rng.choice(HOSTILE_JSON)
    return command


def _dice(rng: random.Random) -> list[int]:
    return [rng.choice((1, 2, 3, 4, 5, 6, 0, 7, -1, 100)) for _ in range(rng.randrange(0, 25))]


def play(seats: list[TestClient], match_id: int, steps: int, rng: random.Random) -> list[str]:
    """``steps`` commands of legal actions, some edited; the failures."""
    base = f"/api/v1/matches/{match_id}"
    failures = []
    for _ in range(steps):
        for client in rng.sample(seats, len(seats)):
            r = client.get(f"{base}/actions")
            assert r.status_code == 200, r.text
            if r.json()["actions"]:
                break
        else:
            return failures  # nobody can act: the battle is over
        version, actions = r.json()["version"], r.json()["actions"]
        command = rng.choice(actions)["command"]
        if rng.random() < EDITED:
            command = edit(rng, command)
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if rng.random() < 0.2:
            body["dice"] = _dice(rng)
        if rng.random() < 0.05:
            body["expected_version"] = rng.choice((version - 1, version + 1, 0))
        answer = client.post(f"{base}/commands", json=body)
        if answer.status_code >= 500:
            failures.append(f"POST {base}/commands {body!r:.500} -> {answer.status_code}")
        if rng.random() < 0.1:
            for path in (base, f"{base}/log", f"{base}/export"):
                seen = client.get(path)
                if seen.status_code >= 500:
                    failures.append(f"GET {path} -> {seen.status_code}")
    return failures


def test_every_match_takes_edited_commands_without_a_server_error(
    app: FastAPI, world: World
) -> None:
    rng = random.Random(20261126)
    failures: list[str] = []
    for match_id in world.ids["match_id"]:
        failures += play([world.player, world.rival], match_id, STEPS, rng)
        r = world.player.get(f"/api/v1/matches/{match_id}")
        assert r.status_code == 200, r.text
        assert r.json()["version"] > 1, r.text  # the battle moved on
    assert not failures, "\n".join(dict.fromkeys(failures))


# -- documents: a real export, edited, imported ---------------------------------------------


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:40]):
            found += _paths(value, (*prefix, i))
    return found


def _edited(doc: Any, path: tuple[Any, ...], how: str, value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "drop":
        del parent[last]
    elif how == "repeat" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    elif how == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = (last + 1) % len(parent)
        parent[last], parent[other] = parent[other], parent[last]
    else:
        parent[last] = value
    return doc


def fuzz_document(
    client: TestClient, method: str, path: str, doc: Any, failures: list[str]
) -> None:
    answer = client.request(method, path, json=doc)
    assert answer.status_code in (200, 201), (path, answer.text)  # the untouched one is taken
    where = _paths(doc)

    @settings(
        max_examples=IMPORT_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: Any) -> None:
        edited = copy.deepcopy(doc)
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.sampled_from(where))
            how = data.draw(st.sampled_from(("set", "set", "drop", "repeat", "swap")))
            value = data.draw(st.sampled_from(HOSTILE_JSON))
            with contextlib.suppress(KeyError, IndexError, TypeError):  # a place now gone
                edited = _edited(edited, at, how, value)
        status = client.request(method, path, json=edited).status_code
        if status >= 500:
            failures.append(f"{method} {path} {edited!r:.500} -> {status}")

    run()


def test_edited_exports_are_refused_or_imported_never_a_server_error(
    app: FastAPI, world: World
) -> None:
    rng = random.Random(7)
    client = world.player
    failures: list[str] = []
    for match_id in world.ids["match_id"][1:]:  # PEN and Black Reach: seen whole by seat A
        play([world.player, world.rival], match_id, 25, rng)
        export = client.get(f"/api/v1/matches/{match_id}/export")
        assert export.status_code == 200, export.text
        fuzz_document(client, "POST", "/api/v1/matches/import", export.json(), failures)
    for army_id in world.ids["army_id"]:
        export = client.get(f"/api/v1/armies/{army_id}/export", params={"format": "json"})
        assert export.status_code == 200, export.text
        fuzz_document(client, "POST", "/api/v1/armies/import", export.json(), failures)
    assert not failures, "\n".join(dict.fromkeys(failures))
