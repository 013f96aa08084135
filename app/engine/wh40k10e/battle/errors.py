"""The stable refusal codes of a 10th-edition match, and a helper to raise them."""

from __future__ import annotations

import enum

from app.engine.match.codec import JsonValue
from app.engine.match.errors import Refusal, RefusalKind

__all__ = ["Code", "refuse"]


class Code(enum.StrEnum):
    # who may act
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_UNIT = "not_your_unit"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_YOUR_CHOICE = "not_your_choice"
    # input
    BAD_COMMAND = "bad_command"
    INVALID_SETUP = "invalid_setup"
    UNSUPPORTED_MISSION = "unsupported_mission"
    UNKNOWN_UNIT = "unknown_unit"
    UNKNOWN_MARKER = "unknown_marker"
    UNKNOWN_STRATAGEM = "unknown_stratagem"
    BAD_POSITION = "bad_position"
    BAD_CASUALTIES = "bad_casualties"
    BAD_ALLOCATION = "bad_allocation"
    BAD_TARGET = "bad_target"
    LONE_OPERATIVE = "lone_operative"  # shot only within 12": the player must say so
    FIRING_DECK = "firing_deck"  # an embarked unit's weapons beyond x, or it already shot
    # where the match is
    MATCH_NOT_CREATED = "match_not_created"
    MATCH_ALREADY_CREATED = "match_already_created"
    WRONG_STAGE = "wrong_stage"
    WRONG_PHASE = "wrong_phase"
    WRONG_STEP = "wrong_step"
    BATTLE_OVER = "battle_over"
    BATTLE_NOT_OVER = "battle_not_over"
    WAITING_FOR_REACTION = "waiting_for_reaction"
    NO_REACTION_WINDOW = "no_reaction_window"
    COHERENCY_PENDING = "coherency_pending"  # the end-of-turn coherency check comes first
    NO_COHERENCY_CHECK = "no_coherency_check"
    # set-up
    FORMATIONS_NOT_REVEALED = "formations_not_revealed"
    FORMATIONS_ALREADY_REVEALED = "formations_already_revealed"
    INVALID_FORMATION = "invalid_formation"
    MARKER_ALREADY_PLACED = "marker_already_placed"
    NOT_DEPLOYABLE = "not_deployable"
    NOT_INFILTRATORS = "not_infiltrators"
    NOT_A_SCOUT = "not_a_scout"
    # units
    UNIT_DESTROYED = "unit_destroyed"
    NOT_ON_BATTLEFIELD = "not_on_battlefield"
    # command phase
    SHOCK_TEST_NOT_NEEDED = "shock_test_not_needed"
    SHOCK_TESTS_PENDING = "shock_tests_pending"
    CP_GAIN_CAP = "cp_gain_cap"
    # movement
    ALREADY_MOVED = "already_moved"
    UNIT_ENGAGED = "unit_engaged"
    NOT_ENGAGED = "not_engaged"
    AIRCRAFT_MOVE = "aircraft_move"
    CANNOT_REMAIN_STATIONARY = "cannot_remain_stationary"
    CANNOT_EMBARK = "cannot_embark"
    TRANSPORT_FULL = "transport_full"
    TRANSPORT_REFUSES = "transport_refuses_unit"
    TRANSPORT_FIT_UNKNOWN = "transport_fit_unknown"
    NOT_EMBARKED = "not_embarked"
    CANNOT_DISEMBARK = "cannot_disembark"
    FORCED_DISEMBARK_PENDING = "forced_disembark_pending"
    DEADLY_DEMISE_PENDING = "deadly_demise_pending"
    NO_DEADLY_DEMISE = "no_deadly_demise"
    NOT_IN_RESERVES = "not_in_reserves"
    RESERVES_NOT_YET = "reserves_not_yet"
    AIRCRAFT_MUST_ARRIVE = "aircraft_must_arrive"
    # shooting
    ALREADY_SHOT = "already_shot"
    ALREADY_ATTACKED = "already_attacked"
    WEAPON_ALREADY_USED = "weapon_already_used"
    BAD_WEAPON = "bad_weapon"
    UNIT_ADVANCED = "unit_advanced"
    UNIT_FELL_BACK = "unit_fell_back"
    NOT_ELIGIBLE_TO_SHOOT = "not_eligible_to_shoot"
    ATTACK_NOT_DECLARED = "attack_not_declared"
    # charge
    ALREADY_DECLARED_CHARGE = "already_declared_charge"
    CANNOT_CHARGE = "cannot_charge"
    CHARGE_IN_PROGRESS = "charge_in_progress"
    NO_CHARGE_IN_PROGRESS = "no_charge_in_progress"
    CHARGE_ROLL_TOO_LOW = "charge_roll_too_low"
    # fight
    NOT_ELIGIBLE_TO_FIGHT = "not_eligible_to_fight"
    ALREADY_FOUGHT = "already_fought"
    FIGHT_IN_PROGRESS = "fight_in_progress"
    FIGHT_UNITS_REMAINING = "fight_units_remaining"
    MUST_FIGHT_NEXT = "must_fight_next"
    NOT_FIGHTING = "not_fighting"
    # stratagems and CP
    NOT_ENOUGH_CP = "not_enough_cp"
    STRATAGEM_USED_THIS_PHASE = "stratagem_used_this_phase"
    OVERWATCH_USED_THIS_TURN = "overwatch_used_this_turn"
    STRATAGEM_WRONG_TIME = "stratagem_wrong_time"
    STRATAGEM_NO_TRIGGER = "stratagem_no_trigger"
    STRATAGEM_BAD_TARGET = "stratagem_bad_target"
    BATTLE_SHOCKED = "battle_shocked"
    NOTHING_TO_REROLL = "nothing_to_reroll"
    # result
    RESULT_SETTLED = "result_settled"


_KIND_OF: dict[Code, RefusalKind] = {
    Code.NOT_A_PLAYER: RefusalKind.FORBIDDEN,
    Code.NOT_YOUR_UNIT: RefusalKind.FORBIDDEN,
    Code.BAD_COMMAND: RefusalKind.INPUT,
    Code.INVALID_SETUP: RefusalKind.INPUT,
    Code.UNSUPPORTED_MISSION: RefusalKind.INPUT,
    Code.UNKNOWN_UNIT: RefusalKind.INPUT,
    Code.UNKNOWN_MARKER: RefusalKind.INPUT,
    Code.UNKNOWN_STRATAGEM: RefusalKind.INPUT,
    Code.BAD_POSITION: RefusalKind.INPUT,
    Code.BAD_CASUALTIES: RefusalKind.INPUT,
    Code.BAD_ALLOCATION: RefusalKind.INPUT,
    Code.BAD_WEAPON: RefusalKind.INPUT,
}


def refuse(code: Code, message: str, **details: JsonValue) -> Refusal:
    """A refusal with ``code`` (its kind follows from the code: rules unless listed)."""
    return Refusal(str(code), message, kind=_KIND_OF.get(code, RefusalKind.RULES), details=details)
