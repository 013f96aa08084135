"""The validator's caches (issue 17: a 2,000-point list in well under 0.2 ms) change no result:
what it keeps per datasheet, per catalogue and per unit size gives the same violations, in the
same order, as a validation with every cache cold; its shortcuts agree with the general
computations they skip."""

from __future__ import annotations

import gc
import importlib
import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    DetachmentVariant,
    PointsTier,
    Roster,
    RosterError,
    RosterUnit,
    dump_catalogues,
    load_catalogues,
    validate,
)
from tests.engine.wh40k10e.army.conftest import build_catalogue
from tests.engine.wh40k10e.army.test_choice_keywords import catalogue as aces
from tests.engine.wh40k10e.army.test_detachment_variants import ALPHA, SIEGE, with_tank

V = importlib.import_module("app.engine.wh40k10e.army.validate")
STARTER = Path(__file__).resolve().parents[4] / "data" / "catalog" / "starter-wh40k10e.json"


def _cold() -> None:
    for cache in (V._SHEET_KEYS, V._UNIT_RESULTS, V._SHARED, V._READINGS):
        cache.clear()


def _random_rosters(catalogue: Catalogue, rng: random.Random, count: int) -> list[Roster]:
    rosters = []
    enhancements = [e.name for d in catalogue.detachments for e in d.enhancements]
    for _ in range(count):
        faction = rng.choice(catalogue.factions)
        sheets = catalogue.datasheets_of(faction) or catalogue.datasheets
        detachments = catalogue.detachments_of(faction) or catalogue.detachments
        units = []
        for _ in range(rng.randint(0, 12)):
            sheet = rng.choice(sheets) if rng.random() > 0.05 else rng.choice(catalogue.datasheets)
            names = [c.name for o in sheet.wargear_options for c in o.choices]
            names += [m.name for m in sheet.models] + ["No such gun"]
            wargear = {rng.choice(names): rng.randint(0, 4) for _ in range(rng.choice([0, 1, 3]))}
            try:
                units.append(
                    RosterUnit(
                        sheet.name if rng.random() > 0.03 else sheet.name + "z",
                        models=rng.choice([None, sheet.min_models, sheet.max_models, 7]),
                        wargear=wargear,
                        enhancements=tuple(
                            rng.sample(
                                enhancements, min(len(enhancements), rng.choice([0, 0, 1, 2]))
                            )
                        ),
                        warlord=rng.random() < 0.15,
                        attached_to=rng.randint(0, 12) if rng.random() < 0.2 else None,
                        label=rng.choice(["", "Second"]),
                    )
                )
            except RosterError:
                continue
        detachment = rng.choice(detachments).name if rng.random() > 0.05 else "Nowhere"
        rosters.append(Roster(faction, detachment, rng.choice(list(BattleSize)), tuple(units)))
    return rosters


def _catalogues() -> list[Catalogue]:
    """The starter catalogue, the army tests' own with a tank that each Detachment changes,
    and the choice-keyword one (a choice that makes a unit a Character)."""
    starter = list(load_catalogues(json.loads(STARTER.read_text(encoding="utf-8"))))
    tank = with_tank(
        build_catalogue(),
        variants=(
            DetachmentVariant(SIEGE, keywords=("Vehicle", "Battleline"), max_in_roster=6),
            DetachmentVariant(ALPHA, points=(PointsTier(1, 1, 170),)),
        ),
    )
    excluded = with_tank(build_catalogue(), variants=(DetachmentVariant(ALPHA, available=False),))
    return [*starter, tank, excluded, aces()]


def test_warm_caches_give_the_results_of_cold_ones() -> None:
    rng = random.Random(17)
    found = 0
    for catalogue in _catalogues():
        document = dump_catalogues([catalogue])
        rosters = _random_rosters(catalogue, rng, 120)
        warm = [validate(r, catalogue) for r in rosters for _ in range(2)][1::2]
        for roster, seen in zip(rosters, warm, strict=True):
            _cold()
            cold = validate(roster, load_catalogues(document)[0])
            assert cold == seen
            assert cold.as_dict() == seen.as_dict()
            assert [str(v.condition) for v in cold.violations] == [
                str(v.condition) for v in seen.violations
            ]
            found += len(seen.violations)
    assert found > 1000


_slots = st.lists(
    st.tuples(
        st.just("option"),
        st.integers(0, 6),
        st.dictionaries(st.sampled_from("abcde"), st.integers(0, 6), min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(slots=_slots, taken=st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 8)))
def test_the_plain_fit_shortcut_agrees_with_the_flow(
    slots: list[tuple[str, int, dict[str, int]]], taken: dict[str, int]
) -> None:
    if V._fits(taken, slots, V._only_option(slots)):
        assert V._overcommitted(taken, slots) is None


@given(
    rows=st.lists(
        st.tuples(st.frozensets(st.sampled_from(["a", "b", "c", "d"])), st.integers(0, 300)),
        max_size=8,
    ),
    asked=st.sampled_from(["a", "b", "c", "d", "e"]),
)
def test_the_keyword_tallies_are_the_dicts_they_replace(
    rows: list[tuple[frozenset[str], int]], asked: str
) -> None:
    units: dict[str, int] = {}
    points: dict[str, int] = {}
    for keys, p in rows:
        for k in keys:
            units[k] = units.get(k, 0) + 1
            points[k] = points.get(k, 0) + p
    for tally, eager in (
        (V._Tally(rows, points=False), units),
        (V._Tally(rows, points=True), points),
    ):
        assert tally.get(asked, 0) == eager.get(asked, 0)
        assert (asked in tally) == (asked in eager)
        assert dict(tally) == eager
        assert len(tally) == len(eager)


def test_a_catalogue_s_readings_leave_with_it() -> None:
    document = json.loads(STARTER.read_text(encoding="utf-8"))
    catalogue = load_catalogues(document)[0]
    roster = _random_rosters(catalogue, random.Random(3), 1)[0]
    validate(roster, catalogue)
    key = id(catalogue)
    assert key in V._READINGS
    del catalogue
    gc.collect()
    assert key not in V._READINGS
