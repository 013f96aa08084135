"""Benchmark: the heavy 10th-edition attacks of issue 18 against the plain exact engine.

Run: ``.venv/bin/python bench/bench_combat_heavy.py [WORD...]`` (only the cases whose name
contains one of the words, when given). For each case it times
:func:`app.engine.wh40k10e.analyze` (median of a few runs) and the plain attack-by-attack
engine it replaced (``tests/engine/wh40k10e/plain.py``, bounds lifted) in this same run, checks
that both give identical distributions, and prints the time per case and the ratio. It also
times the serialisation of the answer (every probability as an exact fraction, as the API
sends it): a request costs both, and the ``TARGET`` of issue 18 is per request. Times are CPU
seconds of this process, so that neighbours on a shared machine do not count. The plain engine
is given ``PLAIN_LIMIT`` CPU seconds (a timer stops it: "> N s"). Exits non-zero when a case
(analysis + serialisation) takes more than ``TARGET`` seconds, is refused, or a distribution
differs: the exit status says whether issue 18's target is met. The cases of ``LIMITS`` are
refused on purpose (an honest limit, ADR 0005): they pass when refused within ``TARGET`` with
the "too large" message, and are also timed with the work budget lifted.

The exact chains and the answer's decimal conversions work on GMP integers (gmpy2's ``mpz``)
inside, Python integers out; the plain engine shares :mod:`app.engine.distributions` (whose
convolution powers use GMP too), so the ratios compare the chains, not the integer library.
"""

from __future__ import annotations

import os
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.combat import to_jsonable
from app.engine.errors import ProfileError
from app.engine.wh40k10e import analyze, exact, request_from_dict
from app.engine.wh40k10e.profiles import CombatRequest
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import captain, mixed_unit

TARGET = 0.25
PLAIN_LIMIT = 20
ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]
SH2 = ["Sustained Hits 2", "Lethal Hits", "Devastating Wounds"]


def w(**kw: Any) -> dict[str, Any]:
    base = {"name": "g", "kind": "ranged", "attacks": "1", "skill": 3, "strength": 4, "ap": 0}
    return {**base, "damage": "1", "abilities": [], **kw}


