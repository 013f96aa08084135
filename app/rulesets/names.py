"""The rule systems' names as players read them, in their language.

The engine names each system in English and cannot translate (it imports no gettext). The web
layer shows instead the name registered here for the system's id, translated; a system nobody
registered a name for keeps the engine's name. Adding a rule system means adding one line here,
never an ``if ruleset == ...`` in a page.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.engine import systems

DISPLAY_NAMES: dict[str, str] = {
    "wh40k-10e": lazy("Warhammer 40,000 — 10th edition core rules"),
    "pen": lazy("PEN — French fan ruleset (5th-edition based)"),
    "black-reach": lazy("Heroes of Black Reach — the board game"),
}
"""Rule-system id -> its name (an English msgid, translated when shown)."""


def display_name(system_id: str) -> str:
    """The name of the rule system ``system_id`` in the current language; an id no system
    registers is shown as it is."""
    registered = DISPLAY_NAMES.get(system_id)
    if registered is not None:
        return _(registered)
    for system in systems.load_all():
        if system.id == system_id:
            return system.name
    return system_id


class _DisplayNames(Mapping[str, str]):
    """Rule-system id -> name, translated when read: a page builds its context before the
    request's language is set for rendering, so the name is looked up when the template reads
    it."""

    def __init__(self, ids: list[str]) -> None:
        self._ids = ids

    def __getitem__(self, system_id: str) -> str:
        if system_id not in self._ids:
            raise KeyError(system_id)
        return display_name(system_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def display_names() -> Mapping[str, str]:
    """Every registered rule system's id -> its name in the language of the page that reads
    it, in listing order."""
    return _DisplayNames([system.id for system in systems.load_all()])
