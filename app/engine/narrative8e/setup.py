"""Before the first turn: who attacks, hidden deployment, the preliminary bombardment, the dawn
raid and who takes the first turn.

Every die comes from a :class:`~app.engine.roller.Roller` and is labelled; functions return
frozen results, and :class:`HiddenDeployment` is an immutable state machine (each step returns
the next state), so the match layer can store and replay them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from app.engine.errors import EngineError
from app.engine.narrative8e.pack import (
    AttackerSelection,
    BombardmentRule,
    FirstTurn,
    HiddenDeploymentMode,
    Mission,
    Side,
)
from app.engine.roller import Roller

__all__ = [
    "MAX_POWER_LEVEL",
    "MAX_ROLL_OFFS",
    "MAX_TOKENS",
    "BombardmentHit",
    "BombardmentTarget",
    "DeploymentPhase",
    "FirstTurnResult",
    "HiddenDeployment",
    "NarrativeError",
    "Player",
    "Reveal",
    "RoleChoice",
    "RollOff",
    "check_power_levels",
    "choose_roles",
    "dawn_raid_modifier",
    "first_turn",
    "iron_discipline",
    "preliminary_bombardment",
    "roll_off",
]

MAX_ROLL_OFFS = 50
MAX_TOKENS = 64
MAX_POWER_LEVEL = 100
"""A unit's Power Level as a player enters it: 1 to 100 (docs/rulings/narrative-8e.md, 85)."""


class NarrativeError(EngineError):
    """A narrative-mission step that the rules do not allow (the message says why)."""


class Player(enum.StrEnum):
    """The two players as the match knows them, before roles are given."""

    A = "a"
    B = "b"

    @property
    def other(self) -> Player:
        return Player.B if self is Player.A else Player.A


@dataclass(frozen=True, slots=True)
class RollOff:
    """A roll-off, re-rolling ties: every pair of dice, and the winner."""

    rolls: tuple[tuple[int, int], ...]
    winner: Player


def roll_off(roller: Roller, label: str) -> RollOff:
    """Each player rolls a D6 (A then B), ties re-rolled; the higher die wins [L279]."""
    rolls: list[tuple[int, int]] = []
    for _ in range(MAX_ROLL_OFFS):
        a = roller.d6(f"{label}: player A", stage="roll_off")
        b = roller.d6(f"{label}: player B", stage="roll_off")
        rolls.append((a, b))
        if a != b:
            return RollOff(tuple(rolls), Player.A if a > b else Player.B)
    raise NarrativeError(f"{label}: {MAX_ROLL_OFFS} tied roll-offs in a row")


@dataclass(frozen=True, slots=True)
class RoleChoice:
    attacker: Player
    reason: str
    """``"higher"`` (worth more), ``"ratio"`` (worth at least the mission's ratio more) or
    ``"roll_off"``."""
    roll_off: RollOff | None = None

    @property
    def defender(self) -> Player:
        return self.attacker.other


def choose_roles(mission: Mission, value_a: int, value_b: int, roller: Roller) -> RoleChoice:
    """Who should be the Attacker: the army worth more (points, or Power Level) [L125]; in
    Patrol, only an army worth at least 4/3 of the other [L265]; otherwise a roll-off whose
    winner attacks (ties re-rolled). It is a suggestion the players may override (rulings)."""
    if value_a < 0 or value_b < 0:
        raise NarrativeError("army values cannot be negative")
    high = Player.A if value_a >= value_b else Player.B
    hv, lv = max(value_a, value_b), min(value_a, value_b)
    if mission.attacker_selection is AttackerSelection.HIGHER and hv > lv:
        return RoleChoice(high, "higher")
    if (
        mission.attacker_selection is AttackerSelection.RATIO
        and hv > lv
        and hv * mission.ratio_denominator >= lv * mission.ratio_numerator
    ):
        return RoleChoice(high, "ratio")
    ro = roll_off(roller, "who attacks")
    return RoleChoice(ro.winner, "roll_off", ro)


