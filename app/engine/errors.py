"""Engine errors: one base class, and the invalid-profile error the API turns into a 422.

Every error the engine raises on bad input derives from :class:`EngineError` (itself a
``ValueError``), so callers can catch one class. Rule-system packages subclass these.
"""

from __future__ import annotations

from collections.abc import Iterable


class EngineError(ValueError):
    """Base of every error the rules engine raises on bad input or an impossible request."""


class ProfileError(EngineError):
    """An invalid profile field (weapon, target, situation...).

    ``field`` is a dotted path the API can show (``"attacks[0].weapon.skill"``); ``message`` says
    what is wrong. ``errors`` lists every (field, message) problem found, this one first, so an
    API can report them all at once (see :meth:`collect`).
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.errors: tuple[tuple[str, str], ...] = ((field, message),)

    def with_prefix(self, prefix: str) -> ProfileError:
        """The same error(s) with every field path prefixed (``"target" + ".save"``)."""

        def join(field: str) -> str:
            if not prefix:
                return field
            if not field or field.startswith("["):
                return prefix + field
            return f"{prefix}.{field}"

        return ProfileError.collect(
            [ProfileError(join(f), m) for f, m in self.errors], error_class=type(self)
        )

    @classmethod
    def collect(
        cls, problems: Iterable[ProfileError], *, error_class: type[ProfileError] | None = None
    ) -> ProfileError:
        """One error carrying every problem of ``problems`` (which must not be empty)."""
        flat: list[tuple[str, str]] = []
        for problem in problems:
            flat.extend(problem.errors)
        if not flat:
            raise ValueError("ProfileError.collect needs at least one problem")
        klass = error_class or cls
        err = ProfileError.__new__(klass)
        ProfileError.__init__(err, flat[0][0], flat[0][1])
        err.errors = tuple(flat)
        if len(flat) > 1:
            err.args = ("; ".join(f"{f}: {m}" for f, m in flat),)
        return err


class DiceExpressionError(EngineError):
    """A malformed or out-of-bounds dice expression (``"D7"``, ``"11D6"``, ``"banana"``)."""

    def __init__(self, text: str, message: str) -> None:
        super().__init__(f"invalid dice expression {text!r}: {message}")
        self.text = text
        self.message = message


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
