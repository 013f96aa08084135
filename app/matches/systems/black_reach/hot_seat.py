"""Hot seat: both seats of a Black Reach match played by its creator on one device.

A match created with the option ``hot_seat`` may be started by its creator (seat A) with
seat B taken as a guest held by that creator (:func:`start`: the invitation code and the guest
link stop working); the creator then sends the commands of either seat (:func:`act`). The
match page (``app/matches/pages/black_reach.py``) and the JSON API (``api.py`` here) both
call these, with the same rules: only the caller in seat A of such a match, anyone else 404.

One seat at a time: :func:`seat_state` shows a seat's own view (its face-down tokens) only
while the battle waits on that seat, as the page shows a seat's board only then; asked for the
other seat, it answers the public view and the seat to hand the device to (``hand_off``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.engine.match.seats import Seat
from app.matches.exceptions import MatchNotFound

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.engine.match.game import MatchGame
    from app.matches.models import Match
    from app.matches.service import Outcome

__all__ = [
    "SEATS",
    "act",
    "is_hot_seat",
    "offers_hot_seat",
    "seat_state",
    "start",
    "to_play",
    "waits_on",
]

SEATS = ("A", "B")
MAX_NAME = 60
#: commands a seat may send at many moments without the battle waiting for them (an Action
#: card played, a mechanic or equipment markers readied): a seat with only these is not the
#: one to play
OPTIONAL_KINDS = frozenset({"play_card", "ready_repair", "ready_equipment"})


def waits_on(actions: Sequence[Mapping[str, Any]]) -> bool:
    """Whether these legal actions hold one the battle waits for (not only optional ones)."""
    return any(str((a.get("command") or {}).get("type")) not in OPTIONAL_KINDS for a in actions)


def is_hot_seat(match: Match) -> bool:
    """Whether both seats of ``match`` are held by its creator on one device: seat B was
    taken through the hot-seat start (its snapshot says so) and by no registered user."""
    return bool((match.army_b or {}).get("hot_seat")) and match.player_b_id is None


def offers_hot_seat(match: Match) -> bool:
    """Whether the creator may still start ``match`` in hot seat (asked at the creation,
    nobody joined yet)."""
    options = (match.army_a or {}).get("options") or {}
    return bool(options.get("hot_seat")) and match.version == 0


def to_play(game: Any, known: dict[str, Sequence[Mapping[str, Any]]] | None = None) -> str | None:
    """The seat the battle waits on (seat A first when both may act, e.g. the Order phase);
    ``None`` when neither may. A seat that may only play a card or ready a mechanic
    (:data:`OPTIONAL_KINDS`) is not waited on: the device goes to the other one. ``known``:
    the legal actions already read, by seat (those read here are added to it)."""
    known = {} if known is None else known
    for seat in SEATS:
        if seat not in known:
            known[seat] = game.legal_actions(seat)
        if waits_on(known[seat]):
            return seat
    return None


def seat_state(
    game: Any,
    seat: str,
    known: dict[str, Sequence[Mapping[str, Any]]] | None = None,
    *,
    cards: bool = False,
) -> dict[str, Any]:
    """What the hot-seat device shows when ``seat`` is asked for: ``to_play``, and either that
    seat's ``view`` and ``actions`` (``hand_off`` ``None``) when the battle waits on it (or
    on nobody once it has ended), or the public view, no actions and ``hand_off``: the seat
    to hand the device to (``None`` when nobody may act and the battle goes on). ``cards``:
    the player of ``seat`` took the device to play an Action card out of turn (rulings 138):
    that seat's view and only its optional commands (:data:`OPTIONAL_KINDS`)."""
    known = {} if known is None else known
    waiting = to_play(game, known)
    ended = game.status().stage == "ended"
    if waiting == seat or (waiting is None and ended):
        actions = known[seat] if seat in known else game.legal_actions(seat)
        return {"to_play": waiting, "hand_off": None, "view": game.view(seat), "actions": actions}
    if cards and not ended:
        # the other player took the device to play a card out of turn (rulings 138): their
        # own view and only what they may send without the battle waiting on them
        actions = known[seat] if seat in known else game.legal_actions(seat)
        optional = [
            a for a in actions if str((a.get("command") or {}).get("type")) in OPTIONAL_KINDS
        ]
        return {"to_play": waiting, "hand_off": None, "view": game.view(seat), "actions": optional}
    return {"to_play": waiting, "hand_off": waiting, "view": game.view(None), "actions": []}


def start(db: Session, match: Match, caller_seat: str, name: str) -> MatchGame:
    """The creator (``caller_seat`` A) takes seat B too: seat B's force, then the join; 404
    for anyone else or a match not created for the hot seat (or already joined)."""
    from app.matches import service, systems

    if caller_seat != Seat.A or not offers_hot_seat(match):
        raise MatchNotFound()
    second = name.strip()[:MAX_NAME] or "Second player"
    system = systems.system(match)
    mission, points = systems.mission_and_size(
        system, match.mission_id, match.battle_size, db=db, owner_id=match.created_by_id
    )
    options = (match.army_a or {}).get("options") or {}
    snapshot = system.guest_snapshot(db, None, None, mission, points, options, Seat.B)
    # nobody else may take seat B; cleared before the join's write, whose row the streams
    # keep (a guest link's stream must not read seat B at that version)
    match.guest_digest = None
    return service.join(db, match, snapshot | {"hot_seat": True}, user=None, guest_name=second)


def act(
    db: Session,
    match: Match,
    caller_seat: str,
    as_seat: str,
    command: Mapping[str, Any],
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> Outcome:
    """A command of seat ``as_seat``, sent by the creator of a hot-seat match (404 for
    anyone else, or a seat that is not A or B)."""
    from app.matches import service

    if caller_seat != Seat.A or not is_hot_seat(match) or as_seat not in SEATS:
        raise MatchNotFound()
    return service.execute(
        db, match, as_seat, command, expected_version=expected_version, dice=dice
    )
