"""An Action card's shooting bonus on an Alternative Shooting Action (issue 16, rulings 108):
"+X to a Shooting Action or an Alternative Shooting Action" [L2132-L2154]. The bonus
readied on the unit adds to each attack roll of its template (Tir Direct / Indirect, a
grenade), its flamer, its sniper die and Da Krunch's dice, then is discarded; an
Alternative Shooting Action that rolls no attack leaves it waiting.

Two boards of the other tests: test_heavy_vehicles' (the Orks' Shootas given Tir Direct "B"
and a flamer "F"; the Boyz on (7, 0) and (7, 1)) and the sample one of test_sniper. Each
faction's deck holds one card of our own, a shooting bonus of +2; a hand of 1.
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.black_reach.battle.events import CardBonusUsed, UnitShot, UnitSniped
from tests.engine.black_reach.battle import test_heavy_vehicles as heavy
from tests.engine.black_reach.battle import test_psykers as psykers
from tests.engine.black_reach.battle import test_sniper as sniper

A, B = "A", "B"
CARDS = [
    {"id": "um-aim", "name": "Aim", "faction": "ultramarines", "bonus": "shooting", "value": 2},
    {"id": "ork-aim", "name": "Dakka", "faction": "orks", "bonus": "shooting", "value": 2},
]
FLAMER = {"id": "F", "cells": [[0, -1], [0, -2]],
          "cv": {"infantry": 3, "light_vehicle": 2, "heavy_vehicle": 1}}  # fmt: skip


def with_cards(setup: BattleSetup) -> BlackReachBattle:
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    catalogue["cards"] = copy.deepcopy(CARDS)
    scenario = copy.deepcopy(setup.scenario)
    assert isinstance(scenario, dict)
    scenario["hand_size"] = 1
    battle = BlackReachBattle.create(
        BattleSetup(scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )
    for seat in (A, B):  # one card in each deck: any seed draws it
        battle.execute_json({"type": "draw_cards"}, seat, seed=1)
    return battle


def gunners(**kw: Any) -> BlackReachBattle:
    base = heavy.setup(**kw)
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    shootas = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-shootas")
    shootas["faces"][0]["abilities"] += [
        {"id": "direct_fire", "param": "B"},
        {"id": "flamer", "param": "F"},
    ]
    catalogue["templates"].append(copy.deepcopy(FLAMER))
    battle = with_cards(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    orders = [heavy.order(heavy.SHOOTAS, 1), heavy.order(heavy.NOB, 2)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    battle.execute_json({"type": "place_orders", "orders": [heavy.order(heavy.TANK, 1)]}, A)
    return battle


def ready(battle: BlackReachBattle, seat: str, card: str, unit: str) -> None:
    battle.execute_json({"type": "play_card", "card": card, "use": "bonus", "unit": unit}, seat)
    assert battle.state.readied[unit] == card


def shots(envelopes: Any) -> list[tuple[str, int, str]]:
    return [
        (e.event.target, e.event.final, e.event.outcome)
        for e in envelopes
        if isinstance(e.event, UnitShot)
    ]


def used(envelopes: Any) -> list[tuple[str, str]]:
    return [(e.event.unit, e.event.card) for e in envelopes if isinstance(e.event, CardBonusUsed)]


def test_a_shooting_bonus_adds_to_each_attack_of_a_template_then_is_discarded() -> None:
    battle = gunners()
    ready(battle, B, "ork-aim#1", heavy.SHOOTAS)
    fire = {"type": "template_fire", "unit": heavy.SHOOTAS, "x": 7, "y": 1, "facing": "N"}
    new = battle.execute_json(fire, B, dice=[1, 1])
    # each Boyz: 1 + CV 3 + the card's 2 = 6 (4 without it)
    assert shots(new) == [(heavy.BOYZ1, 6, "step"), (heavy.BOYZ2, 6, "step")]
    shot = next(e.event for e in new if isinstance(e.event, UnitShot))
    assert shot.modified_cv == 5
    assert used(new) == [(heavy.SHOOTAS, "ork-aim#1")]
    assert heavy.SHOOTAS not in battle.state.readied
    assert battle.state.discards["orks"] == ("ork-aim#1",)


def test_a_template_on_nobody_leaves_the_card_waiting() -> None:
    battle = gunners()
    ready(battle, B, "ork-aim#1", heavy.SHOOTAS)
    fire = {"type": "template_fire", "unit": heavy.SHOOTAS, "x": 4, "y": 6, "facing": "N"}
    new = battle.execute_json(fire, B)
    assert shots(new) == []
    assert used(new) == []
    assert battle.state.readied[heavy.SHOOTAS] == "ork-aim#1"


def test_a_shooting_bonus_adds_to_the_flamer() -> None:
    battle = gunners(nob=(5, 5))
    ready(battle, B, "ork-aim#1", heavy.SHOOTAS)
    # the flame north from (5, 7): (5, 6) and (5, 5), the Ork Nob's square (friend or foe):
    # 1 + CV 3 + the card's 2 = 6 (4 without it)
    new = battle.execute_json({"type": "flame", "unit": heavy.SHOOTAS, "facing": "N"}, B, dice=[1])
    assert [(t, f) for t, f, _ in shots(new)] == [(heavy.NOB, 6)]
    assert used(new) == [(heavy.SHOOTAS, "ork-aim#1")]


def test_a_shooting_bonus_adds_to_the_sniper_die_and_to_its_odds() -> None:
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    bolter = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    bolter["faces"][0].setdefault("abilities", []).append({"id": "sniper"})
    battle = with_cards(
        BattleSetup(
            setup.scenario, catalogue, sniper._open(setup.boards), setup.seats, setup.deployment
        )
    )
    orks = [sniper.order(u, n) for n, u in enumerate(ORKS, start=1)]
    battle.execute_json({"type": "place_orders", "orders": orks}, B)
    um = [sniper.order(u, n) for n, u in enumerate(UMS, start=1)]
    battle.execute_json({"type": "place_orders", "orders": um}, A)
    steps = [{"x": 4, "y": y} for y in (9, 8, 7, 6)]
    battle.execute_json({"type": "move", "unit": sniper.BOYZ1, "path": steps}, B)
    before = snipe_odds(battle)
    ready(battle, A, "um-aim#1", sniper.BOLTER)
    after = snipe_odds(battle)
    # 1 die + 2: never "nothing" (1 or less), "suppressed" only on a 1 (3), a step on 2-3
    assert (before["nothing"], after["nothing"]) == ("1/6", "0")
    assert after["suppressed"] == "1/6"
    new = battle.execute_json(sniper.snipe(), A, dice=[2])
    shot = next(e.event for e in new if isinstance(e.event, UnitSniped))
    assert (shot.result, shot.effect) == (4, "step")  # 2 alone: a Suppressed marker
    assert used(new) == [(sniper.BOLTER, "um-aim#1")]


ORKS = (sniper.BOYZ1, sniper.BOYZ2, sniper.NOB, sniper.SHOOTAS)
UMS = (sniper.BOLTER, sniper.TACTICAL, sniper.SERGEANT)


def snipe_odds(battle: BlackReachBattle) -> dict[str, str]:
    entry = next(
        a
        for a in battle.actions(A)
        if a["command"]["type"] == "snipe" and a["command"]["target"] == sniper.BOYZ1
    )
    odds = entry["odds"]
    assert isinstance(odds, dict)
    return odds


def test_a_shooting_bonus_adds_to_da_krunch_not_to_the_perils_test() -> None:
    battle = with_cards(psykers.setup())
    battle.execute_json({"type": "place_orders", "orders": psykers.ORK_ORDERS}, B)
    battle.execute_json({"type": "place_orders", "orders": psykers.UM_ORDERS}, A)
    battle.execute_json({"type": "hold", "unit": psykers.SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": psykers.LIBRARIAN}, A)
    ready(battle, B, "ork-aim#1", psykers.WEIRDBOY)
    # Perils 6 + 2 - 4 = 4 as without a card; the Librarian: 6 + 5 + the card's 2 - 4 = 9
    # (7 without it); the tactical squad: 1 + 1 + 2 - 4 = 0, a miss
    new = battle.execute_json(psykers.KRUNCH, B, dice=[6, 6, 5, 1, 1])
    assert shots(new) == [(psykers.LIBRARIAN, 9, "step"), (psykers.TACTICAL, 0, "miss")]
    assert used(new) == [(psykers.WEIRDBOY, "ork-aim#1")]
