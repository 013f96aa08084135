"""Action cards in the Black Reach battle (issue 16, rulings 93-97): each side's deck from the
forces file, the hand dealt and refilled from the logged dice and kept secret from the other
seat, a card played face up as a Battle Event (its text for the players) or for its
Alternative Bonus on one unit (+X to a shot, an assault or a move; the armour save a yellow
save needs [L1876-L1880], [L2147-L2151]).

The board is built here: 8 x 8 squares, no terrain. The sample Ultramarines squad (Sergeant,
Tactical squad CV 2 against infantry, heavy-weapon team) against the sample Ork mob (Nob,
two Boyz DV 4, Shootas); our own cards (the printed ones are not in the seed), a hand of 2.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.cards import draw_cards
from app.engine.black_reach.battle.commands import DrawCards
from app.engine.black_reach.battle.rules import _Out
from app.engine.black_reach.cards import BonusKind, deck_of, draw_index
from app.engine.black_reach.forces import Faction
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.errors import ProfileError
from app.engine.match.errors import Refusal
from app.engine.match.events import Envelope
from app.engine.roller import Roller

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
HEAVY = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}

BRAWL_TEXT = "Our own text: one Ork unit may move 1 square."
CARDS = [
    {"id": "um-aim", "name": "Aim", "faction": "ultramarines", "bonus": "shooting", "value": 1,
     "copies": 2},
    {"id": "um-run", "name": "Run", "faction": "ultramarines", "bonus": "movement", "value": 2},
    {"id": "um-shield", "name": "Shield", "faction": "ultramarines", "bonus": "armour_save"},
    {"id": "ork-save", "name": "Tuff", "faction": "orks", "bonus": "armour_save", "copies": 2},
    {"id": "ork-brawl", "name": "Brawl", "faction": "orks", "bonus": "assault", "value": 2,
     "event": BRAWL_TEXT},
]  # fmt: skip
UM_DECK = ("um-aim#1", "um-aim#2", "um-run#1", "um-shield#1")
ORK_DECK = ("ork-save#1", "ork-save#2", "ork-brawl#1")


def scenario(hand: int = 2) -> dict[str, Any]:
    return {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-cards",
        "name": "Test cards",
        "turns": 3,
        "hand_size": hand,
        "first_initiative": "orks",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [2, 7]}],
                "army": {"faction": "ultramarines", "tiles": [{"tile": "sample-um-squad"}]},
            },
            {
                "id": "orks",
                "deployment": [{"from": [4, 0], "to": [7, 7]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }


def setup(*, hand: int = 2, cards: bool = True, ork_save: str | None = "yellow") -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    if cards:
        catalogue["cards"] = copy.deepcopy(CARDS)
    if ork_save is not None:
        tile = next(t for t in catalogue["tiles"] if t["id"] == "sample-ork-mob")
        tile["armour_save"] = {"value": 5, "colour": ork_save}
    deployment = (
        Deploy(SERGEANT, 1, 1, "E"),
        Deploy(TACTICAL, 1, 3, "E"),
        Deploy(HEAVY, 0, 6, "E"),
        Deploy(NOB, 7, 7, "W"),
        Deploy(BOYZ1, 5, 3, "W"),
        Deploy(BOYZ2, 7, 0, "W"),
        Deploy(SHOOTAS, 6, 5, "W"),
    )
    return BattleSetup(
        scenario(hand), catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment
    )


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def draw(
    battle: BlackReachBattle, seat: str, seed: int, discard: tuple[str, ...] = ()
) -> list[Envelope]:
    """A draw is always rolled by the match (rulings 94): from a seed, never dice by hand."""
    return battle.execute_json({"type": "draw_cards", "discard": list(discard)}, seat, seed=seed)


def dealt(**kw: Any) -> BlackReachBattle:
    """Turn 1: the Ultramarines hold Aim #1 and Run, the Orks Tuff #1 and Brawl."""
    battle = BlackReachBattle.create(setup(**kw))
    new = draw(battle, A, 14)  # 4 cards: die 1 -> the 1st; then 3 left: die 5 -> the 2nd
    assert events(new, "cards_drawn")[0].roll.values == (1, 5)
    new = draw(battle, B, 28)  # 3 cards: die 1 -> the 1st; then 2 left: die 6 -> the 2nd
    assert events(new, "cards_drawn")[0].roll.values == (1, 6)
    return battle


