"""The roster text's unit line reads a long line in time linear in its length (issue 17
review): a name that may end anywhere before a run of spaces made the regex try the run once
per place, so a 200 kB paste of ``a<490 spaces>b`` lines cost seconds of a worker."""

from __future__ import annotations

import time

from app.armies import formats


def _cpu(lines: list[str]) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        formats.parse_roster(lines)
        best = min(best, time.process_time() - start)
    return best


def test_a_run_of_spaces_costs_its_length_not_its_square() -> None:
    short = ["a" + " " * 120 + "b"] * 40
    long = ["a" + " " * 480 + "b"] * 40
    ratio = _cpu(long) / max(_cpu(short), 1e-6)
    # 4 times the spaces: about 4 times the work when linear, 16 when quadratic
    assert ratio < 8, ratio


def test_names_around_spaces_and_tags_read_as_before() -> None:
    read = formats.parse_roster(
        [
            "Captain   [80 pts]",
            "2x   Plague Lord [Crucible]  [ 100 pts ]: Bolt pistol",
            "Tactical Squad [Legends] [90 pts]",
        ]
    )
    assert [(u.name, u.count, u.points) for u in read.units] == [
        ("Captain", None, 80),
        ("Plague Lord [Crucible]", 2, 100),
        ("Tactical Squad [Legends]", None, 90),
    ]
