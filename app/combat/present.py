"""How the calculator shows results: numbers in the reader's locale, SVG bar charts, stages.

Everything here is computed from the engine's result types (Dist, Fraction...) for any rule
system; templates only lay it out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from babel import Locale
from babel.numbers import format_decimal, format_percent

from app.core.i18n import gettext as _
from app.core.i18n import lazy, lazy_pgettext, ngettext, pgettext
from app.engine.combat import (
    CombatAnalysis,
    CombatResolution,
    fraction_to_str,
)
from app.engine.distributions import Dist

log = logging.getLogger(__name__)


# a label: a msgid, (context, msgid) where one English word has two French meanings, or a
# function returning the translated text (a label built from others: "Hits (strike back)")
Label = str | tuple[str, str] | Callable[[], str]

STAGE_LABELS: dict[str, Label] = {
    "attacks": lazy("Attacks"),
    "hits": lazy("Hits"),
    "wounds": lazy("Wounds"),
    "failed_saves": lazy("Failed saves"),
    "mortal_wounds": lazy("Mortal wounds"),
    "damage": lazy("Damage"),
    "wounds_lost": lazy("Wounds lost"),
    "models_destroyed": lazy("Models destroyed"),
    "hit": lazy("Hit roll"),
    "wound": lazy("Wound roll"),
    "save": lazy_pgettext("dice roll", "Save"),
    "saves": lazy("Saves"),
    "feel_no_pain": lazy("Feel No Pain"),
    "hazardous": lazy("Hazardous"),
    "hazardous_failures": lazy("Hazardous failures"),
}


# what a chart's values count, agreeing with the value ("1 wound lost", "2 wounds lost")
def damage_unit(n: int) -> str:
    return ngettext("%(n)d wound lost", "%(n)d wounds lost", n) % {"n": n}


def models_unit(n: int) -> str:
    return ngettext("%(n)d model destroyed", "%(n)d models destroyed", n) % {"n": n}


CHART_TAIL = Fraction(1, 1000)  # bars stop where P(at least k) falls below 0.1%

# chart geometry (SVG user units = CSS pixels)
BAR = 30
GAP = 8
TOP = 22  # room for the P(at least k) labels
BOTTOM = 22  # room for the value labels
PLOT = 110
PAD = 4


def number(value: Fraction | float | int, locale: str, digits: int = 2) -> str:
    return format_decimal(float(value), format="#,##0." + "#" * digits, locale=locale)


def _percent_pattern(locale: str, decimals: bool) -> str:
    """The locale's percent pattern (``#,##0%``, ``#,##0 %``...), with one optional decimal."""
    pattern: str = Locale.parse(locale).percent_formats[None].pattern
    return pattern.replace("#,##0", "#,##0.#") if decimals else pattern


def percent(p: Fraction, locale: str) -> str:
    """A probability as a percentage, never rounding a possible event to 0% or a doubtful one
    to 100%."""
    p = Fraction(p)
    if p <= 0:
        return format_percent(0, format=_percent_pattern(locale, False), locale=locale)
    if p >= 1:
        return format_percent(1, format=_percent_pattern(locale, False), locale=locale)
    one_decimal = _percent_pattern(locale, True)
    if p < Fraction(1, 1000):
        return "<" + format_percent(0.001, format=one_decimal, locale=locale)
    if p > Fraction(999, 1000):
        return ">" + format_percent(0.999, format=one_decimal, locale=locale)
    decimals = p < Fraction(1, 10) or p > Fraction(9, 10)
    return format_percent(float(p), format=_percent_pattern(locale, decimals), locale=locale)


def translate(msgid: Label) -> str:
    """A msgid, a (context, msgid) pair or a label function, in the current locale."""
    if isinstance(msgid, tuple):
        return pgettext(*msgid)
    if callable(msgid):
        return msgid()
    return _(msgid)


def unlabelled(name: str) -> str:
    """A key of an engine no label names: shown as humanised English, logged. Every key an
    engine writes must have a label (tests replace this function with one that fails)."""
    log.warning("calculator: no label for the engine key %r", name)
    return name.replace("_", " ").capitalize()


def untranslated(text: str) -> str:
    """An engine text of a shape its rule system's presenter does not know: shown as the
    engine wrote it (never lost), logged (tests replace this function with one that fails)."""
    log.warning("calculator: no translation for the engine text %r", text)
    return text


def stage_label(name: str, extra_labels: Mapping[str, Any] | None = None) -> str:
    msgid = (extra_labels or {}).get(name) or STAGE_LABELS.get(name)
    return translate(msgid) if msgid else unlabelled(name)


