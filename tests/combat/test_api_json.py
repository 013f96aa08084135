"""Issue 18: the combat API writes its answers with orjson (app/core/fastjson.py), several times
faster than the standard library's encoder on the megabytes of a heavy answer, and byte for
byte what the standard library wrote before (``JSONResponse``: compact, UTF-8, no NaN)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.combat.test_api import (
    ANALYZE,
    BOLT_RIFLES,
    PEN_ANALYZE,
    PEN_BOLTERS,
    PEN_LASCANNON,
    PEN_RESOLVE,
    RESOLVE,
    body,
)
from tests.combat.test_black_reach_api import ANALYZE as BR_ANALYZE
from tests.combat.test_black_reach_api import ISSUE_EXAMPLE
from tests.combat.test_black_reach_api import RESOLVE as BR_RESOLVE


def _stdlib(data: Any) -> bytes:
    """What ``starlette.responses.JSONResponse`` renders."""
    return json.dumps(
        data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


HEAVY = body(**{"attacks.0.models": 20, "attacks.0.weapon.attacks": "D6+3"})
HEAVY["attacks"][0]["weapon"]["abilities"] = ["Sustained Hits 1", "Lethal Hits"]
HEAVY["attacks"][0]["weapon"]["damage"] = "D6+1"
HEAVY["target"].update(models=10, wounds=3, feel_no_pain=5)

CASES = [
    (ANALYZE, BOLT_RIFLES),
    (ANALYZE, HEAVY),
    (RESOLVE, {**BOLT_RIFLES, "seed": 7}),
    (PEN_ANALYZE, PEN_BOLTERS),
    (PEN_ANALYZE, PEN_LASCANNON),
    (PEN_RESOLVE, {**PEN_LASCANNON, "seed": 99}),
    (BR_ANALYZE, ISSUE_EXAMPLE),
    (BR_RESOLVE, {**ISSUE_EXAMPLE, "seed": 42}),
]


@pytest.mark.parametrize(("url", "request_body"), CASES)
def test_answers_are_the_standard_librarys_bytes(client, url: str, request_body: dict) -> None:
    response = client.post(url, json=request_body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    # the floats (approximations, means) and exact fractions as the standard library wrote
    # them: parsing the answer and writing it again with json.dumps gives the same bytes
    assert response.content == _stdlib(response.json())
    assert int(response.headers["content-length"]) == len(response.content)


def test_the_route_uses_the_fast_encoder(client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the standard library's ``json.dumps`` (the 15 ms of a 6.7 MB answer)."""
    from starlette.responses import JSONResponse

    def refuse(self: JSONResponse, content: Any) -> bytes:
        raise AssertionError("the standard library encoder wrote a combat answer")

    monkeypatch.setattr(JSONResponse, "render", refuse)
    assert client.post(ANALYZE, json=HEAVY).status_code == 200
    assert client.post(RESOLVE, json={**BOLT_RIFLES, "seed": 3}).status_code == 200