def ordered(**kw: Any) -> BlackReachBattle:
    """Dealt, then the tokens: the Orks' 1 on the Boyz by (5, 3), 2 on the Nob; the
    Ultramarines' 1 on the Tactical squad, 2 on the Sergeant."""
    battle = dealt(**kw)
    battle.execute_json({"type": "place_orders", "orders": [order(BOYZ1, 1), order(NOB, 2)]}, B)
    battle.execute_json(
        {"type": "place_orders", "orders": [order(TACTICAL, 1), order(SERGEANT, 2)]}, A
    )
    return battle


def play(
    battle: BlackReachBattle, seat: str, card: str, unit: str | None, use: str = "bonus"
) -> list[Envelope]:
    return battle.execute_json({"type": "play_card", "card": card, "use": use, "unit": unit}, seat)


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def events(envelopes: Any, kind: str) -> list[Any]:
    return [e.event for e in envelopes if e.event.kind == kind]


# -- the data ---------------------------------------------------------------------------------


def test_the_forces_file_reads_the_cards_and_a_deck_is_every_copy_of_the_faction() -> None:
    raw = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(raw, dict)
    raw["cards"] = copy.deepcopy(CARDS)
    catalogue = catalogue_from_dict(raw)
    assert deck_of(catalogue.cards, Faction.ULTRAMARINES) == UM_DECK
    assert deck_of(catalogue.cards, Faction.ORKS) == ORK_DECK
    brawl = next(c for c in catalogue.cards if c.id == "ork-brawl")
    assert (brawl.bonus, brawl.value, brawl.copies) == (BonusKind.ASSAULT, 2, 1)
    assert brawl.event.startswith("Our own text")


def test_bad_cards_are_refused_with_every_problem() -> None:
    raw = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(raw, dict)
    raw["cards"] = [
        {"id": "x#1", "name": "Hash", "faction": "orks", "bonus": "shooting", "value": 1},
        {"id": "no-x", "name": "No X", "faction": "orks", "bonus": "assault"},
        {"id": "save-x", "name": "Save", "faction": "orks", "bonus": "armour_save", "value": 2},
        {"id": "many", "name": "Many", "faction": "orks", "bonus": "movement", "value": 1,
         "copies": 11},
        {"id": "odd", "name": "Odd", "faction": "orks", "bonus": "dance", "value": 1},
    ]  # fmt: skip
    with pytest.raises(ProfileError) as info:
        catalogue_from_dict(raw)
    text = str(info.value)
    for where in ("cards[0].id", "cards[1].value", "cards[2].value", "cards[3].copies",
                  "cards[4].bonus"):  # fmt: skip
        assert where in text


def test_a_draw_is_fair_over_every_die() -> None:
    # 4 cards, one die: faces 1-4 pick one each, 5 and 6 roll again
    picks = [draw_index(Roller.from_values([f]), 4, "t") for f in range(1, 5)]
    assert picks == [0, 1, 2, 3]
    assert draw_index(Roller.from_values([5, 6, 3]), 4, "t") == 2
    # 7 to 36 cards: two dice read as base-6 digits; 10 cards: 0..29 kept, 30..35 again
    counts = [0] * 10
    for a in range(1, 7):
        for b in range(1, 7):
            value = (a - 1) * 6 + (b - 1)
            if value < 30:
                counts[draw_index(Roller.from_values([a, b]), 10, "t")] += 1
    assert counts == [3] * 10


# -- the deal, secret -------------------------------------------------------------------------


def test_tokens_wait_for_the_deal_and_the_hand_stays_secret() -> None:
    battle = BlackReachBattle.create(setup())
    view = battle.view(A)
    assert view["cards"]["sides"]["ultramarines"] == {
        "hand": 0,
        "deck": 4,
        "discards": 0,
        "to_draw": True,
    }
    assert refused(battle, A, {"type": "place_orders", "orders": [order(TACTICAL, 1)]}).code == (
        "draw_cards_first"
    )
    assert [a["command"]["type"] for a in battle.actions(A)] == ["draw_cards"]
    seed = 987654321
    new = battle.execute_json({"type": "draw_cards"}, A, seed=seed)
    assert kinds(new) == ["cards_drawn", "hand_drawn"]
    drawn = events(new, "cards_drawn")[0]
    assert drawn.roll.seed == seed
    assert len(drawn.drawn) == 2
    hand = [c["card"] for c in battle.view(A)["cards"]["hand"]]
    assert hand == list(drawn.drawn)
    # the other seat and a spectator: counts only, never the cards nor the draw's seed
    for viewer in (B, None):
        seen = json.dumps(
            [battle.view(viewer), battle.log_json(viewer)]
            + ([battle.actions(viewer)] if viewer else [])
        )
        for card in drawn.drawn:
            assert card not in seen
        assert str(seed) not in seen
        assert battle.view(viewer)["cards"]["hand"] == []
        assert battle.view(viewer)["cards"]["sides"]["ultramarines"]["hand"] == 2
    assert refused(battle, A, {"type": "draw_cards"}).code == "no_draw"


