"""Elo ratings per club and rule system, from confirmed results in chronological order.

Pure logic (stdlib only). The service keeps one rating pool per (club, rule system): it passes
that pool's confirmed games, oldest first, to :func:`rate`, which replays them from the
initial rating. Recomputing from the whole history (rather than patching a stored number)
means a corrected or late-confirmed result simply gives the right ratings on the next call.

Standard Elo: expected score ``E_a = 1 / (1 + 10 ** ((R_b - R_a) / 400))``; after the game
``R_a' = R_a + K_a * (S_a - E_a)`` with ``S_a`` = 1 for a win, 1/2 for a draw, 0 for a loss.
K is per player: ``k`` (32 by default), or ``reduced_k`` once the player has played
``reduced_k_after`` rated games, if the club configures it.

Arithmetic is :class:`~decimal.Decimal` in a fixed local context (34 significant digits),
deterministic on every platform: exact whenever the expectation is (equal ratings give
exactly 1/2, so 1500 v 1500 with K=32 is exactly 1516 / 1484), otherwise rounded at 34 significant
digits. Ratings are carried unrounded; :attr:`Rating.display` rounds half up for display.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal

from app.leagues.standings import GameResult, LeagueError, PlayerId

__all__ = [
    "EloConfig",
    "EloResult",
    "Rating",
    "RatingChange",
    "expected_score",
    "rate",
    "update",
]

_CTX = Context(prec=34, rounding=ROUND_HALF_EVEN, Emax=999_999, Emin=-999_999)
_ONE = Decimal(1)
_HALF = Decimal("0.5")
_ZERO = Decimal(0)

MAX_K = 1000
MAX_RATING = 100_000


@dataclass(frozen=True, slots=True)
class EloConfig:
    """K factor(s), initial rating and scale of one rating pool."""

    k: int = 32
    initial: int = 1500
    reduced_k: int | None = None
    reduced_k_after: int | None = None
    scale: int = 400

    def __post_init__(self) -> None:
        for name in ("k", "scale"):
            value = getattr(self, name)
            if not 0 < value <= MAX_K:
                raise LeagueError(f"{name} must be 1..{MAX_K} (got {value})")
        if not 0 <= self.initial <= MAX_RATING:
            raise LeagueError(f"initial rating must be 0..{MAX_RATING} (got {self.initial})")
        if (self.reduced_k is None) != (self.reduced_k_after is None):
            raise LeagueError("reduced_k and reduced_k_after go together (set both or neither)")
        if self.reduced_k is not None and not 0 < self.reduced_k <= MAX_K:
            raise LeagueError(f"reduced_k must be 1..{MAX_K} (got {self.reduced_k})")
        if self.reduced_k_after is not None and self.reduced_k_after < 0:
            raise LeagueError(f"reduced_k_after must be >= 0 (got {self.reduced_k_after})")

    def k_for(self, games_played: int) -> int:
        """The K factor of a player who has already played ``games_played`` rated games."""
        if (
            self.reduced_k is not None
            and self.reduced_k_after is not None
            and games_played >= self.reduced_k_after
        ):
            return self.reduced_k
        return self.k


def _display(value: Decimal) -> int:
    return int(value.quantize(_ONE, rounding=ROUND_HALF_UP))


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating (unrounded) and the number of rated games behind it."""

    player: PlayerId
    value: Decimal
    games: int = 0

    @property
    def display(self) -> int:
        """The rating rounded to the nearest whole point (halves up), as shown to players."""
        return _display(self.value)


@dataclass(frozen=True, slots=True)
class RatingChange:
    """How one game moved the two ratings (for a player's game history)."""

    game: GameResult
    before_a: Decimal
    before_b: Decimal
    after_a: Decimal
    after_b: Decimal
    expected_a: Decimal

    @property
    def delta_a(self) -> Decimal:
        return _CTX.subtract(self.after_a, self.before_a)

    @property
    def delta_b(self) -> Decimal:
        return _CTX.subtract(self.after_b, self.before_b)


