"""The Black Reach page's forms for the Action cards and the persistent psychic powers (issue
16, rulings 93-97 and the powers' markers): the draw at the start of a turn (the cards of the
hand to discard first, ticked), a card played as its Battle Event (its text shown) or for its
Alternative Bonus on one of the units that may take it (a select), and the powers to maintain
at the start of the Order phase (ticked: each pays its cost again), with their timeline
sentences (a card named by ``names["card:<id>"]``). ``black_reach.action_forms`` asks
:func:`card_form` for these commands and ``black_reach.build_command`` reads their fields
with :func:`read_form`.

The other side's hand is never named: its view holds the counts only (the engine's), and the
draw's cards are in the drawing seat's own secret event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import FormData

from app.core.i18n import gettext as _
from app.core.i18n import lazy

__all__ = [
    "BONUSES",
    "CARD_KINDS",
    "EVENT_KINDS",
    "CardForm",
    "bonus_label",
    "card_form",
    "describe",
    "read_form",
]

CARD_KINDS = frozenset({"draw_cards", "play_card", "maintain_powers"})
EVENT_KINDS = frozenset(
    {"cards_drawn", "hand_drawn", "card_played", "card_bonus_used", "powers_maintained"}
)
MAX_PICKS = 60  # a deck holds at most 60 cards
MAX_ID = 200

BONUSES = {
    "movement": lazy("+{n} squares to one move"),
    "assault": lazy("+{n} in an assault"),
    "shooting": lazy("+{n} to a shot"),
    "armour_save": lazy("its armour save"),
    "any_roll": lazy("+{n} to a die roll"),
}


def bonus_label(bonus: object, value: object) -> str:
    """An Alternative Bonus in words ("+2 to a shot")."""
    text = BONUSES.get(str(bonus))
    return _(text).format(n=value) if text is not None else str(bonus)


@dataclass(frozen=True, slots=True)
class CardForm:
    """What a card or power command's form shows beyond the button."""

    label: str
    picks: list[tuple[str, str]] = field(default_factory=list)  # checkboxes: (value, label)
    pick_name: str = ""  # "discard" or "keep"
    units: list[tuple[str, str]] = field(default_factory=list)  # a bonus's unit select
    text: str = ""  # a Battle Event's text, as the players typed it in