READABLE_DIGITS = 4  # a fraction whose numerator and denominator fit in this many digits


def readable(q: Fraction | int, locale: str) -> str:
    """An exact value a player can read: a whole number, a short fraction (``35/36``), else a
    rounded decimal (``≈ 3.4568``); the full fraction stays available beside it."""
    q = Fraction(q)
    if q.denominator == 1:
        return number(q, locale, 0)
    limit = 10**READABLE_DIGITS
    if abs(q.numerator) < limit and q.denominator < limit:
        return f"{q.numerator}/{q.denominator}"
    return "≈ " + number(q, locale, 4)


@dataclass(frozen=True, slots=True)
class Bar:
    value: int
    p: str
    at_least: str
    title: str
    x: float
    y: float
    height: float
    label_x: float


@dataclass(frozen=True, slots=True)
class Row:
    value: int
    p: str
    at_least: str
    exact: str
    at_least_exact: str


@dataclass(frozen=True, slots=True)
class Chart:
    id: str
    title: str
    unit: Callable[[int], str]  # a value with what it counts ("1 wound lost"): bar titles
    bars: tuple[Bar, ...]
    rows: tuple[Row, ...]
    width: int
    height: int
    baseline: float
    hidden_above: int | None  # values above this are not drawn (together under 0.1%)


def bar_title(value: int, unit: Callable[[int], str], p: str, at_least: str) -> str:
    """``"1 wound lost: 35%; at least 1: 60%"``: the unit agrees with the value."""
    counted = unit(value)
    return _("%(counted)s: %(p)s; at least %(value)s: %(at_least)s") % {
        "counted": counted,
        "p": p,
        "value": value,
        "at_least": at_least,
    }


def chart(dist: Dist, chart_id: str, title: str, unit: Callable[[int], str], locale: str) -> Chart:
    """A bar per value of ``dist``: height P(= k), label P(at least k)."""
    items = dist.items()
    at_least = dict(dist.at_least_table())
    shown = [(v, q) for v, q in items if at_least[v] >= CHART_TAIL] or items[:1]
    hidden_above = shown[-1][0] if len(shown) < len(items) else None
    tallest = max((q for _v, q in shown), default=Fraction(1)) or Fraction(1)
    bars = []
    for i, (v, q) in enumerate(shown):
        h = float(q / tallest) * PLOT
        x = PAD + i * (BAR + GAP)
        shown_p, shown_at_least = percent(q, locale), percent(at_least[v], locale)
        bars.append(
            Bar(
                value=v,
                p=shown_p,
                at_least=shown_at_least,
                title=bar_title(v, unit, shown_p, shown_at_least),
                x=x,
                y=TOP + PLOT - h,
                height=h,
                label_x=x + BAR / 2,
            )
        )
    rows = tuple(
        Row(
            v,
            percent(q, locale),
            percent(at_least[v], locale),
            fraction_to_str(q),
            fraction_to_str(at_least[v]),
        )
        for v, q in items
    )
    return Chart(
        id=chart_id,
        title=title,
        unit=unit,
        bars=tuple(bars),
        rows=rows,
        width=int(PAD * 2 + len(bars) * (BAR + GAP) - GAP),
        height=TOP + PLOT + BOTTOM,
        baseline=TOP + PLOT,
        hidden_above=hidden_above,
    )


@dataclass(frozen=True, slots=True)
class Stat:
    label: str
    value: str
    exact: str  # the full fraction, on demand
    readable: str = ""  # a short fraction or a rounded decimal


def stat(label: str, q: Fraction | int, locale: str, *, as_percent: bool = False) -> Stat:
    value = percent(Fraction(q), locale) if as_percent else number(q, locale)
    shown = value if as_percent else readable(q, locale)
    return Stat(label, value, fraction_to_str(Fraction(q)), shown)


@dataclass
class AnalysisView:
    mean_damage: Stat
    mean_models: Stat
    wipe: Stat
    charts: list[Chart]
    stages: list[Stat]
    extra: list[tuple[str, Node]] = field(default_factory=list)
    outcomes: list[Stat] = field(default_factory=list)  # a system whose attack ends in a result
    kind: str = "models"  # or "vehicle": one stat fewer, one chart
    notes: list[str] = field(default_factory=list)  # shown beside the odds (why the BS changed)


def hull_unit(n: int) -> str:
    return ngettext("%(n)d hull point lost", "%(n)d hull points lost", n) % {"n": n}


