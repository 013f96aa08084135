"""Request and response bodies of the match API (every field bounded)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.ids import MAX_ID

UnitId = Annotated[str, Field(min_length=1, max_length=64)]
Die = Annotated[int, Field(ge=1, le=6)]
MAX_DICE = 500


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchOptions(Strict):
    """Settings where the rules leave a choice (docs/rulings/wh40k10e-battle.md)."""

    starting_cp: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description="CP each player starts with; unset: the mission's (0; a narrative "
        "mission: its pack's, 3, so its set-up stratagems can be paid)",
    )
    deep_strike_from_round: int = Field(default=1, ge=1, le=5)
    aircraft_count_toward_reserve_cap: bool = False
    prompt_rapid_ingress: bool = True
    battle_shocked_fall_back_tests_fly: bool = True
    battle_forged: bool = Field(
        default=True,
        description="Narrative missions: both armies are Battle-forged, so mission "
        "stratagems may be used [seed 003 L125] (an army built in the app is)",
    )
    combat_zone: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="A combat zone of the narrative packs the battle is fought in, agreed "
        "before deployment [seed 003 L571] (night-fight, fire-and-fury, psychic-maelstrom); "
        "none by default",
    )
    expansion: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Narrative missions only: the expansion the scenario is played with "
        "[seed 003 L671-L919] (planetstrike, cities-of-death, stronghold-assault, "
        "death-from-the-skies); none by default",
    )


class MatchCreate(Strict):
    ruleset: str = Field(
        default="wh40k-10e",
        min_length=1,
        max_length=32,
        description='The rule system played (GET /api/v1/rulesets: capability "match")',
    )
    army_id: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ID,
        description="One of your army lists marked ready (none in a rule system whose seats "
        "play the mission's forces, e.g. Black Reach)",
    )
    mission: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="A mission of the rule system (GET /matches/missions?ruleset=...); "
        "default: the system's first (only-war for the 10th edition)",
    )
    battle_size: str | None = Field(
        default=None,
        min_length=1,
        max_length=32,
        description="A battle size of the mission; default: the system's usual one "
        "(strike_force for the 10th edition)",
    )
    opponent: Literal["user", "guest"] = Field(
        default="user",
        description="'user': a registered player joins with the invitation code; "
        "'guest': a guest seat reached through its own secret link",
    )
    league_game_id: int | None = Field(default=None, ge=1, le=MAX_ID)
    options: dict[str, Any] | None = Field(
        default=None,
        max_length=20,
        description="The rule system's options: for the 10th edition, the fields of "
        "MatchOptions; a PEN match takes none",
    )


class JoinRequest(Strict):
    code: str = Field(min_length=4, max_length=64, description="The invitation code")
    army_id: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ID,
        description="One of your army lists marked ready (none in a rule system whose seats "
        "play the mission's forces, e.g. Black Reach)",
    )


class GuestJoin(Strict):
    token: str = Field(min_length=10, max_length=200, description="The guest seat's link token")
    name: str = Field(default="Guest", min_length=1, max_length=60)
    sample: str | None = Field(default=None, max_length=64, description="A sample list id")
    army: dict[str, Any] | None = Field(
        default=None, description="An army list as our JSON export (instead of a sample)"
    )


class CommandRequest(Strict):
    expected_version: int = Field(ge=0, le=10_000_000, description="The version you acted on")
    command: dict[str, Any] = Field(
        description='A command: {"type": kind, ...fields}; a concession must say it is '
        'confirmed: {"type": "concede", "confirm": true}'
    )
    dice: list[Die] | None = Field(
        default=None, max_length=MAX_DICE, description="Dice rolled by hand (else the server rolls)"
    )


class WeaponPick(Strict):
    unit: UnitId | None = Field(
        default=None, description="The part of an Attached unit carrying it (default: attacker)"
    )
    weapon: str = Field(min_length=1, max_length=200, description="A weapon profile name")
    models: int = Field(ge=1, le=200, description="How many models attack with it")


class AttackRequest(Strict):
    attacker: UnitId
    target: UnitId
    weapons: list[WeaponPick] = Field(min_length=1, max_length=8)
    situation: dict[str, bool | int | str] | None = Field(
        default=None,
        max_length=30,
        description="The combat contract's situation (half_range, cover...); what the match "
        "knows (remained stationary, charged, Go to Ground...) is filled in",
    )


class ResolveRequest(AttackRequest):
    expected_version: int = Field(ge=0, le=10_000_000)
    dice: list[Die] | None = Field(default=None, max_length=MAX_DICE)


# -- responses --------------------------------------------------------------------------------


class PlayerOut(BaseModel):
    name: str
    army: str | None
    faction: str | None
    points: int | None
    guest: bool = False


class InvitationOut(BaseModel):
    code: str | None = None
    join_url: str | None = None
    guest_url: str | None = None


class MatchOut(BaseModel):
    id: int
    ruleset: str = Field(description="The rule system played")
    rule_system: str = Field(description="The same as ruleset (kept for older clients)")
    mission: str
    battle_size: str
    status: str
    opponent: str
    seat: Literal["A", "B"]
    players: dict[str, PlayerOut]
    version: int
    round: int
    vp: dict[str, int]
    winner: str | None
    league_game_id: int | None
    league_reported: bool = Field(
        default=False, description="The confirmed result was reported to the league game"
    )
    league_report_error: str | None = Field(
        default=None,
        description="Why the confirmed result could not be reported to the league game, as a "
        "problem code ('league-game-not-found', 'game-state-conflict', 'invalid-result'): the "
        "players report it by hand on the league's page (or ask a club admin)",
    )
    created_at: datetime
    updated_at: datetime
    invitation: InvitationOut | None = Field(
        default=None, description="For the creator, while the opponent has not joined"
    )
    view: dict[str, Any] | None = Field(
        default=None, description="The battle as your seat may see it (null before it starts)"
    )


class MatchSummary(BaseModel):
    id: int
    ruleset: str
    mission: str
    battle_size: str
    status: str
    seat: Literal["A", "B"]
    players: dict[str, str]
    version: int
    round: int
    vp: dict[str, int]
    winner: str | None
    updated_at: datetime


class CommandResult(BaseModel):
    version: int
    events: list[dict[str, Any]] = Field(description="The new log entries you may see")
    view: dict[str, Any]
    actions: list[dict[str, Any]] | None = Field(
        default=None, description="With ?actions=true: the commands your seat may send next"
    )


class ResolveResult(CommandResult):
    resolution: dict[str, Any] = Field(description="Every die and the totals of the roll")


class PreviewResult(BaseModel):
    request: dict[str, Any] = Field(description="The combat request built from the match")
    analysis: dict[str, Any] = Field(description="The exact distributions")


class SampleOut(BaseModel):
    id: str
    name: str
    faction: str
    points: int


class MissionSizeOut(BaseModel):
    id: str
    points: int
    name: dict[str, str]


class MissionOut(BaseModel):
    id: str
    name: dict[str, str]
    rounds: int
    battle_sizes: list[MissionSizeOut]


class PackMissionOut(BaseModel):
    id: str = Field(description="The mission id to name when creating a match")
    name: dict[str, str]


class MissionPackOut(BaseModel):
    """A narrative mission pack you uploaded (POST /matches/mission-packs)."""

    pack_id: str
    name: dict[str, str]
    missions: list[PackMissionOut]
    updated_at: datetime


# -- an imported snapshot (untrusted: every field bounded) --------------------------------------


class WeaponIn(Strict):
    name: str = Field(min_length=1, max_length=200)
    kind: Literal["ranged", "melee"]
    range: int | None = Field(default=None, ge=0, le=1000)
    attacks: str = Field(min_length=1, max_length=20)
    skill: int | None = Field(default=None, ge=2, le=6)
    strength: int = Field(ge=1, le=30)
    ap: int = Field(ge=-10, le=0)
    damage: str = Field(min_length=1, max_length=20)
    abilities: list[Annotated[str, Field(max_length=80)]] = Field(
        default_factory=list, max_length=20
    )
    models: int = Field(default=0, ge=0, le=200)
    group: str | None = Field(default=None, max_length=200)


class ProfileIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    toughness: int | None = Field(default=None, ge=1, le=30)
    save: int = Field(default=7, ge=2, le=7)
    wounds: int | None = Field(default=None, ge=1, le=100)
    invulnerable_save: int | None = Field(default=None, ge=2, le=6)
    feel_no_pain: int | None = Field(default=None, ge=2, le=6)


class SnapshotUnitIn(Strict):
    index: int = Field(ge=0, le=200)
    name: str = Field(min_length=1, max_length=120)
    datasheet: str = Field(max_length=120)
    models: int = Field(ge=1, le=200)
    wounds: int = Field(ge=1, le=100)
    model_wounds: list[Annotated[int, Field(ge=1, le=100)]] = Field(
        default_factory=list, max_length=200, description="Each model's own W (empty: all W)"
    )
    oc: int = Field(ge=0, le=20)
    leadership: int = Field(ge=2, le=12)
    points: int = Field(ge=0, le=10_000)
    keywords: list[Annotated[str, Field(max_length=80)]] = Field(max_length=64)
    abilities: list[Annotated[str, Field(max_length=40)]] = Field(max_length=16)
    scouts: int | None = Field(default=None, ge=1, le=24)
    leads: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=64)
    transport_capacity: int = Field(default=0, ge=0, le=200)
    toughness: int | None = Field(default=None, ge=1, le=30)
    deadly_demise: str = Field(default="", max_length=10, description="x of Deadly Demise x")
    firing_deck: int = Field(default=0, ge=0, le=200, description="x of Firing Deck x")
    profile: ProfileIn = Field(default_factory=ProfileIn)
    weapons: list[WeaponIn] = Field(default_factory=list, max_length=40)
    attached_to: int | None = Field(default=None, ge=0, le=200)


class SnapshotIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: str = Field(max_length=40)
    source: str = Field(default="import", max_length=20)
    name: str = Field(max_length=120)
    faction: str = Field(default="", max_length=120)
    detachment: str = Field(default="", max_length=200)
    catalogue_version: str | None = Field(default=None, max_length=200)
    points: int = Field(default=0, ge=0, le=100_000)
    units: list[SnapshotUnitIn] = Field(min_length=1, max_length=100)
    roster: dict[str, Any] | None = Field(default=None, description="The list's JSON export")
    options: MatchOptions | None = None
