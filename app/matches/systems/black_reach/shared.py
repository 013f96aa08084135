"""A Black Reach match on a content set shared by link, for whoever holds the link (issue 16).

The scenario is found in the set behind the link (:func:`content.shared_missions`: trimmed,
without the owner's notes, naming no set id) and frozen into seat A's snapshot as for one's
own sets, so the opponent, spectators and exports read only what the battle uses; the
open-matches cap (:data:`content.MAX_OPEN`) counts it with the creator's own. The page's form
(``web.py``) and the JSON API (``api.py``) both create it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.i18n import gettext as _
from app.engine.black_reach import SYSTEM_ID
from app.matches import service
from app.matches.exceptions import UnknownMission
from app.matches.models import Match, OpponentKind
from app.matches.systems.black_reach import content

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.accounts.models import User

__all__ = ["create_on_shared"]


def create_on_shared(
    db: Session,
    user: User,
    token: str,
    scenario: str,
    *,
    opponent: OpponentKind = OpponentKind.USER,
    options: dict[str, Any] | None = None,
) -> Match:
    """A new match on the scenario ``scenario`` (its id) of the set behind ``token``, frozen
    into seat A's snapshot; 404 for a bad link, 422 for a scenario the set does not offer."""
    offered = content.shared_missions(db, token)
    mission = next(
        (m for m in offered.values() if m.options.get("scenario") == scenario),
        None,
    )
    if mission is None:
        raise UnknownMission(
            _("This set has no scenario %(id)s that can be played.") % {"id": scenario[:64]},
            errors=[{"field": "scenario", "message": "not a playable scenario", "type": "unknown"}],
        )
    return service.create(
        db,
        user,
        army_id=None,
        mission_id=mission.id,
        battle_size=content.SIZE,
        opponent=opponent,
        options=options,
        ruleset=SYSTEM_ID,
        mission=mission,
    )