def analysis_view(
    analysis: CombatAnalysis,
    locale: str,
    extra_labels: Mapping[str, str] | None = None,
    kind: str = "models",
    notes: Sequence[str] = (),
    *,
    group_names: Mapping[str, str] | None = None,
    values: Words | None = None,
) -> AnalysisView:
    """The page's view of an analysis. ``kind`` ``"vehicle"``: the target is one vehicle, so
    the damage is hull points and "models destroyed" is the vehicle destroyed (one chart).
    ``group_names`` names the target's groups in the ``groups`` section (the engine's
    ``main`` is the target's own name)."""
    damage, models = analysis.damage, analysis.models_destroyed
    if kind == "vehicle":
        destroyed = stat(_("Vehicle destroyed"), analysis.wipe_probability, locale, as_percent=True)
        top = (stat(_("Mean hull points lost"), damage.mean(), locale), destroyed, destroyed)
        charts = [chart(damage, "chart-damage", _("Hull points lost"), hull_unit, locale)]
    else:
        top = (
            stat(_("Mean wounds lost"), damage.mean(), locale),
            stat(_("Mean models destroyed"), models.mean(), locale),
            stat(_("Unit wiped out"), analysis.wipe_probability, locale, as_percent=True),
        )
        charts = [
            chart(damage, "chart-damage", _("Wounds lost"), damage_unit, locale),
            chart(models, "chart-models", _("Models destroyed"), models_unit, locale),
        ]
    return AnalysisView(
        mean_damage=top[0],
        mean_models=top[1],
        wipe=top[2],
        kind=kind,
        notes=list(notes),
        charts=charts,
        stages=[
            stat(stage_label(name, extra_labels), d.mean(), locale)
            for name, d in analysis.stages.items()
        ],
        outcomes=[
            stat(stage_label(name, extra_labels), q, locale, as_percent=True)
            for name, q in analysis.outcomes.items()
        ],
        extra=[
            (
                stage_label(k, extra_labels),
                extra_node(_named_groups(v, group_names or {}), locale, extra_labels, values),
            )
            for k, v in analysis.extra.items()
        ],
    )


def _named_groups(value: Any, names: Mapping[str, str]) -> Any:
    """A list of groups (mappings with a ``name``) with each engine name replaced by the
    name the player gave; any other value unchanged."""
    if not names or not isinstance(value, list):
        return value
    return [
        {**g, "name": names.get(g["name"], g["name"])}
        if isinstance(g, Mapping) and isinstance(g.get("name"), str)
        else g
        for g in value
    ]


@dataclass(frozen=True, slots=True)
class DieView:
    index: int
    stage: str
    label: str
    sides: int
    value: int
    original: int | None
    face: int | None
    modifier: int
    outcome: str
    tone: str  # "good" / "bad" / "" for styling


# outcome words -> tone for the attacker, checked in order (others stay neutral)
_TONES = (
    ("no wound", "bad"),
    ("miss", "bad"),
    ("saved", "bad"),
    ("negated", "bad"),
    ("ignored", "bad"),
    ("no effect", "bad"),
    ("wound lost", "good"),
    ("critical", "good"),
    ("hit", "good"),
    ("wound", "good"),
    ("glancing", "good"),
    ("penetrating", "good"),
)
# rolls made by the target (saves, Feel No Pain): its failure is the attacker's success
_DEFENDER_ROLLS = ("save", "feel_no_pain", "feel no pain")
_DEFENDER_TONES = (("failed", "good"), ("suffered", "good"), ("passed", "bad"))


def _tone(outcome: str, stage: str = "", label: str = "") -> str:
    o = outcome.lower()
    where = f"{stage} {label}".lower()
    if any(word in where for word in _DEFENDER_ROLLS):
        for word, tone in _DEFENDER_TONES:
            if word in o:
                return tone
    for word, tone in _TONES:
        if word in o:
            return tone
    return ""


