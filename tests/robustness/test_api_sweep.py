"""The OpenAPI sweep of tests/test_api_fuzz.py, aimed at the routes of one match, for the match
of each rule system: the requests name a 10th-edition, a PEN and a Black Reach match that exist
(tests/test_api_fuzz.py names a 10th-edition match only), so that each system's own answers
(commands, hot seat, content, combat preview) get generated bodies, valid and invalid. No
answer is a server error.

schemathesis (a dev dependency) turns the OpenAPI into hypothesis strategies; deterministic
(``derandomize``) and bounded: ``SWEEP_EXAMPLES`` requests per operation (default 5). Live
event streams are left to tests/test_api_fuzz.py (with ids that do not exist).
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode

from tests.robustness.conftest import World
from tests.test_api_fuzz import _operations

EXAMPLES = int(os.environ.get("SWEEP_EXAMPLES", "5"))


def _sweep(operation: Any, headers: dict[str, str], ids: dict[str, list[Any]]) -> list[str]:
    failures: list[str] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
        | operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
        data=st.data(),
    )
    def run(case: Any, data: Any) -> None:
        for name in list(case.path_parameters or {}):
            if name in ids:
                case.path_parameters[name] = data.draw(st.sampled_from(ids[name]))
        try:
            response = case.call(headers=headers)
        except Exception as exc:  # the app raised: a 500
            failures.append(f"{case.method} {case.formatted_path} raised {exc!r:.300}")
            return
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.formatted_path} {case.body!r:.300} -> "
                f"{response.status_code}: {response.text[:300]}"
            )

    run()
    return failures


def test_each_systems_match_routes_get_no_server_error(app: FastAPI, world: World) -> None:
    headers = {"Authorization": world.player.headers["Authorization"]}
    ids = {**world.ids, "seat": ["A", "B"]}
    operations = [
        op
        for op in _operations(app)
        if "{match_id}" in op.full_path and not op.full_path.endswith("/events")
    ]
    assert len(operations) >= 15, [op.full_path for op in operations]
    failures: list[str] = []
    for operation in operations:
        failures += _sweep(operation, headers, ids)
    assert not failures, "\n".join(dict.fromkeys(failures))
