"""Action cards in the match [L2068-L2202] (rulings 93-97): the deal and the refill
(``draw_cards``), a card played face up (``play_card``) for its Battle Event or its
Alternative Bonus, and where a readied bonus counts.

The hand and the deck are their side's secrets: a draw is told in full only to its seat
(``CardsDrawn``, with the dice that picked the cards: the seat's own seed, so the other
seat's log never holds a seed that would tell it the cards), and to everybody as counts
(``HandDrawn``). A card played is public.
"""

from __future__ import annotations

from typing import Protocol

from app.engine.black_reach.battle.commands import DrawCards, PlayCard
from app.engine.black_reach.battle.equipment import armour_saves, gear_bonus, note_gear
from app.engine.black_reach.battle.events import (
    CardBonusUsed,
    CardPlayed,
    CardsDrawn,
    HandDrawn,
    UnitMoved,
)
from app.engine.black_reach.battle.state import BattleState, Stage
from app.engine.black_reach.cards import ActionCard, BonusKind, card_of, draw_index
from app.engine.black_reach.tables import ArmourColour
from app.engine.black_reach.turn import Phase
from app.engine.match.dice import take_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Emitted, Event
from app.engine.roller import Roller

__all__ = [
    "ASSAULT_BONUS",
    "MOVE_BONUS",
    "SHOT_BONUS",
    "armour_card_ready",
    "card_bonus",
    "card_named",
    "draw_cards",
    "gorks_blessing",
    "play_card",
    "play_card_check",
    "spend_cards",
    "use_armour_card",
]

SHOT_BONUS = frozenset({BonusKind.SHOOTING, BonusKind.ANY_ROLL})
ASSAULT_BONUS = frozenset({BonusKind.ASSAULT, BonusKind.ANY_ROLL})
MOVE_BONUS = frozenset({BonusKind.MOVEMENT})
MAX_DISCARD = 20


class Out(Protocol):
    """What the rule book's event collector offers (``rules._Out``)."""

    state: BattleState
    roller: Roller
    events: list[Emitted]
    card_uses: set[str]
    gear_uses: set[tuple[str, str]]

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def card_named(state: BattleState, copy: str) -> ActionCard | None:
    cid = card_of(copy)
    return next((c for c in state.catalogue.cards if c.id == cid), None)


def card_bonus(state: BattleState, uid: str, kinds: frozenset[BonusKind]) -> int:
    """The +X of the Alternative Bonus readied on ``uid`` when it is of one of ``kinds``, and
    of the equipment markers readied for such a roll (Ammo, Rokkit Hammers: rulings 127)."""
    copy = state.readied.get(uid)
    card = card_named(state, copy) if copy is not None else None
    own = card.value if card is not None and card.bonus in kinds else 0
    return own + gear_bonus(state, uid, kinds)


def armour_card_ready(state: BattleState, uid: str) -> bool:
    """Whether an armour-save card is readied on ``uid`` (rulings 96)."""
    copy = state.readied.get(uid)
    card = card_named(state, copy) if copy is not None else None
    return card is not None and card.bonus is BonusKind.ARMOUR_SAVE


def note_use(out: Out, uid: str, kinds: frozenset[BonusKind]) -> None:
    """The roll being made counts the bonus readied on ``uid`` (spent when the command ends:
    every roll of the one action gets it)."""
    copy = out.state.readied.get(uid)
    card = card_named(out.state, copy) if copy is not None else None
    if card is not None and card.bonus in kinds and card.value:
        out.card_uses.add(uid)
    note_gear(out, uid, kinds)


def use_armour_card(out: Out, uid: str) -> bool:
    """A yellow armour save is tried only with an armour-save card readied on the unit
    [L1876-L1880], [L2147-L2151]: the card is discarded as the save is rolled."""
    copy = out.state.readied.get(uid)
    card = card_named(out.state, copy) if copy is not None else None
    if copy is None or card is None or card.bonus is not BonusKind.ARMOUR_SAVE:
        return False
    out.emit(CardBonusUsed(uid, copy))
    return True


def spend_cards(out: Out, start: int) -> None:
    """At the end of a command: the bonuses its rolls counted (``card_uses``) and a movement
    bonus whose unit moved (events from ``start`` on) are used and discarded."""
    moved = {
        e.event.unit for e in out.events[start:] if isinstance(e.event, UnitMoved) and e.event.path
    }
    for uid in sorted(out.card_uses | moved):
        copy = out.state.readied.get(uid)
        card = card_named(out.state, copy) if copy is not None else None
        if copy is None or card is None:
            continue
        if uid in out.card_uses or card.bonus in MOVE_BONUS:
            out.emit(CardBonusUsed(uid, copy))
    out.card_uses.clear()


def gorks_blessing(state: BattleState, side: str) -> int:
    """The cards the side draws beyond its hand size, then discards (Gork's Blessing
    [L2703-L2709], rulings 131): its ordnances' ``extra_draw``, on groups not broken."""
    extra = 0
    for g in state.groups.values():
        if g.side != side or g.broken:
            continue
        for option_id in g.options:
            option = state.catalogue.options.get(option_id)
            if option is not None and option.ordnance is not None:
                extra += option.ordnance.extra_draw
    return extra