def check_power_levels(units: Iterable[str], levels: Mapping[str, object]) -> dict[str, int]:
    """The Power Levels a player enters for their ``units`` (value measure ``"power"``,
    rulings 1 and 85): every unit once, each a whole number from 1 to
    :data:`MAX_POWER_LEVEL`; the levels by unit, or :class:`NarrativeError` saying what is
    wrong (units not theirs, values out of bounds, units missing)."""
    own = list(units)
    strangers = sorted(str(u) for u in levels if u not in own)
    if strangers:
        raise NarrativeError(f"not your units: {', '.join(strangers[:10])}")
    bad = sorted(
        str(u)
        for u, v in levels.items()
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_POWER_LEVEL
    )
    if bad:
        raise NarrativeError(
            f"a Power Level is a whole number from 1 to {MAX_POWER_LEVEL}: {', '.join(bad[:10])}"
        )
    missing = [u for u in own if u not in levels]
    if missing:
        raise NarrativeError(f"enter the Power Level of every unit: {', '.join(missing[:10])}")
    return {u: v for u in own if isinstance(v := levels[u], int)}


@dataclass(frozen=True, slots=True)
class FirstTurnResult:
    first: Side
    dice: tuple[int, ...] = ()
    chosen_by: Side | None = None
    stolen: bool = False


def first_turn(
    mission: Mission,
    roller: Roller,
    *,
    roll_off_winner_goes_first: bool = True,
    known_ground: Side | None = None,
    lightning_reaction: bool = False,
) -> FirstTurnResult:
    """Who takes the first turn.

    - ``attacker``: the Attacker [L209]; *Lightning Reaction* (the Defender rolls a D6, a 6
      steals the first turn [L247]) is applied when ``lightning_reaction``;
    - ``attacker_d6``: the Attacker rolls a D6, 1-3 the Attacker goes first, 4-6 the Defender
      [L143];
    - ``roll_off_choose``: the sides roll off, re-rolling ties; the winner chooses
      (``roll_off_winner_goes_first``) [L279]. *Known Ground* (``known_ground`` names the side
      that used it) rolls two dice for that side and keeps the best [L327].
    """
    if mission.first_turn is FirstTurn.ATTACKER:
        if lightning_reaction:
            die = roller.d6("Lightning Reaction", stage="first_turn")
            if die == 6:
                return FirstTurnResult(Side.DEFENDER, (die,), stolen=True)
            return FirstTurnResult(Side.ATTACKER, (die,))
        return FirstTurnResult(Side.ATTACKER)
    if lightning_reaction:
        raise NarrativeError("Lightning Reaction is only for a mission where the Attacker starts")
    if mission.first_turn is FirstTurn.ATTACKER_D6:
        die = roller.d6("first turn (Attacker rolls)", stage="first_turn")
        side = Side.ATTACKER if die <= mission.attacker_first_up_to else Side.DEFENDER
        return FirstTurnResult(side, (die,))
    dice: list[int] = []
    for _ in range(MAX_ROLL_OFFS):
        att = _best_of(roller, "first turn: Attacker", 2 if known_ground is Side.ATTACKER else 1)
        dfn = _best_of(roller, "first turn: Defender", 2 if known_ground is Side.DEFENDER else 1)
        dice += [att, dfn]
        if att != dfn:
            winner = Side.ATTACKER if att > dfn else Side.DEFENDER
            loser = Side.DEFENDER if winner is Side.ATTACKER else Side.ATTACKER
            first = winner if roll_off_winner_goes_first else loser
            return FirstTurnResult(first, tuple(dice), chosen_by=winner)
    raise NarrativeError(f"first turn: {MAX_ROLL_OFFS} tied roll-offs in a row")


def _best_of(roller: Roller, label: str, count: int) -> int:
    return max(roller.roll_many(count, 6, label, stage="first_turn"))


# -- hidden deployment -------------------------------------------------------------------------


class DeploymentPhase(enum.StrEnum):
    PLACING = "placing"
    """Tokens are being prepared (decoys may be added)."""
    PLACED = "placed"
    """Tokens are on the table; the other side deploys; *Spies* may force one reveal."""
    REVEALED = "revealed"


@dataclass(frozen=True, slots=True)
class Reveal:
    token: str
    unit: str | None
    """``None``: a decoy, removed with no other effect [L177]."""
    forced: bool = False


