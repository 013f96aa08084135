"""Helpers for the tests that drive a match with raw commands and read its event streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from tests.matches.test_events import parse


def next_move(
    view: dict[str, Any], roll_off: list[int] | None = None
) -> tuple[str, dict[str, Any], list[int] | None] | None:
    """What the players do next (as bench/_support.next_move, without the result): the
    roll-offs won by the dice ``roll_off`` (A's [6, 1] by default), then the set-up and the
    battle, every phase ended at once; None once the battle is over."""
    stage = view["stage"]
    if stage == "roll_off":
        return "A", {"type": "roll_off"}, roll_off or [6, 1]
    if stage == "place_objectives":
        return view["next_seat"], {"type": "place_objective"}, None
    if stage == "declare_formations":
        seat = "A" if not view["players"]["A"]["formation_submitted"] else "B"
        return seat, {"type": "declare_formations", "formation": {}}, None
    if stage == "deploy":
        seat = view["next_seat"]
        unit = next(
            u["id"]
            for u in view["units"]
            if u["owner"] == seat and u["location"] == "to_deploy" and u["bodyguard"] is None
        )
        return seat, {"type": "deploy_unit", "unit": unit}, None
    if stage == "scouts":
        return view["next_seat"], {"type": "end_scouts"}, None
    if stage == "battle":
        if view["reaction_window"]:
            return view["reaction_window"], {"type": "pass"}, None
        pending = view["pending"]["battle_shock_tests"]
        if pending:
            return view["active"], {"type": "battle_shock_test", "unit": pending[0]}, [6, 6]
        return view["active"], {"type": "end_phase"}, None
    return None


async def collect(body: AsyncIterator[str], out: list[dict[str, Any]]) -> None:
    """Appends every message of an event stream's ``body`` to ``out``."""
    async for chunk in body:
        out.extend(parse(chunk))


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the streams did not get there in time"
        await asyncio.sleep(0.01)


def last_version(messages: list[dict[str, Any]]) -> int:
    versions = [m["id"] for m in messages if m["event"] == "version"]
    return versions[-1] if versions else -1