def draw_cards(out: Out, command: DrawCards, side: str, seat: str) -> None:
    """Discard, then draw up to the hand size [L2073-L2077], [L755-L759]; when the deck runs
    out the discards become the deck (ruling 94)."""
    state = out.state
    if state.stage is not Stage.BATTLE:
        raise _refuse("wrong_stage", "cards are drawn during the battle")
    if side not in state.to_draw:
        raise _refuse("no_draw", "you draw your cards once, at the start of the turn")
    assert state.scenario is not None
    hand = list(state.hands[side])
    if len(command.discard) > MAX_DISCARD or len(set(command.discard)) != len(command.discard):
        raise _refuse("bad_discard", "name each card to discard once", RefusalKind.INPUT)
    over = len(hand) - state.scenario.hand_size  # Gork's Blessing drew beyond the hand size
    if over > 0 and len(command.discard) != over:
        raise _refuse(
            "discard_exactly",
            f"Gork's Blessing: discard exactly {over} card(s) of your hand now (rulings 131)",
            RefusalKind.INPUT,
        )
    size = state.scenario.hand_size + (gorks_blessing(state, side) if over <= 0 else 0)
    for copy in command.discard:
        if copy not in hand:
            raise _refuse("not_in_hand", f"{copy!r} is not in your hand")
        hand.remove(copy)
    deck, discards = list(state.decks[side]), [*state.discards[side], *command.discard]
    start = len(out.roller.records)
    drawn: list[str] = []
    while len(hand) < size:
        if not deck:
            deck, discards = discards, []
        if not deck:
            break  # every card is in the hand or in play
        pick = deck.pop(draw_index(out.roller, len(deck), f"card drawn by {side}"))
        hand.append(pick)
        drawn.append(pick)
    roll = take_roll(out.roller, start)
    out.emit(CardsDrawn(side, tuple(command.discard), tuple(drawn), roll), audience=(seat,))
    out.emit(HandDrawn(side, len(command.discard), len(drawn), len(hand), len(deck)))


def play_card_check(state: BattleState, copy: str, uid: str | None, side: str) -> ActionCard:
    """The card ``copy`` of ``side``'s hand, checked for its Alternative Bonus on ``uid``
    (refused otherwise)."""
    if state.stage is not Stage.BATTLE or state.turn is None:
        raise _refuse("wrong_stage", "cards are played during the battle")
    if side in state.to_draw:
        raise _refuse("draw_cards_first", "draw your cards first")
    if copy not in state.hands.get(side, ()):
        raise _refuse("not_in_hand", f"{copy!r} is not in your hand")
    card = card_named(state, copy)
    assert card is not None
    if uid is None:
        return card
    if uid not in state.units:
        raise _refuse("unknown_unit", f"there is no unit {uid!r}", RefusalKind.INPUT)
    u = state.units[uid]
    if u.side != side:
        raise _refuse("not_your_unit", f"{uid} is not yours", RefusalKind.FORBIDDEN)
    if not u.present:
        raise _refuse("not_present", f"{uid} is not on the battlefield")
    if uid in state.readied:
        raise _refuse(
            "bonus_readied", f"{uid} already has an Alternative Bonus: one per action [L2126]"
        )
    if card.bonus is BonusKind.ARMOUR_SAVE and not any(
        s.colour is ArmourColour.YELLOW for s in armour_saves(state, uid)
    ):
        raise _refuse(
            "no_yellow_save",
            f"{uid} has no yellow armour save for this card to allow [L2149-L2151]",
        )
    if card.bonus in (BonusKind.SHOOTING, BonusKind.ASSAULT) and state.turn.phase is Phase.RESERVE:
        raise _refuse(
            "immutable_rule", "no Shooting Action and no Assault in the Reserve phase [L710-L714]"
        )
    return card


def play_card(out: Out, command: PlayCard, side: str) -> None:
    """A card of the hand played face up [L2085-L2130]: its Battle Event (the players apply
    the text) or its Alternative Bonus, readied on one of the side's units until the roll or
    move it modifies (one per unit: one Alternative Bonus per action)."""
    if command.use == "event":
        card = play_card_check(out.state, command.card, None, side)
        if command.unit is not None:
            raise _refuse(
                "no_unit", "a Battle Event names no unit: apply its text", RefusalKind.INPUT
            )
        out.emit(
            CardPlayed(side, command.card, card.name, "event", None, str(card.bonus), 0, card.event)
        )
        return
    if command.use != "bonus":
        raise _refuse("bad_use", "use is 'bonus' or 'event'", RefusalKind.INPUT)
    if command.unit is None:
        raise _refuse("unknown_unit", "name the unit the bonus is for", RefusalKind.INPUT)
    card = play_card_check(out.state, command.card, command.unit, side)
    out.emit(
        CardPlayed(
            side, command.card, card.name, "bonus", command.unit, str(card.bonus), card.value
        )
    )
