"""Benchmark: the heavy 10th-edition attacks of issue 18 against the plain exact engine.

Run: ``.venv/bin/python bench/bench_combat_heavy.py``. For each case it times
:func:`app.engine.wh40k10e.analyze` (median of a few runs) and the plain attack-by-attack
engine it replaced (``tests/engine/wh40k10e/plain.py``, bounds lifted) in this same run, checks
that both give identical distributions, and prints the time per case and the ratio. The plain
engine is given ``PLAIN_LIMIT`` seconds (an alarm stops it: "> N s"). Exits non-zero when a
case takes more than ``TARGET`` seconds or a distribution differs.
"""

from __future__ import annotations

import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.errors import ProfileError
from app.engine.wh40k10e import analyze, request_from_dict
from tests.engine.wh40k10e import plain

TARGET = 0.25
PLAIN_LIMIT = 20
ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def w(**kw: Any) -> dict[str, Any]:
    base = {"name": "g", "kind": "ranged", "attacks": "1", "skill": 3, "strength": 4, "ap": 0}
    return {**base, "damage": "1", "abilities": [], **kw}


CASES: dict[str, dict[str, Any]] = {
    "issue: 20 x D6, SH1 LH DW, D3 vs 20 x W3 FNP5+": {
        "attacks": [{"models": 20, "weapon": w(attacks="D6", abilities=ALL, damage="D3")}],
        "target": {"models": 20, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "10 x D6+3, SH1 LH DW, D6+1 vs 10 x W3 FNP5+": {
        "attacks": [{"models": 10, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "30 x D6+3, SH1 LH, D6+1 vs 30 x W2 FNP6+": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(attacks="D6+3", abilities=ALL[:2], damage="D6+1", ap=-1),
            }
        ],
        "target": {"models": 30, "toughness": 4, "save": 3, "wounds": 2, "feel_no_pain": 6},
    },
    "30 x D6+3, SH1 LH, D6+1 vs one W30 model": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(attacks="D6+3", abilities=ALL[:2], damage="D6+1", ap=-2, strength=6),
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    },
    "30 x D6+3, SH1 LH DW, D6+1 vs one W30 model": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1", ap=-2, strength=6),
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    },
}


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def main() -> int:
    signal.signal(signal.SIGALRM, _alarm)
    print(f"{'case':<48} {'ours':>10} {'plain':>12} {'ratio':>8}")
    bad = False
    for name, raw in CASES.items():
        req = request_from_dict(raw)
        times = []
        ours = None
        try:
            for _ in range(3):
                t = time.perf_counter()
                ours = analyze(req)
                times.append(time.perf_counter() - t)
        except ProfileError as err:
            print(f"{name:<48} {'refused':>10}  ({err.message[:60]}...)")
            bad = True
            continue
        mine = statistics.median(times)
        signal.alarm(PLAIN_LIMIT)
        try:
            t = time.perf_counter()
            old = plain.analyze(req)
            base = time.perf_counter() - t
            signal.alarm(0)
            assert ours is not None
            if (ours.damage, ours.models_destroyed) != (old.damage, old.models_destroyed):
                print(f"{name}: DISTRIBUTIONS DIFFER")
                bad = True
            plain_text, ratio = f"{base * 1000:9.0f} ms", f"{base / mine:7.1f}x"
        except _Timeout:
            plain_text, ratio = f"> {PLAIN_LIMIT} s", "-"
        flag = "" if mine <= TARGET else f"  over {TARGET * 1000:.0f} ms"
        bad = bad or mine > TARGET
        print(f"{name:<48} {mine * 1000:7.0f} ms {plain_text:>12} {ratio:>8}{flag}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