@dataclass(frozen=True, slots=True)
class EloResult:
    """Ratings after every game (best first, then by player id) and each game's change."""

    ratings: tuple[Rating, ...]
    changes: tuple[RatingChange, ...]

    def as_dict(self) -> dict[PlayerId, Rating]:
        return {r.player: r for r in self.ratings}

    def rating_of(self, player: PlayerId, config: EloConfig | None = None) -> Rating:
        """The player's rating, or the initial rating if they have no rated game."""
        for rating in self.ratings:
            if rating.player == player:
                return rating
        return Rating(player, Decimal((config or EloConfig()).initial), 0)


def expected_score(rating_a: Decimal | int, rating_b: Decimal | int, scale: int = 400) -> Decimal:
    """Expected score of A against B: ``1 / (1 + 10 ** ((R_b - R_a) / scale))``."""
    exponent = _CTX.divide(_CTX.subtract(Decimal(rating_b), Decimal(rating_a)), Decimal(scale))
    return _CTX.divide(_ONE, _CTX.add(_ONE, _CTX.power(Decimal(10), exponent)))


def update(
    rating_a: Decimal | int,
    rating_b: Decimal | int,
    score_a: Decimal,
    k_a: int,
    k_b: int | None = None,
    scale: int = 400,
) -> tuple[Decimal, Decimal]:
    """New (A, B) ratings after one game where A scored ``score_a`` (1, 0.5 or 0).

    ``k_b`` defaults to ``k_a``. With equal K the update is zero-sum.
    """
    if score_a not in (_ONE, _HALF, _ZERO):
        raise LeagueError(f"a game score is 1, 0.5 or 0 (got {score_a})")
    ra, rb = Decimal(rating_a), Decimal(rating_b)
    ea = expected_score(ra, rb, scale)
    eb = _CTX.subtract(_ONE, ea)
    sb = _CTX.subtract(_ONE, score_a)
    kb = k_a if k_b is None else k_b
    new_a = _CTX.add(ra, _CTX.multiply(Decimal(k_a), _CTX.subtract(score_a, ea)))
    new_b = _CTX.add(rb, _CTX.multiply(Decimal(kb), _CTX.subtract(sb, eb)))
    return new_a, new_b


def _score_a(game: GameResult) -> Decimal:
    if game.winner is None:
        return _HALF
    return _ONE if game.winner == game.player_a else _ZERO


def rate(
    games: Iterable[GameResult],
    config: EloConfig | None = None,
    start: Mapping[PlayerId, Rating] | None = None,
) -> EloResult:
    """Replay ``games`` (one pool's confirmed games, OLDEST FIRST) into ratings.

    ``start`` continues from earlier ratings (e.g. a stored checkpoint); players not in it
    start at ``config.initial`` with no games.
    """
    config = config or EloConfig()
    current: dict[PlayerId, Rating] = dict(start or {})
    changes: list[RatingChange] = []
    initial = Decimal(config.initial)
    for game in games:
        a = current.get(game.player_a) or Rating(game.player_a, initial, 0)
        b = current.get(game.player_b) or Rating(game.player_b, initial, 0)
        new_a, new_b = update(
            a.value,
            b.value,
            _score_a(game),
            config.k_for(a.games),
            config.k_for(b.games),
            config.scale,
        )
        changes.append(
            RatingChange(
                game=game,
                before_a=a.value,
                before_b=b.value,
                after_a=new_a,
                after_b=new_b,
                expected_a=expected_score(a.value, b.value, config.scale),
            )
        )
        current[game.player_a] = Rating(game.player_a, new_a, a.games + 1)
        current[game.player_b] = Rating(game.player_b, new_b, b.games + 1)
    ratings = sorted(current.values(), key=lambda r: (-r.value, r.player))
    return EloResult(ratings=tuple(ratings), changes=tuple(changes))
