"""The 10th-edition roll page in the reader's language: the engine writes its step texts and die
labels in English with numbers inside (``"Bolt rifle: 1 wounds"``); each shape it writes is
read back here and rebuilt from a translatable message, with plurals that agree
("1 wound", "2 wounds") and the target's groups named as the player named them.

A text of an unknown shape is shown as the engine wrote it (never lost), through
:func:`app.combat.present.untranslated` (a test failure).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from app.combat.present import untranslated
from app.core.i18n import gettext as _
from app.core.i18n import lazy, ngettext

Rebuild = Callable[[re.Match[str], Callable[[str], str]], str]


def _n(message: Callable[[int], str], count: str, **values: object) -> str:
    """``message(n)`` (a plain ``ngettext`` call, so that the extractor sees both forms) with
    ``n`` and ``values`` filled in."""
    n = int(count)
    return message(n) % {"n": n, **values}


def _attacks(m: re.Match[str], group: Callable[[str], str]) -> str:
    return _n(
        lambda k: ngettext("%(name)s: %(n)d attack", "%(name)s: %(n)d attacks", k),
        m["n"],
        name=m["name"],
    )


def _hits(m: re.Match[str], group: Callable[[str], str]) -> str:
    text = _n(
        lambda k: ngettext("%(name)s: %(n)d hit", "%(name)s: %(n)d hits", k), m["n"], name=m["name"]
    )
    if m["crits"]:
        text += " " + _("(%(n)s critical)") % {"n": m["crits"]}
    if m["auto"]:
        text += ", " + _n(
            lambda k: ngettext(
                "%(n)d wound automatically (Lethal Hits)",
                "%(n)d wounds automatically (Lethal Hits)",
                k,
            ),
            m["auto"],
        )
    return text


def _wounds(m: re.Match[str], group: Callable[[str], str]) -> str:
    text = _n(
        lambda k: ngettext("%(name)s: %(n)d wound", "%(name)s: %(n)d wounds", k),
        m["n"],
        name=m["name"],
    )
    if m["dev"]:
        text += ", " + _("%(n)s critical into mortal wounds") % {"n": m["dev"]}
    return text


def _destroyed_rest(m: re.Match[str], group: Callable[[str], str]) -> str:
    return _("%(name)s: the target is destroyed; remaining wounds are lost") % {"name": m["name"]}


def _already(m: re.Match[str], group: Callable[[str], str]) -> str:
    return _("%(name)s: the target is already destroyed") % {"name": m["name"]}


def _saved(m: re.Match[str], group: Callable[[str], str]) -> str:
    return _("%(name)s: saved by %(group)s") % {"name": m["name"], "group": group(m["group"])}


def _failed(m: re.Match[str], group: Callable[[str], str]) -> str:
    text = _("%(name)s: failed save on %(group)s, %(damage)s damage") % {
        "name": m["name"],
        "group": group(m["group"]),
        "damage": m["dmg"],
    }
    text += ", " + _n(lambda k: ngettext("%(n)d wound lost", "%(n)d wounds lost", k), m["lost"])
    if m["killed"]:
        text += " - " + _("model destroyed")
    return text


def _mortals(m: re.Match[str], group: Callable[[str], str]) -> str:
    return (
        _n(
            lambda k: ngettext("%(name)s: %(n)d mortal wound", "%(name)s: %(n)d mortal wounds", k),
            m["n"],
            name=m["name"],
        )
        + ", "
        + _n(lambda k: ngettext("%(n)d wound lost", "%(n)d wounds lost", k), m["lost"])
    )


def _hazardous(m: re.Match[str], group: Callable[[str], str]) -> str:
    return _n(
        lambda k: ngettext(
            "%(name)s: %(n)d Hazardous test failed", "%(name)s: %(n)d Hazardous tests failed", k
        ),
        m["n"],
        name=m["name"],
    )


def _label(msgid: str) -> Rebuild:
    def rebuild(m: re.Match[str], group: Callable[[str], str]) -> str:
        values = m.groupdict()
        if "group" in values:
            values["group"] = group(values["group"])
        return _(msgid) % values

    return rebuild


SHAPES: tuple[tuple[re.Pattern[str], Rebuild], ...] = (
    (re.compile(r"^(?P<name>.+): (?P<n>\d+) attacks$"), _attacks),
    (
        re.compile(
            r"^(?P<name>.+): (?P<n>\d+) hits(?: \((?P<crits>\d+) critical\))?"
            r"(?:, (?P<auto>\d+) wound automatically \(Lethal Hits\))?$"
        ),
        _hits,
    ),
    (
        re.compile(
            r"^(?P<name>.+): (?P<n>\d+) wounds(?:, (?P<dev>\d+) critical into mortal wounds)?$"
        ),
        _wounds,
    ),
    (
        re.compile(r"^(?P<name>.+): the target is destroyed; remaining wounds are lost$"),
        _destroyed_rest,
    ),
    (re.compile(r"^(?P<name>.+): the target is already destroyed$"), _already),
    (re.compile(r"^(?P<name>.+): saved by (?P<group>.+)$"), _saved),
    (
        re.compile(
            r"^(?P<name>.+): failed save on (?P<group>.+), (?P<dmg>\d+) damage, "
            r"(?P<lost>\d+) wounds lost(?P<killed> - model destroyed)?$"
        ),
        _failed,
    ),
    (re.compile(r"^(?P<name>.+): (?P<n>\d+) mortal wounds, (?P<lost>\d+) wounds lost$"), _mortals),
    (re.compile(r"^(?P<name>.+): (?P<n>\d+) Hazardous tests failed$"), _hazardous),
    # die labels
    (
        re.compile(r"^(?P<name>.+): attacks \(model (?P<k>\d+)\)$"),
        _label(lazy("%(name)s: attacks (model %(k)s)")),
    ),
    (
        re.compile(r"^(?P<name>.+): Rapid Fire \(model (?P<k>\d+)\)$"),
        _label(lazy("%(name)s: Rapid Fire (model %(k)s)")),
    ),
    (re.compile(r"^(?P<name>.+): hit roll$"), _label(lazy("%(name)s: hit roll"))),
    (re.compile(r"^(?P<name>.+): wound roll$"), _label(lazy("%(name)s: wound roll"))),
    (re.compile(r"^(?P<name>.+): Sustained Hits$"), _label(lazy("%(name)s: Sustained Hits"))),
    (
        re.compile(r"^(?P<name>.+): Devastating Wounds damage$"),
        _label(lazy("%(name)s: Devastating Wounds damage")),
    ),
    (re.compile(r"^(?P<name>.+): damage$"), _label(lazy("%(name)s: damage"))),
    (
        re.compile(r"^(?P<name>.+): armour save \((?P<group>.+), (?P<target>\d+)\+\)$"),
        _label(lazy("%(name)s: armour save (%(group)s, %(target)s+)")),
    ),
    (
        re.compile(r"^(?P<name>.+): invulnerable save \((?P<group>.+), (?P<target>\d+)\+\)$"),
        _label(lazy("%(name)s: invulnerable save (%(group)s, %(target)s+)")),
    ),
    (re.compile(r"^Feel No Pain (?P<target>\d+)\+$"), _label(lazy("Feel No Pain %(target)s+"))),
    (re.compile(r"^(?P<name>.+): Hazardous test$"), _label(lazy("%(name)s: Hazardous test"))),
)


def words(text: str, group_names: Mapping[str, str]) -> str:
    """``text`` (a step or a die label of the engine) in the current locale."""

    def group(name: str) -> str:
        return group_names.get(name, name)

    for pattern, rebuild in SHAPES:
        m = pattern.match(text)
        if m:
            return rebuild(m, group)
    return untranslated(text)