def test_the_deal_and_the_refill_after_the_reserve_phase() -> None:
    battle = ordered()
    assert [c["card"] for c in battle.view(A)["cards"]["hand"]] == ["um-aim#1", "um-run#1"]
    assert [c["card"] for c in battle.view(B)["cards"]["hand"]] == ["ork-save#1", "ork-brawl#1"]
    for unit, seat in ((BOYZ1, B), (TACTICAL, A), (NOB, B), (SERGEANT, A)):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.view(None)["turn"]["number"] == 2
    assert battle.view(None)["cards"]["sides"]["ultramarines"]["to_draw"]
    # discard Run, draw 1: left um-aim#2 and um-shield#1, die 2 -> the 2nd
    new = draw(battle, A, 1, discard=("um-run#1",))
    assert events(new, "cards_drawn")[0].roll.values == (2,)
    assert events(new, "cards_drawn")[0].drawn == ("um-shield#1",)
    assert [c["card"] for c in battle.view(A)["cards"]["hand"]] == ["um-aim#1", "um-shield#1"]
    assert battle.view(B)["cards"]["sides"]["ultramarines"] == {
        "hand": 2,
        "deck": 1,
        "discards": 1,
        "to_draw": False,
    }
    # a card not in the hand cannot be discarded
    assert (
        refused(battle, B, {"type": "draw_cards", "discard": ["um-aim#2"]}, seed=1).code
        == "not_in_hand"
    )


def test_a_draw_refuses_dice_given_by_hand_and_rolls_nothing() -> None:
    """The deck's order is the forces file's: dice given by hand would pick the drawer's cards,
    and the other seat never sees them (rulings 94). Refused before any die, whatever the dice
    (even too few or none), on the first deal and on a refill; the seeded draw then runs."""
    battle = BlackReachBattle.create(setup())
    for dice in ([1, 5], [2, 2], [6], []):
        refusal = refused(battle, A, {"type": "draw_cards"}, dice=dice)
        assert (refusal.code, refusal.kind) == ("match_dice_only", "input")
        assert refusal.details == {"field": "dice"}
    assert battle.view(A)["cards"]["sides"]["ultramarines"]["to_draw"] is True
    assert battle.view(A)["cards"]["hand"] == []
    new = draw(battle, A, 14)
    assert events(new, "cards_drawn")[0].roll.seed == 14
    # a refill with a discard: refused by hand too, the hand unchanged
    battle = ordered()
    for unit, seat in ((BOYZ1, B), (TACTICAL, A), (NOB, B), (SERGEANT, A)):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.view(A)["cards"]["sides"]["ultramarines"]["to_draw"] is True
    refusal = refused(battle, A, {"type": "draw_cards", "discard": ["um-run#1"]}, dice=[2])
    assert refusal.code == "match_dice_only"
    assert battle.state.hands["ultramarines"] == ("um-aim#1", "um-run#1")
    assert draw(battle, A, 1, discard=("um-run#1",))


