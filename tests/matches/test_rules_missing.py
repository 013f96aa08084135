"""Issue 12 item 7, the rules the tracker lacked, through the match API: Stealth and Heavy
filled in from the unit and the state, Aircraft in the Fight phase, Lone Operative, Firing Deck,
Plunging Fire, Fire Overwatch prompts, the end-of-turn coherency prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import Game, Player, setup_battle
from tests.matches.test_web import state


def snikrot() -> Roster:
    return Roster(
        "Orks",
        "War Horde",
        BattleSize.STRIKE_FORCE,
        (RosterUnit("Warboss", warlord=True), RosterUnit("Boss Snikrot"), RosterUnit("Boyz", 10)),
        name="Sneaky",
    )


def preview(p: Player, attacker: str, target: str, picks: list[tuple[str, int]]) -> Any:
    r = p.client.post(
        f"{p.base}/combat/preview",
        json={
            "attacker": attacker,
            "target": target,
            "weapons": [{"unit": attacker, "weapon": w, "models": n} for w, n in picks],
        },
    )
    assert r.status_code == 200, r.text
    return r.json()["request"]["situation"]


def test_stealth_is_filled_in_from_the_target(new_game: Callable[..., Game]) -> None:
    """[L1594-1596]: every model of the Kommandos has Stealth: -1 to hit their ranged
    attackers, without the player ticking it; the Boyz have none."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b3", "b2"]})
    assert preview(g.a, "a2", "b3", [("Bolt Rifle", 5)]).get("stealth") is True
    assert "stealth" not in preview(g.a, "a2", "b2", [("Bolt Rifle", 5)])


def test_heavy_for_a_unit_that_did_not_move(new_game: Callable[..., Game]) -> None:
    """[L2227-2233], [L948-950]: a unit that did not move at all in its Movement phase
    Remained Stationary (Heavy +1), without an explicit "Remain Stationary"; one that moved
    did not."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a7", "mode": "normal"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    g.a.send({"type": "shoot", "unit": "a7", "targets": ["b2"]})
    assert preview(g.a, "a2", "b2", [("Bolt Rifle", 5)]).get("remained_stationary") is True
    assert "remained_stationary" not in preview(g.a, "a7", "b2", [("Boltgun", 9)])


def test_a_lone_operative_is_shot_only_from_within_12_inches_stated(
    new_game: Callable[..., Game],
) -> None:
    """[L1476-1478]: Boss Snikrot (Lone Operative, not Attached) is refused as a target until
    the shooting player states its models are within 12"."""
    g = new_game(b_roster=snikrot())
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    r = g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]}, status=409)
    assert r["refusal"] == "lone_operative", r
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"], "within_12": True})
    assert preview(g.a, "a2", "b2", [("Bolt Rifle", 5)]).get("stealth") is True


def test_plunging_fire_improves_the_ap_of_ranged_attacks_when_stated(
    new_game: Callable[..., Game],
) -> None:
    """[L3890-3898]: a shooter 6" up in Ruins at a target at ground level improves its AP by
    1; the player states it (plunging_fire), never in the Fight phase."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    body = {
        "attacker": "a2",
        "target": "b2",
        "weapons": [{"unit": "a2", "weapon": "Bolt Rifle", "models": 5}],
    }
    plain = g.a.client.post(f"{g.a.base}/combat/preview", json=body)
    assert plain.status_code == 200, plain.text
    r = g.a.client.post(
        f"{g.a.base}/combat/preview", json={**body, "situation": {"plunging_fire": True}}
    )
    assert r.status_code == 200, r.text
    before = plain.json()["request"]["attacks"][0]["weapon"]["ap"]
    assert r.json()["request"]["attacks"][0]["weapon"]["ap"] == before - 1
    assert "plunging_fire" not in r.json()["request"]["situation"]
    bad = g.a.client.post(
        f"{g.a.base}/combat/preview", json={**body, "situation": {"plunging_fire": "yes"}}
    )
    assert bad.status_code == 422, bad.text


def test_firing_deck_lends_the_transport_its_passengers_weapons(
    new_game: Callable[..., Game],
) -> None:
    """[L1292-1308]: the Rhino (Firing Deck 2) shoots with up to 2 embarked models' ranged
    weapons, named in the attack; not 3, and the Tactical Squad then counts as having shot."""
    g = new_game()
    setup_battle(g, {"A": {"embarked": [["a7", "a6"]]}})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a6", "targets": ["b2"]})

    def attack(models: int, do: str = "preview") -> Any:
        body: dict[str, Any] = {
            "attacker": "a6",
            "target": "b2",
            "weapons": [{"unit": "a7", "weapon": "Boltgun", "models": models}],
        }
        if do == "resolve":
            body["expected_version"] = g.a.version
        return g.a.client.post(f"{g.a.base}/combat/{do}", json=body)

    too_many = attack(3)
    assert too_many.status_code == 422, too_many.text
    assert "Firing Deck 2" in too_many.text
    assert attack(2).status_code == 200, attack(2).text
    rolled = attack(2, "resolve")
    assert rolled.status_code == 200, rolled.text
    g.a.get()
    tac = next(u for u in g.a.view()["units"] if u["id"] == "a7")
    assert tac["shot"] is True
    assert attack(1).status_code == 422  # the deck is spent this phase


def test_fire_overwatch_when_an_enemy_unit_starts_a_move(new_game: Callable[..., Game]) -> None:
    """[L3422-3444]: "starts or ends" a move. A announces the Tactical Squad's Normal move
    (``start_move``); B fires Overwatch at it before it moves; the move then follows."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})  # A's Movement phase
    early = {"type": "use_stratagem", "stratagem": "fire_overwatch", "unit": "b2", "enemy": "a7"}
    assert g.b.send(early, status=409)["refusal"] == "stratagem_no_trigger"
    g.a.send({"type": "start_move", "unit": "a7", "mode": "normal"})
    line = state(g.a.client.get(f"/matches/{g.match_id}")).css_first("#timeline li").text()
    assert "start a move" in line, line
    assert "Normal move" in line, line
    g.b.send(early)
    assert g.b.last["view"]["players"]["B"]["cp"] == 0
    assert "overwatch" in next(u for u in g.b.view()["units"] if u["id"] == "b2")["effects"]
