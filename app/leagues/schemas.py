"""Pydantic schemas of leagues."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.core.ids import MAX_ID
from app.leagues.standings import DEFAULT_TIE_BREAKERS, MAX_VICTORY_POINTS, TieBreaker

MAX_POINTS = 100
MAX_SEED = 2**31 - 1
MAX_MISSIONS = 40
MAX_ROUNDS = 50

FormatName = Literal["round_robin", "swiss", "ladder"]
VisibilityName = Literal["public", "private"]
ResultName = Literal["player_a", "player_b", "draw"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _clean(value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise ValueError("must not be blank")
    return value


def _missions(value: list[str]) -> list[str]:
    cleaned = [" ".join(m.split()) for m in value]
    return [m for m in dict.fromkeys(cleaned) if m]


def _unique_tie_breakers(value: list[TieBreaker]) -> list[TieBreaker]:
    if len(set(value)) != len(value):
        raise ValueError("each tie-breaker may be listed once")
    return value


class ScoringIn(Strict):
    win: int = Field(default=3, ge=0, le=MAX_POINTS)
    draw: int = Field(default=1, ge=0, le=MAX_POINTS)
    loss: int = Field(default=0, ge=0, le=MAX_POINTS)
    bye: int | None = Field(
        default=None, ge=0, le=MAX_POINTS, description="Points of a bye (default: a win's)"
    )

    @model_validator(mode="after")
    def _ordered(self) -> ScoringIn:
        if not self.loss <= self.draw <= self.win:
            raise ValueError("points must satisfy loss <= draw <= win")
        return self


class LadderIn(Strict):
    max_meetings: int | None = Field(
        default=None, ge=1, le=100, description="Games the same two players may play each other"
    )
    max_games: int | None = Field(
        default=None, ge=1, le=1000, description="Games one player may play in the league"
    )
    no_back_to_back: bool = Field(
        default=False, description="Refuse a game against the opponent of your last game"
    )


class LeagueCreate(Strict):
    club_id: int = Field(ge=1, le=MAX_ID)
    name: str = Field(min_length=1, max_length=80)
    description: str = Field(default="", max_length=1000)
    rule_system: str = Field(min_length=1, max_length=40, description="A rule system id")
    battle_size: str = Field(default="", max_length=40, description='e.g. "Strike Force"')
    points_limit: int | None = Field(default=None, ge=1, le=100_000)
    mission_pool: list[str] = Field(
        default_factory=list,
        max_length=MAX_MISSIONS,
        description="Mission names or ids (free text)",
    )
    starts_on: date | None = None
    ends_on: date | None = None
    format: FormatName
    rounds: int | None = Field(
        default=None, ge=1, le=MAX_ROUNDS, description="Number of rounds (Swiss, required)"
    )
    legs: int = Field(default=1, ge=1, le=2, description="Round robin: 2 for a double one")
    scoring: ScoringIn = Field(default_factory=ScoringIn)
    tie_breakers: list[TieBreaker] = Field(
        default_factory=lambda: list(DEFAULT_TIE_BREAKERS),
        max_length=len(TieBreaker),
        description="Applied in this order to players level on points",
    )
    ladder: LadderIn = Field(default_factory=LadderIn)
    visibility: VisibilityName = Field(
        default="private",
        description="private: club members only; public: anyone who may see the club",
    )
    seed: int | None = Field(
        default=None, ge=0, le=MAX_SEED, description="Seed of the Swiss draws (random if omitted)"
    )

    _name = field_validator("name")(_clean)
    _missions = field_validator("mission_pool")(_missions)
    _tb = field_validator("tie_breakers")(_unique_tie_breakers)

    @field_validator("mission_pool")
    @classmethod
    def _mission_length(cls, value: list[str]) -> list[str]:
        if any(len(m) > 80 for m in value):
            raise ValueError("a mission name has at most 80 characters")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> LeagueCreate:
        if self.starts_on and self.ends_on and self.ends_on < self.starts_on:
            raise ValueError("the end date is before the start date")
        if self.format == "swiss" and self.rounds is None:
            raise ValueError("a Swiss league needs its number of rounds")
        return self


class LeagueUpdate(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=80)
    description: str | None = Field(default=None, max_length=1000)
    rule_system: str | None = Field(default=None, min_length=1, max_length=40)
    battle_size: str | None = Field(default=None, max_length=40)
    points_limit: int | None = Field(default=None, ge=1, le=100_000)
    mission_pool: list[str] | None = Field(default=None, max_length=MAX_MISSIONS)
    starts_on: date | None = None
    ends_on: date | None = None
    format: FormatName | None = None
    rounds: int | None = Field(default=None, ge=1, le=MAX_ROUNDS)
    legs: int | None = Field(default=None, ge=1, le=2)
    scoring: ScoringIn | None = None
    tie_breakers: list[TieBreaker] | None = Field(default=None, max_length=len(TieBreaker))
    ladder: LadderIn | None = None
    visibility: VisibilityName | None = None
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
    status: Literal["registration", "running", "finished"] | None = Field(
        default=None, description="Forward only: registration -> running -> finished"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else _clean(value)

    @field_validator("mission_pool")
    @classmethod
    def _mission_pool(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        cleaned = _missions(value)
        if any(len(m) > 80 for m in cleaned):
            raise ValueError("a mission name has at most 80 characters")
        return cleaned

    @field_validator("tie_breakers")
    @classmethod
    def _tie_breakers(cls, value: list[TieBreaker] | None) -> list[TieBreaker] | None:
        return None if value is None else _unique_tie_breakers(value)


class RegistrationCreate(Strict):
    army_id: int = Field(ge=1, le=MAX_ID, description="One of your army lists, marked ready")


class SnapshotReplace(Strict):
    army_id: int = Field(
        ge=1, le=MAX_ID, description="One of the PLAYER's army lists, marked ready"
    )


class LadderGameCreate(Strict):
    player_a: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ID,
        description="A registration id (default: your own registration)",
    )
    player_b: int = Field(ge=1, le=MAX_ID, description="The opponent's registration id")


class ResultIn(Strict):
    result: ResultName = Field(description="Who won: player_a, player_b, or draw")
    vp_a: int = Field(default=0, ge=0, le=MAX_VICTORY_POINTS, description="Player A's VP")
    vp_b: int = Field(default=0, ge=0, le=MAX_VICTORY_POINTS, description="Player B's VP")


REPORT_VERSION_DOC = (
    "The game's `report_version` as you saw it (from the game's JSON): the result you answer. "
    "If the result was changed since, the request is refused with 409 `report-changed`, whose "
    "body shows the current result; look at it and answer again."
)


class ConfirmIn(Strict):
    report_version: int = Field(ge=0, le=MAX_ID, description=REPORT_VERSION_DOC)


class DisputeIn(Strict):
    note: str = Field(min_length=1, max_length=500, description="What is wrong with the result")
    report_version: int = Field(ge=0, le=MAX_ID, description=REPORT_VERSION_DOC)

    _note = field_validator("note")(_clean)


# -- answers --------------------------------------------------------------------------------


class ExactOut(BaseModel):
    exact: str = Field(description='A reduced fraction "p/q", or "p" when q = 1.')
    approx: float


class ScoringOut(BaseModel):
    win: int
    draw: int
    loss: int
    bye: int


class LadderOut(BaseModel):
    max_meetings: int | None
    max_games: int | None
    no_back_to_back: bool


class YouOut(BaseModel):
    is_admin: bool
    is_member: bool
    registration_id: int | None


class LeagueOut(BaseModel):
    id: int
    club_id: int
    club_name: str
    name: str
    description: str
    rule_system: str
    battle_size: str
    points_limit: int | None
    mission_pool: list[str]
    starts_on: date | None
    ends_on: date | None
    format: FormatName
    rounds: int | None = Field(description="Rounds planned (Swiss) or in the schedule (RR)")
    rounds_generated: int
    legs: int
    scoring: ScoringOut
    tie_breakers: list[TieBreaker]
    ladder: LadderOut
    visibility: VisibilityName
    status: Literal["registration", "running", "finished"]
    seed: int
    player_count: int
    created_at: datetime
    you: YouOut


class PlayerRef(BaseModel):
    registration_id: int
    user_id: int
    display_name: str


class RegistrationOut(PlayerRef):
    league_id: int
    army_id: int | None
    army_name: str
    registered_at: datetime
    snapshot: dict[str, Any] = Field(description="The army list as locked for this league")
    snapshot_replaced_by_id: int | None
    snapshot_replaced_at: datetime | None


class GameOut(BaseModel):
    id: int
    league_id: int
    round: int | None
    table: int | None
    player_a: PlayerRef
    player_b: PlayerRef
    status: Literal["scheduled", "reported", "confirmed", "disputed"]
    result: ResultName | None
    winner_registration_id: int | None
    winner_user_id: int | None
    vp_a: int | None
    vp_b: int | None
    accepted_a: bool = Field(description="Player A has accepted the reported result")
    accepted_b: bool
    reported_by_id: int | None
    reported_at: datetime | None
    confirmed_by_id: int | None
    confirmed_at: datetime | None
    disputed_by_id: int | None
    dispute_note: str
    settled_by_id: int | None
    settled_at: datetime | None
    match_id: int | None
    report_version: int = Field(
        description="Counts the results written to this game (report, correction, settlement, "
        "tracked match); a confirm or dispute names the one it answers"
    )


class RoundOut(BaseModel):
    number: int
    bye: PlayerRef | None
    rematches: int = Field(description="Rematches this round had to make (0 unless unavoidable)")
    created_at: datetime
    games: list[GameOut]


class StandingOut(BaseModel):
    rank: int
    tied: bool
    player: PlayerRef
    points: ExactOut
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    vp_for: int
    vp_against: int
    vp_difference: int
    strength_of_schedule: ExactOut
    opponents_win_rate: ExactOut
    decided_by: TieBreaker | None = Field(
        description="The tie-breaker that put this row above the next (null: points or a tie)"
    )


class StandingsOut(BaseModel):
    league_id: int
    scoring: ScoringOut
    tie_breakers: list[TieBreaker]
    rows: list[StandingOut]


class RatingOut(BaseModel):
    user_id: int
    display_name: str
    rating: int = Field(description="Rounded to the nearest point (halves up)")
    exact: str = Field(description="The unrounded rating, as a decimal string")
    games: int


class EloOut(BaseModel):
    club_id: int
    rule_system: str
    scope: Literal["all", "public"] = Field(
        description="all: every league of the club (members); public: public leagues only"
    )
    initial: int
    k: int
    ratings: list[RatingOut]