def test_an_empty_deck_takes_the_discards_back() -> None:
    battle = dealt()
    assert battle.state.decks["ultramarines"] == ("um-aim#2", "um-shield#1")
    # play both cards as events: the deck holds 2, the discards 2
    play(battle, A, "um-aim#1", None, "event")
    play(battle, A, "um-run#1", None, "event")
    assert battle.state.discards["ultramarines"] == ("um-aim#1", "um-run#1")
    # the next draws (as at two turns' starts): the 2 left, then the discards come back
    out = _Out(
        replace(battle.state, to_draw=frozenset({"ultramarines"})),
        Roller.from_values([1, 1, 2]),
    )
    draw_cards(out, DrawCards(), "ultramarines", A)
    assert out.state.hands["ultramarines"] == ("um-aim#2", "um-shield#1")
    assert out.state.decks["ultramarines"] == ()
    again = replace(out.state, to_draw=frozenset({"ultramarines"}))
    out = _Out(again, Roller.from_values([2]))
    draw_cards(out, DrawCards(("um-shield#1",)), "ultramarines", A)
    # the deck was empty: the 3 discards became the deck, die 2 -> its 2nd card
    assert out.state.hands["ultramarines"] == ("um-aim#2", "um-run#1")
    assert out.state.decks["ultramarines"] == ("um-aim#1", "um-shield#1")
    assert out.state.discards["ultramarines"] == ()


def test_a_catalogue_without_cards_or_a_scenario_without_a_hand_deals_nothing() -> None:
    for battle in (
        BlackReachBattle.create(setup(cards=False)),
        BlackReachBattle.create(setup(hand=0)),
    ):
        assert battle.view(A)["cards"]["sides"]["ultramarines"]["to_draw"] is False
        assert battle.actions(A)[0]["command"]["type"] == "place_orders"
        battle.execute_json({"type": "place_orders", "orders": [order(BOYZ1, 1), order(NOB, 2)]}, B)


# -- played face up ---------------------------------------------------------------------------


def test_a_battle_event_is_played_face_up_and_discarded() -> None:
    battle = dealt()
    new = play(battle, B, "ork-brawl#1", None, "event")
    played = events(new, "card_played")[0]
    assert (played.use, played.name, played.text) == ("event", "Brawl", BRAWL_TEXT)
    assert all(e.audience is None for e in new)
    assert battle.view(A)["cards"]["sides"]["orks"]["hand"] == 1
    assert battle.state.discards["orks"] == ("ork-brawl#1",)
    assert refused(
        battle, B, {"type": "play_card", "card": "ork-brawl#1", "use": "event"}
    ).code == ("not_in_hand")


def test_bad_card_plays_are_refused() -> None:
    battle = BlackReachBattle.create(setup())
    assert (
        refused(battle, A, {"type": "play_card", "card": "um-aim#1", "unit": TACTICAL}).code
        == "draw_cards_first"
    )
    battle = ordered()
    cases = [
        ({"card": "um-aim#2", "unit": TACTICAL}, "not_in_hand"),  # still in the deck
        ({"card": "ork-save#1", "unit": TACTICAL}, "not_in_hand"),  # the other side's
        ({"card": "um-aim#1", "unit": BOYZ1}, "not_your_unit"),
        ({"card": "um-aim#1"}, "unknown_unit"),
        ({"card": "um-aim#1", "unit": TACTICAL, "use": "sideways"}, "bad_use"),
        ({"card": "um-aim#1", "unit": TACTICAL, "use": "event"}, "no_unit"),
    ]
    for fields, code in cases:
        assert refused(battle, A, {"type": "play_card", **fields}).code == code
    # an armour-save card needs a yellow save on the unit's tile (the Ultramarines have none)
    battle_b = ordered(ork_save="green")
    assert (
        refused(battle_b, B, {"type": "play_card", "card": "ork-save#1", "unit": BOYZ1}).code
        == "no_yellow_save"
    )
    # one Alternative Bonus per unit (one per action)
    play(battle, A, "um-aim#1", TACTICAL)
    assert (
        refused(battle, A, {"type": "play_card", "card": "um-run#1", "unit": TACTICAL}).code
        == "bonus_readied"
    )