def _mixed(captain_fnp: int | None, models: int = 18) -> dict[str, Any]:
    """18 (or ``models``) x W3 Sv4 FNP5+, a sergeant Sv3 FNP5+ and a Captain W5 Sv2 inv4."""
    return mixed_unit(models, captain_fnp=captain_fnp)


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
    # The full scope: 30 models of more than two wounds with every ability, and a
    # unit with a sergeant of another save and an attached CHARACTER (the line split at the
    # end of the main models: _PrefixSplitChain).
    "30 x D6+3, SH1 LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "mixed: 20 x D6, SH1 LH DW, D3 vs 18 W3 + sgt + Captain": {
        "attacks": [{"models": 20, "weapon": w(attacks="D6", abilities=ALL, damage="D3")}],
        "target": mixed_unit(18),
    },
    # Feel No Pain that differs between the models (the Captain's 4+, better than his
    # bodyguard's): the pending mortal wounds past the bodyguard are followed by their first
    # counts thinned by the Captain's Feel No Pain (_TwoFeelNoPainChain's identity, on the
    # split line of _PrefixSplitChain); refused before.
    "mixed FNP: 20 x D6, SH1 LH DW, D3 vs 18 W3 + sgt + Captain FNP4+": {
        "attacks": [{"models": 20, "weapon": w(attacks="D6", abilities=ALL, damage="D3")}],
        "target": _mixed(captain_fnp=4),
    },
    "10 x D6, SH1 LH DW, D3 vs 10 x W2 FNP6+ + Captain FNP4+": {
        "attacks": [{"models": 10, "weapon": w(attacks="D6", abilities=ALL, damage="D3")}],
        "target": {
            "models": 10,
            "toughness": 4,
            "save": 3,
            "wounds": 2,
            "feel_no_pain": 6,
            "groups": [captain(4)],
        },
    },
    "20 x D6, SH2 LH DW, D3 vs 10 x W3 FNP5+": {
        "attacks": [{"models": 20, "weapon": w(attacks="D6", abilities=SH2, damage="D3")}],
        "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    # The Captain's Feel No Pain worse than his bodyguard's (here none): the same chain (its
    # identity holds either way); refused before.
    "mixed FNP: 20 x D6, SH1 LH DW, D3 vs 18 W3 FNP5+ + sgt + Captain (none)": {
        "attacks": [{"models": 20, "weapon": w(attacks="D6", abilities=ALL, damage="D3")}],
        "target": _mixed(captain_fnp=None),
    },
    # Issue 18's full scope: 30 models of D6+3 attacks with every ability and D6+1 damage
    # into 28 x W3, a sergeant and a Captain, with the Captain's Feel No Pain the same as,
    # better than or worse than his bodyguard's (the split line, the tail in closed form:
    # app/engine/wh40k10e/tail.py); refused before.
    "full scope: 30 x D6+3, SH1 LH DW, D6+1 vs 28 W3 + sgt + Captain FNP5+": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": _mixed(captain_fnp=5, models=28),
    },
    "full scope: ... + Captain FNP4+": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": _mixed(captain_fnp=4, models=28),
    },
    "full scope: ... + Captain (no FNP)": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": _mixed(captain_fnp=None, models=28),
    },
    # Sustained Hits 2 with D6+1 Devastating Wounds from 30 models of D6+3 attacks: the
    # mortal-wounds stage alone has 3,780 exact values (a JSON answer of about 7 MB); refused
    # before (2.3 s lifted: the stage's binary powering of Python integers took 1.35 s of it,
    # one GMP power now 54 ms; the line chain stepped forward).
    "SH2: 30 x D6+3, LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=SH2, damage="D6+1")}],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    # 180 wounds in one unit: 180 live attacks x 6 wound states x up to 180 packed counts;
    # refused before (0.74 s lifted), the last weapon's steps forward in narrow slots now.
    "30 x D6+3, SH1 LH DW, D6+1 vs 30 x W6 FNP5+": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 6, "feel_no_pain": 5},
    },
    # Rapid Fire 2 at half range (30 x 11 = 330 attacks) and Blast into 30 models (30 x 15 =
    # 450): refused before by a fixed cap of 300 attacks per entry (MAX_ATTACKS_PER_ENTRY).
    "RF2 half range: 30 x D6+3, SH1 LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(attacks="D6+3", abilities=[*ALL, "Rapid Fire 2"], damage="D6+1"),
            }
        ],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
        "situation": {"half_range": True},
    },
    "Blast: 30 x D6+3, SH1 LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [
            {"models": 30, "weapon": w(attacks="D6+3", abilities=[*ALL, "Blast"], damage="D6+1")}
        ],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    # Precision through the general chain: refused before by its up-front estimate (6-7
    # times what it spends), 50 ms with the bound lifted.
    "Precision: 10 x D6, SH1 LH DW, D3 vs 18 W3 + sgt + Captain": {
        "attacks": [
            {
                "models": 10,
                "weapon": w(attacks="D6", abilities=[*ALL, "Precision"], damage="D3"),
            }
        ],
        "target": _mixed(captain_fnp=5),
    },
    # Precision into a unit with a CHARACTER: a live attack goes to the CHARACTER first, so the
    # line cannot be split at the end of the main models (the general chain, pruned along
    # Precision's own line: the CHARACTER, then the bodyguard); refused before (0.75 s lifted).
    "Precision: 30 x D6, SH1 LH DW, D3 vs 28 W3 + sgt + Captain": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(attacks="D6", abilities=[*ALL, "Precision"], damage="D3"),
            }
        ],
        "target": _mixed(captain_fnp=5, models=28),
    },
    # The full scope into models of four wounds (a sergeant and a Captain beside them).
    "full scope: 30 x D6+3, SH1 LH DW, D6+1 vs 28 W4 + sgt + Captain": {
        "attacks": [{"models": 30, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")}],
        "target": {**_mixed(captain_fnp=5, models=28), "wounds": 4},
    },
    # Two weapons of the full scope into the mixed unit: the split line takes one weapon, the
    # general chain the two: still refused, a target missed (timed lifted below). With the
    # bound lifted about 0.7 s for the first weapon (its whole (position, pending) state, 4,279
    # values over 4,585 bits) and 3.2 s for the second (Horner's steps over that state, in
    # slots of about 9,000 bits); summing the stages took 0.4 s more before the GMP
    # convolution.
    "two weapons: 2 x 15 x D6+3, SH1 LH DW, D6+1 vs 28 W3 + sgt + Captain": {
        "attacks": [
            {"models": 15, "weapon": w(attacks="D6+3", abilities=ALL, damage="D6+1")},
            {
                "models": 15,
                "weapon": w(name="h", attacks="D6+3", abilities=ALL, damage="D6+1", ap=-1),
            },
        ],
        "target": _mixed(captain_fnp=5, models=28),
    },
}

# Refused on purpose (ADR 0005), honest limits: exact fractions past MAX_EXACT_DIGITS (an
# answer of tens of megabytes), whatever the time.
LIMITS: dict[str, dict[str, Any]] = {
    # Sustained Hits D3 with every ability from 30 models of D6+3 attacks: the damage's exact
    # fractions have 4,867 digits (over MAX_EXACT_DIGITS) and the answer's JSON is 39 MB;
    # with both bounds lifted about 235 ms of analysis and 200 ms of JSON (load 12-16).
    "SHD3: 30 x D6+3, LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(
                    attacks="D6+3", abilities=["Sustained Hits D3", *ALL[1:]], damage="D6+1"
                ),
            }
        ],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    # A rapid-fire battle cannon's shape (A D6+3, Rapid Fire D6+3, Blast) from 30 models at
    # half range into 30 models: up to 720 attacks, inside MAX_ATTACKS_PER_ENTRY (750); refused
    # by the work budget, and with it lifted by the digit limit (MAX_EXACT_DIGITS).
    "RF D6+3 + Blast: 30 x D6+3, SH1 LH DW, D6+1 vs 30 x W3 FNP5+": {
        "attacks": [
            {
                "models": 30,
                "weapon": w(
                    attacks="D6+3", abilities=[*ALL, "Blast", "Rapid Fire D6+3"], damage="D6+1"
                ),
            }
        ],
        "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
        "situation": {"half_range": True},
    },
}


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def _lifted(req: CombatRequest) -> None:
    """Time ``req`` with the work budget lifted (what a refusal saves), analysis and JSON,
    for at most ``PLAIN_LIMIT`` CPU seconds."""
    budget = exact.WORK_BUDGET
    exact.WORK_BUDGET = 10**15
    signal.setitimer(signal.ITIMER_VIRTUAL, PLAIN_LIMIT)  # as long as the plain engine's
    try:
        t = time.process_time()
        lifted = analyze(req)
        mine = time.process_time() - t
        t = time.process_time()
        to_jsonable(lifted)
        json = time.process_time() - t
        print(f"{'':<48} {mine * 1000:7.0f} ms {json * 1000:6.0f} ms  exact, bound lifted")
    except _Timeout:
        print(f"{'':<48} > {PLAIN_LIMIT} s with the bound lifted")
    except ProfileError as err:
        print(f"{'':<48} still refused with the bound lifted ({err.message[:50]}...)")
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        exact.WORK_BUDGET = budget