@dataclass(frozen=True, slots=True)
class HiddenDeployment:
    """Hidden deployment [L46-L52]: one unique token per unit set up at the start (a transport
    only, not its passengers [L50]), the secret mapping kept by the deploying side, the other
    side deploys, then every token is revealed and its unit set up with its first model on the
    token, wholly in the zone. Reversed in Ambush: the Attacker uses tokens [L205].

    :meth:`public_view` is what the opponent may see: token ids, and the unit of a token only
    once it is revealed. :meth:`owner_view` is for the deploying side.
    """

    deployer: Side
    mapping: Mapping[str, str | None] = field(default_factory=dict)
    phase: DeploymentPhase = DeploymentPhase.PLACING
    decoys_allowed: int = 0
    revealed: tuple[Reveal, ...] = ()

    @classmethod
    def for_mission(cls, mission: Mission) -> HiddenDeployment:
        mode = mission.rules.hidden_deployment
        if mode is HiddenDeploymentMode.NONE:
            raise NarrativeError(f"{mission.id} does not use hidden deployment")
        side = Side.ATTACKER if mode is HiddenDeploymentMode.REVERSED else Side.DEFENDER
        return cls(deployer=side)

    def add_decoys(self, count: int) -> HiddenDeployment:
        """*Decoys*: ``count`` (2 [L177]) more tokens, before any token is placed."""
        if self.phase is not DeploymentPhase.PLACING:
            raise NarrativeError("decoys are added before the tokens are placed")
        if count < 1:
            raise NarrativeError("add at least one decoy")
        return replace(self, decoys_allowed=self.decoys_allowed + count)

    def place(
        self,
        units: Iterable[str],
        tokens: Mapping[str, str | None],
        *,
        embarked: Iterable[str] = (),
    ) -> HiddenDeployment:
        """Place the tokens: ``tokens`` maps each token id to a unit id (``None`` for a decoy).

        ``units`` are the units set up at the start; ``embarked`` those inside a transport,
        which get no token. Every other unit needs exactly one token.
        """
        if self.phase is not DeploymentPhase.PLACING:
            raise NarrativeError("the tokens are already placed")
        if len(tokens) > MAX_TOKENS:
            raise NarrativeError(f"at most {MAX_TOKENS} tokens")
        inside = set(embarked)
        needed = [u for u in units if u not in inside]
        problems: list[str] = []
        mapped = [u for u in tokens.values() if u is not None]
        for u in sorted(set(mapped)):
            if mapped.count(u) > 1:
                problems.append(f"unit {u!r} has {mapped.count(u)} tokens")
            if u in inside:
                problems.append(f"unit {u!r} is embarked: only its transport gets a token")
            elif u not in needed:
                problems.append(f"unit {u!r} is not one of the units deployed")
        for u in needed:
            if u not in mapped:
                problems.append(f"unit {u!r} has no token")
        decoys = sum(1 for u in tokens.values() if u is None)
        if decoys > self.decoys_allowed:
            problems.append(f"{decoys} decoys, but only {self.decoys_allowed} allowed")
        if any(not t or len(t) > 40 for t in tokens):
            problems.append("token ids are 1 to 40 characters")
        if problems:
            raise NarrativeError("; ".join(problems))
        return replace(self, mapping=dict(tokens), phase=DeploymentPhase.PLACED)

    def _revealed_tokens(self) -> set[str]:
        return {r.token for r in self.revealed}

    def force_reveal(self, token: str) -> HiddenDeployment:
        """*Spies*: the opponent picks a token once all are placed; it is revealed and its unit
        set up at once, first model on the token [L167]."""
        if self.phase is not DeploymentPhase.PLACED:
            raise NarrativeError("a token can be forced open only after all tokens are placed")
        if token not in self.mapping:
            raise NarrativeError(f"no token {token!r}")
        if token in self._revealed_tokens():
            raise NarrativeError(f"token {token!r} is already revealed")
        reveal = Reveal(token, self.mapping[token], forced=True)
        return replace(self, revealed=(*self.revealed, reveal))

    def reveal_all(self) -> HiddenDeployment:
        """After the other side has deployed, every remaining token is revealed."""
        if self.phase is not DeploymentPhase.PLACED:
            raise NarrativeError("the tokens are not placed yet")
        done = self._revealed_tokens()
        rest = tuple(Reveal(t, u) for t, u in self.mapping.items() if t not in done)
        return replace(self, revealed=(*self.revealed, *rest), phase=DeploymentPhase.REVEALED)

    def public_view(self) -> dict[str, object]:
        """What the opponent may see (never the unrevealed part of the mapping)."""
        shown = {r.token: r for r in self.revealed}
        return {
            "deployer": self.deployer.value,
            "phase": self.phase.value,
            "tokens": [
                {"token": t}
                if t not in shown
                else {
                    "token": t,
                    "unit": shown[t].unit,
                    "decoy": shown[t].unit is None,
                    "forced": shown[t].forced,
                }
                for t in self.mapping
            ],
        }

    def owner_view(self) -> dict[str, object]:
        view = self.public_view()
        view["mapping"] = dict(self.mapping)
        view["decoys_allowed"] = self.decoys_allowed
        return view