# the engines' outcome words (English) -> msgids; "hit", "wound", "failed"... are both nouns
# and verbs, adjectives of different genders in French: each has its own context
OUTCOME_WORDS: dict[str, tuple[str, str]] = {
    "hit": lazy_pgettext("die outcome", "hit"),
    "miss": lazy_pgettext("die outcome", "miss"),
    "critical hit": lazy_pgettext("die outcome", "critical hit"),
    "wound": lazy_pgettext("die outcome", "wound"),
    "no wound": lazy_pgettext("die outcome", "no wound"),
    "critical wound": lazy_pgettext("die outcome", "critical wound"),
    "saved": lazy_pgettext("die outcome", "saved"),
    "failed": lazy_pgettext("die outcome", "failed"),
    "passed": lazy_pgettext("die outcome", "passed"),
    "negated": lazy_pgettext("die outcome", "negated"),
    "wound lost": lazy_pgettext("die outcome", "wound lost"),
    "ignored": lazy_pgettext("die outcome", "ignored"),
    "suffered": lazy_pgettext("die outcome", "suffered"),
    "no effect": lazy_pgettext("die outcome", "no effect"),
    "glancing": lazy_pgettext("die outcome", "glancing"),
    "penetrating": lazy_pgettext("die outcome", "penetrating"),
    "first roll ok": lazy_pgettext("die outcome", "first roll ok"),
    "unharmed": lazy_pgettext("die outcome", "unharmed"),
    "1 mortal wound": lazy_pgettext("die outcome", "1 mortal wound"),
    "model destroyed": lazy_pgettext("die outcome", "model destroyed"),
    "caught": lazy_pgettext("die outcome", "caught"),
    "escaped": lazy_pgettext("die outcome", "escaped"),
}


Words = Callable[[str], str]


def outcome_word(outcome: str, words: Words | None = None) -> str:
    """A die's outcome in the locale: the shared words, else the rule system's ``words``."""
    msgid = OUTCOME_WORDS.get(outcome)
    if msgid:
        return translate(msgid)
    return words(outcome) if words is not None else untranslated(outcome)


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class ModelView:
    group: str  # the group's name as the player knows it
    wounds: int
    wounds_remaining: int
    destroyed: bool


@dataclass
class ResolutionView:
    seed: int | None
    dice: list[DieView]
    totals: list[Stat]
    steps: list[tuple[str, str]]
    models: list[ModelView]
    wounds_lost: int
    models_destroyed: int
    models_remaining: int
    wiped: bool
    extra: list[tuple[str, Node]]


def resolution_view(
    resolution: CombatResolution,
    locale: str,
    extra_labels: Mapping[str, Any] | None = None,
    *,
    words: Words = _same,
    group_names: Mapping[str, str] | None = None,
    values: Words | None = None,
) -> ResolutionView:
    """The roll page's view. ``words`` translates the engine's step texts and die labels (the
    rule system's presenter knows their shapes); ``group_names`` names the target's groups
    (the engine's ``main`` is the target's own name)."""
    names = group_names or {}
    dice = [
        DieView(
            index=d.index,
            stage=stage_label(d.stage, extra_labels) if getattr(d, "stage", "") else "",
            label=words(d.label),
            sides=d.sides,
            value=d.value,
            original=d.original,
            face=d.face if d.sides == 3 else None,
            modifier=d.modifier,
            outcome=outcome_word(d.outcome, words) if d.outcome else "",
            tone=_tone(d.outcome, getattr(d, "stage", ""), d.label),
        )
        for d in resolution.dice
    ]
    after = resolution.target_after
    return ResolutionView(
        seed=resolution.seed,
        dice=dice,
        totals=[
            Stat(stage_label(k, extra_labels), number(v, locale), str(v))
            for k, v in resolution.totals.items()
        ],
        steps=[(stage_label(s.stage, extra_labels), words(s.text)) for s in resolution.steps],
        models=[
            ModelView(names.get(m.group, m.group), m.wounds, m.wounds_remaining, m.destroyed)
            for m in after.models
        ],
        wounds_lost=after.wounds_lost,
        models_destroyed=after.models_destroyed,
        models_remaining=after.models_remaining,
        wiped=after.wiped,
        extra=[
            (stage_label(k, extra_labels), extra_node(v, locale, extra_labels, values))
            for k, v in resolution.extra.items()
        ],
    )


@dataclass(frozen=True, slots=True)
class Node:
    """One value of an ``extra`` section, ready for the template: ``kind`` is ``"text"``,
    ``"dist"`` (``rows`` and ``text`` = mean), ``"map"`` or ``"list"`` (``items``)."""

    kind: str
    text: str = ""
    exact: str = ""
    rows: tuple[Row, ...] = ()
    items: tuple[tuple[str, Node], ...] = ()


