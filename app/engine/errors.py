"""Engine errors: one base class, and the invalid-profile error the API turns into a 422.

Every error the engine raises on bad input derives from :class:`EngineError` (itself a
``ValueError``), so callers can catch one class. Rule-system packages subclass these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field


def N_(message: str) -> str:
    """Marks ``message`` as a message id for extraction (``make messages``) without translating
    it: the engine never imports the i18n layer; a page translates :class:`Message` itself."""
    return message


@dataclass(frozen=True)
class Message:
    """A message id (English, with ``%(name)s`` placeholders) and its values, kept so that a
    page can show it in the reader's language (:meth:`render`); ``str()`` is the English text.

    A value may itself be a :class:`Message` (a refusal's reason, its advice): rendered, and
    translated, first. Numbers are given as the engine writes them (``"100,000"``)."""

    msgid: str
    params: Mapping[str, object] = field(default_factory=dict)

    def render(self, translate: Callable[[str], str] = N_) -> str:
        """The text, each message id through ``translate`` (English when left out)."""
        text = translate(self.msgid)
        if not self.params:
            return text
        values = {
            k: v.render(translate) if isinstance(v, Message) else v for k, v in self.params.items()
        }
        return text % values

    def __str__(self) -> str:
        return self.render()


class EngineError(ValueError):
    """Base of every error the rules engine raises on bad input or an impossible request."""


class ProfileError(EngineError):
    """An invalid profile field (weapon, target, situation...).

    ``field`` is a dotted path the API can show (``"attacks[0].weapon.skill"``); ``message`` says
    what is wrong. ``errors`` lists every (field, message) problem found, this one first, so an
    API can report them all at once (see :meth:`collect`).

    ``message`` may be a message id marked with :func:`N_` and its values given as keywords
    (``ProfileError("models", N_("must be 1..%(most)s"), most=30)``), or a :class:`Message`:
    ``message`` stays the English text, and ``templates`` keeps, for each problem of
    ``errors``, the :class:`Message` a page translates (an unmarked text is its own id).
    """

    def __init__(self, field: str, message: str | Message, **params: object) -> None:
        template = message if isinstance(message, Message) else Message(message, params)
        text = str(template)
        super().__init__(f"{field}: {text}")
        self.field = field
        self.message = text
        self.errors: tuple[tuple[str, str], ...] = ((field, text),)
        self.templates = (template,)

    @property
    def templates(self) -> tuple[Message, ...]:
        """The :class:`Message` of each problem of ``errors``, in the same order (a problem
        whose ``errors`` were set by hand, without templates, is its own English id)."""
        kept = self._templates
        if len(kept) == len(self.errors) and all(
            str(t) == m for t, (_f, m) in zip(kept, self.errors, strict=True)
        ):
            return kept
        return tuple(Message(m) for _f, m in self.errors)

    @templates.setter
    def templates(self, value: tuple[Message, ...]) -> None:
        self._templates = tuple(value)

    def with_prefix(self, prefix: str) -> ProfileError:
        """The same error(s) with every field path prefixed (``"target" + ".save"``)."""

        def join(field: str) -> str:
            if not prefix:
                return field
            if not field or field.startswith("["):
                return prefix + field
            return f"{prefix}.{field}"

        return ProfileError.collect(
            [
                ProfileError(join(f), t)
                for (f, _m), t in zip(self.errors, self.templates, strict=True)
            ],
            error_class=type(self),
        )

    @classmethod
    def collect(
        cls, problems: Iterable[ProfileError], *, error_class: type[ProfileError] | None = None
    ) -> ProfileError:
        """One error carrying every problem of ``problems`` (which must not be empty)."""
        flat: list[tuple[str, str]] = []
        templates: list[Message] = []
        for problem in problems:
            flat.extend(problem.errors)
            templates.extend(problem.templates)
        if not flat:
            raise ValueError("ProfileError.collect needs at least one problem")
        klass = error_class or cls
        err = ProfileError.__new__(klass)
        ProfileError.__init__(err, flat[0][0], templates[0])
        err.errors = tuple(flat)
        err.templates = tuple(templates)
        if len(flat) > 1:
            err.args = ("; ".join(f"{f}: {m}" for f, m in flat),)
        return err


class DiceExpressionError(EngineError):
    """A malformed or out-of-bounds dice expression (``"D7"``, ``"11D6"``, ``"banana"``).

    ``message`` (the reason, English) and ``str()`` (``invalid dice expression 'D7': ...``)
    are what the API writes; ``reason`` and ``template`` are the same texts as :class:`Message`
    for a page to translate. ``message`` may be a message id marked with :func:`N_` and its
    values given as keywords, or a :class:`Message`, as for :class:`ProfileError`."""

    def __init__(self, text: str, message: str | Message, **params: object) -> None:
        reason = message if isinstance(message, Message) else Message(message, params)
        template = Message(
            N_("invalid dice expression %(text)s: %(problem)s"),
            {"text": repr(text), "problem": reason},
        )
        super().__init__(str(template))
        self.text = text
        self.message = str(reason)
        self.reason = reason
        self.template = template


class RollerError(EngineError):
    """A roller cannot provide a die (hand-given dice used up, or a value out of range)."""


class DiceExhausted(RollerError):
    """A roller built from hand-given dice was asked for more dice than it was given."""


class UnknownRuleSystem(EngineError, LookupError):
    """No rule system is registered under that id."""

    def __init__(self, system_id: str, known: Iterable[str] = ()) -> None:
        known_ids = sorted(known)
        hint = f" (known: {', '.join(known_ids)})" if known_ids else ""
        super().__init__(f"unknown rule system {system_id!r}{hint}")
        self.system_id = system_id
        self.known = tuple(known_ids)


class DuplicateRuleSystem(EngineError):
    """Another rule system is already registered under that id."""