def test_a_shooting_bonus_adds_to_the_shot_and_is_then_discarded() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    before = next(
        a for a in battle.actions(A)
        if a["command"]["type"] == "shoot" and a["command"]["target"] == BOYZ1
        and not a["command"]["suppression"]
    )  # fmt: skip
    new = play(battle, A, "um-aim#1", TACTICAL)
    assert events(new, "card_played")[0].unit == TACTICAL
    assert battle.view(B)["cards"]["readied"][TACTICAL]["name"] == "Aim"
    after = next(
        a for a in battle.actions(A)
        if a["command"]["type"] == "shoot" and a["command"]["target"] == BOYZ1
        and not a["command"]["suppression"]
    )  # fmt: skip
    # CV 2 + die against DV 4: a step on 2+ (5/6); with +1 on 1+ (6/6)
    assert before["odds"]["miss"] == "1/6"
    assert after["odds"]["miss"] == "0"
    new = battle.execute_json({"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, A, dice=[1])
    shot = events(new, "unit_shot")[0]
    assert (shot.bonuses, shot.final, shot.outcome) == (1, 4, "step")
    assert kinds(new)[-1] == "card_bonus_used"
    assert battle.state.readied == {}
    assert battle.state.discards["ultramarines"] == ("um-aim#1",)


def test_a_yellow_save_is_rolled_only_with_the_card() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    # no card: the yellow save is not tried
    new = battle.execute_json({"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, A, dice=[4])
    assert "armour_save" not in kinds(new)
    assert events(new, "steps_taken")[0].steps == 1


def test_the_armour_save_card_lets_the_yellow_save_roll() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    play(battle, B, "ork-save#1", BOYZ1)  # played before the shot's dice
    new = battle.execute_json({"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, A, dice=[4, 5])
    assert kinds(new)[-3:] == ["unit_shot", "card_bonus_used", "armour_save"]
    save = events(new, "armour_save")[0]
    assert (save.value, save.result, save.saved) == (5, 5, True)
    assert "steps_taken" not in kinds(new)
    assert battle.state.readied == {}
    assert battle.state.discards["orks"] == ("ork-save#1",)


def test_an_assault_bonus_counts_for_the_defender() -> None:
    battle = ordered(ork_save=None)
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    play(battle, B, "ork-brawl#1", BOYZ1)
    # the Tactical squad (CV 2, Assaut +1) moves next to the Boyz (CV 2, Assaut +2) at (5, 3)
    new = battle.execute_json(
        {
            "type": "assault",
            "unit": TACTICAL,
            "target": BOYZ1,
            "path": [{"x": 2, "y": 3}, {"x": 3, "y": 3}, {"x": 4, "y": 3}],
        },
        A,
        dice=[6, 1, 3, 3],
    )
    fight = events(new, "assault_resolved")[0]
    # attacker 6 + 2 + 1 = 9; defender best 3 + 2 + 2 + the card's 2 = 9: a tie
    assert (fight.attacker_total, fight.defender_total, fight.outcome) == (9, 9, "tie")
    assert "card_bonus_used" in kinds(new)
    assert battle.state.readied == {}


def test_a_movement_bonus_adds_squares_to_one_move() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    far = [{"x": x, "y": y} for x, y in ((2, 4), (3, 5), (4, 6), (5, 7), (6, 7))]  # 5 squares
    assert refused(battle, A, {"type": "move", "unit": TACTICAL, "path": far}).code == (
        "illegal_move"
    )

    def reach() -> list[list[int]]:
        return next(
            a["to"] for a in battle.actions(A)
            if a["command"]["type"] == "move" and a["command"]["unit"] == TACTICAL
        )  # fmt: skip

    assert [6, 7] not in reach()  # MV 4
    play(battle, A, "um-run#1", TACTICAL)
    assert [6, 7] in reach()  # the squares offered count the card
    new = battle.execute_json({"type": "move", "unit": TACTICAL, "path": far}, A)
    assert kinds(new) == ["order_revealed", "unit_moved", "card_bonus_used"]
    assert battle.state.readied == {}
    assert battle.state.discards["ultramarines"] == ("um-run#1",)


def test_no_shooting_or_assault_bonus_in_the_reserve_phase_and_unused_ones_end_with_the_turn() -> (
    None
):
    battle = ordered()
    play(battle, A, "um-aim#1", SERGEANT)
    for unit, seat in ((BOYZ1, B), (TACTICAL, A), (NOB, B), (SERGEANT, A)):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    assert battle.view(None)["turn"]["phase"] == "reserve"
    assert (
        refused(battle, B, {"type": "play_card", "card": "ork-brawl#1", "unit": SHOOTAS}).code
        == "immutable_rule"
    )
    play(battle, A, "um-run#1", HEAVY)  # a movement bonus is fine
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    # the Sergeant never shot: its Aim is discarded with the turn, as the unused Run
    assert battle.state.readied == {}
    assert sorted(battle.state.discards["ultramarines"]) == ["um-aim#1", "um-run#1"]


def test_a_log_with_cards_replays_to_the_same_state() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    play(battle, B, "ork-save#1", BOYZ1)
    battle.execute_json({"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, A, dice=[4, 2])
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.view(A) == battle.view(A)