def extra_node(
    value: Any,
    locale: str,
    extra_labels: Mapping[str, Any] | None = None,
    values: Words | None = None,
    *,
    count: bool = False,
) -> Node:
    """Any ``extra`` value of a result (see ``app.engine.combat.ExtraValue``) as a Node.

    A fraction between 0 and 1 is shown as a percentage (they are probabilities in practice),
    unless it is an expected count (``count``: a key named ``expected...``, "0.4 casualties"),
    always with its exact value next to it. A text goes through the rule system's ``values``
    (the engine writes English: a note, a penetration mode...)."""
    if isinstance(value, Dist):
        at_least = dict(value.at_least_table())
        return Node(
            "dist",
            text=number(value.mean(), locale),
            exact=fraction_to_str(value.mean()),
            rows=tuple(
                Row(
                    v,
                    percent(q, locale),
                    percent(at_least[v], locale),
                    fraction_to_str(q),
                    fraction_to_str(at_least[v]),
                )
                for v, q in value.items()
            ),
        )
    if isinstance(value, bool):
        return Node("text", text=_("yes") if value else _("no"))
    if isinstance(value, Fraction):
        shown = percent(value, locale) if 0 <= value <= 1 and not count else number(value, locale)
        return Node("text", text=shown, exact=fraction_to_str(value))
    if isinstance(value, int | float):
        return Node("text", text=number(value, locale))
    if value is None:
        return Node("text", text="—")
    if isinstance(value, str):
        return Node("text", text=values(value) if values is not None else value)
    if isinstance(value, Mapping):
        return Node(
            "map",
            items=tuple(
                (
                    stage_label(str(k), extra_labels),
                    extra_node(
                        v, locale, extra_labels, values, count=str(k).startswith("expected")
                    ),
                )
                for k, v in value.items()
            ),
        )
    if isinstance(value, list | tuple):
        return Node(
            "list",
            items=tuple(
                (str(i + 1), extra_node(v, locale, extra_labels, values))
                for i, v in enumerate(value)
            ),
        )
    return Node("text", text=str(value))


# -- comparison: two or three profiles on one chart ---------------------------------------------

COMPARE_BAR = 12  # width of one profile's bar inside a value's group


@dataclass(frozen=True, slots=True)
class CompareBar:
    profile: int  # 0, 1, 2: the colour of the profile
    x: float
    y: float
    height: float
    title: str


@dataclass(frozen=True, slots=True)
class CompareGroup:
    value: int
    label_x: float
    bars: tuple[CompareBar, ...]


@dataclass(frozen=True, slots=True)
class CompareRow:
    profile: int
    label: str
    mean_damage: str
    mean_models: str
    wipe: str
    at_least: tuple[str, ...]  # P(at least k wounds lost) for each value of the chart


@dataclass(frozen=True, slots=True)
class Comparison:
    rows: tuple[CompareRow, ...]
    values: tuple[int, ...]
    groups: tuple[CompareGroup, ...]
    width: int
    height: int
    baseline: float


def comparison(profiles: Sequence[tuple[str, CombatAnalysis]], locale: str) -> Comparison:
    """Profiles side by side: for each number of wounds lost, one bar per profile whose height
    is the chance of losing at least that many (the question: which weapon, which target)."""
    tables = [dict(a.damage.at_least_table()) for _label, a in profiles]
    top = max((v for t in tables for v, q in t.items() if q >= CHART_TAIL and v > 0), default=1)
    values = tuple(range(1, top + 1))
    n = len(profiles)
    group_width = n * COMPARE_BAR + GAP
    groups = []
    for i, v in enumerate(values):
        x0 = PAD + i * group_width
        bars = []
        for j, table in enumerate(tables):
            q = table.get(v, Fraction(0))
            h = float(q) * PLOT
            bars.append(
                CompareBar(
                    profile=j,
                    x=x0 + j * COMPARE_BAR,
                    y=TOP + PLOT - h,
                    height=h,
                    title=_("%(profile)s: at least %(value)s: %(p)s")
                    % {"profile": profiles[j][0], "value": v, "p": percent(q, locale)},
                )
            )
        groups.append(CompareGroup(v, x0 + n * COMPARE_BAR / 2, tuple(bars)))
    rows = tuple(
        CompareRow(
            profile=j,
            label=label,
            mean_damage=number(a.damage.mean(), locale),
            mean_models=number(a.models_destroyed.mean(), locale),
            wipe=percent(a.wipe_probability, locale),
            at_least=tuple(percent(tables[j].get(v, Fraction(0)), locale) for v in values),
        )
        for j, (label, a) in enumerate(profiles)
    )
    return Comparison(
        rows=rows,
        values=values,
        groups=tuple(groups),
        width=int(PAD * 2 + len(values) * group_width - GAP),
        height=TOP + PLOT + BOTTOM,
        baseline=TOP + PLOT,
    )