def _hand(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    cards = view.get("cards") if isinstance(view.get("cards"), Mapping) else {}
    assert isinstance(cards, Mapping)
    return {
        str(c.get("card")): c
        for c in cards.get("hand") or ()
        if isinstance(c, Mapping) and c.get("card")
    }


def _card_name(copy: str, hand: Mapping[str, Mapping[str, Any]]) -> str:
    found = hand.get(copy)
    return str(found.get("name") or copy) if found is not None else copy


def card_form(
    entry: Mapping[str, Any],
    cmd: Mapping[str, Any],
    names: Mapping[str, str],
    view: Mapping[str, Any],
) -> CardForm:
    """The form of a ``draw_cards``, ``play_card`` or ``maintain_powers`` legal action."""
    kind = str(cmd.get("type") or "")
    hand = _hand(view)
    if kind == "draw_cards":
        held = [str(c) for c in entry.get("hand") or ()]
        over = entry.get("discard_exactly")
        title = (  # Gork's Blessing drew beyond the hand size (rulings 131)
            _("Gork's Blessing: discard exactly {n} card(s) of your hand").format(n=over)
            if over
            else _("Draw your Action cards")
        )
        return CardForm(
            title,
            picks=[(c, _card_name(c, hand)) for c in held],
            pick_name="discard",
        )
    if kind == "maintain_powers":
        picks = []
        for m in entry.get("markers") or ():
            if not isinstance(m, Mapping):
                continue
            psyker = str(m.get("psyker") or "")
            power = str(m.get("power") or "")
            words = _("{power} of {psyker} (cost {cost})").format(
                power=names.get(power, power), psyker=names.get(psyker, psyker), cost=m.get("cost")
            )
            if m.get("unit"):
                on = names.get(str(m.get("unit")), str(m.get("unit")))
                words = _("{power}, on {unit}").format(power=words, unit=on)
            picks.append((f"{psyker}|{power}", words))
        return CardForm(_("Maintain your psychic powers"), picks=picks, pick_name="keep")
    copy = str(cmd.get("card") or "")
    card = hand.get(copy, {})
    name = _card_name(copy, hand)
    if cmd.get("use") == "event":
        return CardForm(
            _("Play {card} as its Battle Event").format(card=name),
            text=str(card.get("event") or ""),
        )
    units = [(str(u), names.get(str(u), str(u))) for u in entry.get("units") or ()]
    return CardForm(
        _("Play {card} for its bonus: {bonus}").format(
            card=name, bonus=bonus_label(card.get("bonus"), card.get("value"))
        ),
        units=units,
    )


def read_form(form: FormData, cmd: dict[str, Any]) -> None:
    """The fields of a card or power form into its command (the battle checks them)."""
    kind = cmd.get("type")
    if kind == "draw_cards":
        chosen = [v[:MAX_ID] for v in form.getlist("discard") if isinstance(v, str) and v]
        cmd["discard"] = list(dict.fromkeys(chosen))[:MAX_PICKS]
    elif kind == "play_card" and cmd.get("use") == "bonus":
        unit = form.get("unit")
        if isinstance(unit, str) and unit:
            cmd["unit"] = unit[:MAX_ID]
    elif kind == "maintain_powers":
        keep = []
        for value in form.getlist("keep"):
            if not isinstance(value, str):
                continue
            unit, sep, power = value.rpartition("|")
            if sep and unit and power:
                keep.append({"unit": unit[:MAX_ID], "power": power[:MAX_ID]})
        cmd["keep"] = keep[:MAX_PICKS]


def describe(
    ev: Mapping[str, Any], names: Mapping[str, str], sides: Mapping[str, str]
) -> str | None:
    """The sentence of a card or power-marker event (``None``: not one of them)."""
    kind = str(ev.get("type") or "")
    side = sides.get(str(ev.get("side")), str(ev.get("side") or ""))
    unit = names.get(str(ev.get("unit")), str(ev.get("unit") or ""))
    if kind == "cards_drawn":  # the drawing seat's own secret event

        def cards(copies: Any) -> str:
            found = [names.get("card:" + str(c).partition("#")[0], str(c)) for c in copies or ()]
            return ", ".join(found) or "-"

        drawn, dropped = cards(ev.get("drawn")), cards(ev.get("discarded"))
        return _("You discard {discarded} and draw {drawn}.").format(discarded=dropped, drawn=drawn)
    if kind == "hand_drawn":
        return _(
            "{side} discards {discarded} card(s) and draws {drawn}: {hand} in hand, "
            "{deck} left in the deck."
        ).format(
            side=side,
            discarded=ev.get("discarded"),
            drawn=ev.get("drawn"),
            hand=ev.get("hand"),
            deck=ev.get("deck"),
        )
    if kind == "card_played":
        name = str(ev.get("name") or ev.get("card") or "")
        if ev.get("use") == "event":
            text = _("{side} plays {card} as its Battle Event.").format(side=side, card=name)
            if ev.get("text"):
                text += " " + _("Its text: {text}").format(text=ev.get("text"))
            return text
        return _("{side} plays {card} for its bonus on {unit}: {bonus}.").format(
            side=side, card=name, unit=unit, bonus=bonus_label(ev.get("bonus"), ev.get("value"))
        )
    if kind == "card_bonus_used":
        return _("{unit} uses its card's bonus; the card is discarded.").format(unit=unit)
    if kind == "powers_maintained":

        def named(markers: Any) -> str:
            out = []
            for m in markers or ():
                psyker, _sep, power = str(m).rpartition("|")
                out.append(
                    _("{power} of {psyker}").format(
                        power=names.get(power, power), psyker=names.get(psyker, psyker)
                    )
                )
            return ", ".join(out) or "-"

        return _("{side} maintains {kept}; discarded: {dropped}.").format(
            side=side, kept=named(ev.get("kept")), dropped=named(ev.get("dropped"))
        )
    return None