def main() -> int:
    signal.signal(signal.SIGVTALRM, _alarm)
    # CPU times, but a busy machine still slows them (shared caches): say how busy it was
    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"{'case':<48} {'ours':>10} {'+ json':>9} {'plain':>12} {'ratio':>8}")
    bad = False
    words = sys.argv[1:]

    def chosen(name: str) -> bool:
        return not words or any(word in name for word in words)

    for name, raw in CASES.items():
        if not chosen(name):
            continue
        req = request_from_dict(raw)
        times = []
        ours = None
        try:
            for _ in range(3):
                t = time.process_time()
                ours = analyze(req)
                times.append(time.process_time() - t)
        except ProfileError as err:
            print(f"{name:<48} {'refused':>10}  ({err.message[:70]}...)")
            bad = True
            _lifted(req)  # how far from the target it is
            continue
        mine = statistics.median(times)
        t = time.process_time()
        to_jsonable(ours)
        json = time.process_time() - t
        signal.setitimer(signal.ITIMER_VIRTUAL, PLAIN_LIMIT)  # CPU time, like the rest
        try:
            t = time.process_time()
            old = plain.analyze(req)
            base = time.process_time() - t
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            assert ours is not None
            if (ours.damage, ours.models_destroyed) != (old.damage, old.models_destroyed):
                print(f"{name}: DISTRIBUTIONS DIFFER")
                bad = True
            plain_text, ratio = f"{base * 1000:9.0f} ms", f"{base / mine:7.1f}x"
        except _Timeout:
            plain_text, ratio = f"> {PLAIN_LIMIT} s", "-"
        flag = "" if mine + json <= TARGET else f"  over {TARGET * 1000:.0f} ms"
        bad = bad or mine + json > TARGET
        print(
            f"{name:<48} {mine * 1000:7.0f} ms {json * 1000:6.0f} ms {plain_text:>12} {ratio:>8}"
            f"{flag}"
        )
    for name, raw in LIMITS.items():
        if not chosen(name):
            continue
        req = request_from_dict(raw)
        t = time.process_time()
        try:
            analyze(req)
        except ProfileError as err:
            spent = time.process_time() - t
            ok = spent <= TARGET and "too large to analyse exactly" in err.message
            bad = bad or not ok
            print(f"{name:<48} {'refused':>10} in {spent * 1000:.0f} ms ({err.message[:60]}...)")
        else:
            bad = True
            print(f"{name:<48} answered: move it from LIMITS to CASES")
            continue
        _lifted(req)
    print("load average at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
