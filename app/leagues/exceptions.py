"""Errors of the leagues feature."""

from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from app.core.i18n import lazy


class LeagueNotFound(NotFound):
    code, title = "league-not-found", lazy("League not found")


class GameNotFound(NotFound):
    code, title = "league-game-not-found", lazy("Game not found")


class RegistrationNotFound(NotFound):
    code, title = "registration-not-found", lazy("Registration not found")


class NotAClubMember(Forbidden):
    code, title = "club-member-required", lazy("Only the club's members may do this")


class NotYourGame(Forbidden):
    code, title = "not-your-game", lazy("Only the two players or a club admin may do this")


class NotTheOtherPlayer(Forbidden):
    code, title = "not-the-other-player", lazy("Only the other player may confirm or dispute")


class OwnGameSettlement(Forbidden):
    code, title = "own-game-settlement", lazy("An admin cannot settle a game they play in")


class RegistrationClosed(Conflict):
    code, title = "registration-closed", lazy("Registration is closed")


class AlreadyRegistered(Conflict):
    code, title = "already-registered", lazy("Already registered in this league")


class LeagueNotRunning(Conflict):
    code, title = "league-not-running", lazy("The league is not running")


class RoundNotAllowed(Conflict):
    code, title = "round-not-allowed", lazy("The next round cannot be generated")


class GameStateConflict(Conflict):
    code, title = "game-state-conflict", lazy("This game cannot do that now")


class ReportChanged(Conflict):
    code, title = "report-changed", lazy("The reported result has changed")


class LadderGameRefused(InvalidInput):
    code, title = "ladder-game-refused", lazy("This ladder game is not allowed")


class InvalidLeague(InvalidInput):
    code, title = "invalid-league", lazy("Invalid league settings")


class InvalidResult(InvalidInput):
    code, title = "invalid-result", lazy("Invalid result")


class ArmyNotReady(InvalidInput):
    code, title = "army-not-ready", lazy("This army list cannot be registered")


class TrackedMatchNotFound(NotFound):
    code, title = "tracked-match-not-found", lazy("No match plays this game")


class NotASpectatorManager(Forbidden):
    code, title = (
        "spectator-link-not-yours",
        lazy("Only the match's players and the league's organisers manage its spectator link"),
    )