# -- preliminary bombardment --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BombardmentTarget:
    """One enemy unit on the battlefield (units inside a transport are not rolled for [L64])."""

    unit: str
    infantry: bool = False
    embarked: bool = False
    go_to_ground: bool = False
    """The player's choice should the unit be hit (INFANTRY only)."""
    hit_on: int | None = None
    """*Intensive Bombardment* for this unit: 4 [L379]."""
    dice: int = 1
    """*Sustained Bombardment* for this unit: 3 [L163]."""
    foxholes: bool = False
    """*Foxholes*: the mortal wounds are halved, rounding up [L181] (rulings A9)."""


@dataclass(frozen=True, slots=True)
class BombardmentHit:
    unit: str
    dice: tuple[int, ...]
    hit: bool
    mortal_wounds: int = 0
    went_to_ground: bool = False
    damage_roll: int = 0


def preliminary_bombardment(
    rule: BombardmentRule, targets: Iterable[BombardmentTarget], roller: Roller
) -> tuple[BombardmentHit, ...]:
    """The Attacker rolls for each enemy unit at the start of round 1 [L64]: a 6 (or the
    target's ``hit_on``) hits; a unit hit suffers D6 mortal wounds, or D3 if it is INFANTRY and
    goes to ground (it then does nothing in its first turn). With several dice (*Sustained
    Bombardment*) the unit is hit once if any die succeeds (rulings A8)."""
    out: list[BombardmentHit] = []
    for t in targets:
        if t.embarked:
            continue
        if t.go_to_ground and not t.infantry:
            raise NarrativeError(f"{t.unit}: only INFANTRY can go to ground")
        if not 1 <= t.dice <= 3:
            raise NarrativeError(f"{t.unit}: 1 to 3 bombardment dice")
        hit_on = t.hit_on if t.hit_on is not None else rule.hit_on
        dice = tuple(roller.roll_many(t.dice, 6, f"bombardment: {t.unit}", stage="bombardment"))
        if not any(d >= hit_on for d in dice):
            out.append(BombardmentHit(t.unit, dice, False))
            continue
        kind = rule.ground_damage if t.go_to_ground else rule.damage
        sides = 3 if kind == "D3" else 6
        damage = roller.roll(sides, f"bombardment damage: {t.unit}", stage="bombardment")
        mw = -(-damage // 2) if t.foxholes else damage
        out.append(BombardmentHit(t.unit, dice, True, mw, t.go_to_ground, damage))
    return tuple(out)


def iron_discipline(grounded: Iterable[str], roller: Roller, on: int = 2) -> dict[str, bool]:
    """*Iron Discipline*: a D6 per unit that went to ground; on 2+ it acts normally [L255]."""
    return {u: roller.d6(f"Iron Discipline: {u}", stage="bombardment") >= on for u in grounded}


def dawn_raid_modifier(
    round_: int,
    phase: str,
    *,
    active: bool,
    rounds: int = 1,
    modifier: int = -1,
    night_vision: bool = False,
) -> int:
    """The hit modifier of the dawn raid: -1 in the Shooting phase of the first round [L58],
    of the first ``rounds`` rounds with *Night Raider* (1 + CP spent [L233]); 0 for a unit
    using *Night-vision Equipment* this phase [L237]."""
    if not active or night_vision or phase != "shooting" or round_ > rounds:
        return 0
    return modifier
