"""Match fixtures: API clients for several users, ready lists, a driver that plays over HTTP.

``armies`` replaces the army builder's ``ready_snapshot`` (through the matches adapter
``app.matches.armies.fetch_ready_list``) with :class:`FakeArmies`, whose lists are real roster
exports of the starter catalogue; the test ``test_armies.py`` also drives the real builder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.catalog.starter import starter_catalogue
from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from app.matches import armies as match_armies
from app.matches import reads, service
from app.matches.models import Match, MatchStatus, OpponentKind
from tests.support.web import api_token, csrf, html, register


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    reads.cache.clear()
    yield
    reads.cache.clear()


@pytest.fixture
def starter(db: Session) -> int:
    """The starter catalogue, loaded in the test's transaction; its row id."""
    from app.catalog import service as catalogs
    from app.catalog.starter import load

    load(db)
    db.commit()
    return catalogs.starter(db).id


@pytest.fixture
def browser(app: Any) -> Callable[[str], TestClient]:
    """A logged-in browser (session cookie), with its CSRF token ready."""

    def make(name: str) -> TestClient:
        client = TestClient(app, base_url="http://testserver")
        register(client, email=f"{name.lower()}@example.com", name=name)
        client.user_id = int(client.get("/api/v1/me").json()["id"])  # type: ignore[attr-defined]
        client.csrf = csrf(client, "/matches")  # type: ignore[attr-defined]
        client.headers["X-CSRF-Token"] = client.csrf  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def user_client(app) -> Callable[[str], TestClient]:  # type: ignore[no-untyped-def]
    """A new registered user's API client (bearer token, no cookies)."""

    def make(name: str) -> TestClient:
        client = TestClient(app)
        register(client, email=f"{name.lower()}@example.com", name=name)
        secret = api_token(client)
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {secret}"
        client.user_name = name  # type: ignore[attr-defined]
        client.user_id = int(client.get("/api/v1/me").json()["id"])  # type: ignore[attr-defined]
        return client

    return make


def marines(name: str = "Strike group") -> Roster:
    return Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Captain", warlord=True, attached_to=1),
            RosterUnit("Intercessor Squad", 5),
            RosterUnit("Terminator Squad", 5),
            RosterUnit("Scout Squad", 5),
            RosterUnit("Hellblaster Squad", 5),
            RosterUnit("Rhino"),
            RosterUnit("Tactical Squad", 10),
        ),
        name=name,
    )


def orks(name: str = "Waaagh") -> Roster:
    return Roster(
        "Orks",
        "War Horde",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Warboss", warlord=True, attached_to=1),
            RosterUnit("Boyz", 10),
            RosterUnit("Kommandos", 10),
            RosterUnit("Nobz", 5),
            RosterUnit("Battlewagon"),
            RosterUnit("Stormboyz", 5),
        ),
        name=name,
    )


@dataclass
class FakeArmies:
    """Stands in for app.armies.service.ready_snapshot: lists by (owner id, army id)."""

    catalogue_id: int
    lists: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    next_id: int = 100

    def ready(self, owner: TestClient, roster: Roster) -> int:
        """A ready list, in the shape app.armies.service.ready_snapshot answers."""
        self.next_id += 1
        self.lists[(owner.user_id, self.next_id)] = {  # type: ignore[attr-defined]
            "army_id": self.next_id,
            "name": roster.name,
            "rule_system": "wh40k-10e",
            "catalogue": {"id": self.catalogue_id, "slug": "starter-wh40k10e"},
            "catalogue_version": "starter",
            "faction": roster.faction,
            "detachment": roster.detachment,
            "battle_size": roster.battle_size.value,
            "export": roster.to_dict(),
        }
        return self.next_id

    def snapshot(self, db: Any, user: Any, army_id: int) -> dict[str, Any]:
        from app.armies.exceptions import ArmyNotFound

        found = self.lists.get((user.id, army_id))
        if found is None:
            raise ArmyNotFound()
        return dict(found)


@pytest.fixture
def armies(monkeypatch: pytest.MonkeyPatch, starter: int) -> FakeArmies:
    fake = FakeArmies(starter)
    monkeypatch.setattr("app.matches.armies.fetch_ready_list", fake.snapshot)
    return fake


def replay_view(db: Session, match_id: int, seat: str) -> dict[str, Any]:
    """The seat's view of a battle rebuilt from the stored rows alone (no cache)."""
    from sqlalchemy import select

    from app.engine.match import Envelope
    from app.engine.wh40k10e.battle import EVENT_CODEC, Battle
    from app.matches.models import MatchEvent

    rows = db.execute(
        select(MatchEvent).where(MatchEvent.match_id == match_id).order_by(MatchEvent.seq)
    ).scalars()
    battle = Battle([Envelope.from_json(reads.envelope_json(r), EVENT_CODEC) for r in rows])
    db.commit()
    return battle.view(seat)


class Player:
    """One seat's API client, keeping the latest version it saw. With ``db``, every accepted
    command checks that the replay of the stored rows gives the view the API answered."""

    def __init__(
        self, client: TestClient, match_id: int, seat: str, db: Session | None = None
    ) -> None:
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.version = 0
        self.last: dict[str, Any] = {}
        self.db = db
        self.checked = 0

    @property
    def base(self) -> str:
        return f"/api/v1/matches/{self.match_id}"

    def get(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.text
        data = r.json()
        self.version = data["version"]
        return data

    def view(self) -> dict[str, Any]:
        return self.get()["view"]

    def send(
        self,
        command: dict[str, Any],
        dice: Sequence[int] | None = None,
        *,
        version: int | None = None,
        status: int = 200,
    ) -> dict[str, Any]:
        if version is None:
            self.get()
            version = self.version
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if dice is not None:
            body["dice"] = list(dice)
        r = self.client.post(f"{self.base}/commands", json=body)
        assert r.status_code == status, (command, r.status_code, r.text)
        data = r.json()
        if status == 200:
            self.version = data["version"]
            self.last = data
            if self.db is not None:
                assert replay_view(self.db, self.match_id, self.seat) == data["view"]
                self.checked += 1
        return data

    def actions(self) -> list[dict[str, Any]]:
        r = self.client.get(f"{self.base}/actions")
        assert r.status_code == 200, r.text
        return r.json()["actions"]


@dataclass
class Game:
    a: Player
    b: Player
    match_id: int


@pytest.fixture
def new_game(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> Callable[..., Game]:
    """A match between two registered users (alice in seat A, bob in seat B)."""

    counter = iter(range(1000))

    def make(
        a_roster: Roster | None = None,
        b_roster: Roster | None = None,
        battle_size: str = "strike_force",
        *,
        check: bool = True,
    ) -> Game:
        n = next(counter)
        alice = user_client(f"Alice{n}" if n else "Alice")
        bob = user_client(f"Bob{n}" if n else "Bob")
        list_a = armies.ready(alice, a_roster or marines())
        list_b = armies.ready(bob, b_roster or orks())
        r = alice.post(
            "/api/v1/matches",
            json={"army_id": list_a, "battle_size": battle_size, "mission": "only-war"},
        )
        assert r.status_code == 201, r.text
        created = r.json()
        code = created["invitation"]["code"]
        r = bob.post("/api/v1/matches/join", json={"code": code, "army_id": list_b})
        assert r.status_code == 200, r.text
        match_id = created["id"]
        return Game(
            Player(alice, match_id, "A", db if check else None),
            Player(bob, match_id, "B", db if check else None),
            match_id,
        )

    return make


def start_match(
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
    a_roster: Roster | None = None,
    b_roster: Roster | None = None,
) -> tuple[TestClient, TestClient, int]:
    """A match created and joined through the pages: alice (seat A) creates it with
    ``a_roster``, bob (seat B) joins with its invitation code and ``b_roster``."""
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/matches",
        data={
            "army_id": armies.ready(alice, a_roster or marines()),
            "battle_size": "strike_force",
            "mission": "only-war",
            "opponent": "user",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, b_roster or orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return alice, bob, match_id


# -- playing over HTTP ------------------------------------------------------------------------


def player(g: Game, seat: str | None) -> Player:
    assert seat in ("A", "B"), seat
    return g.a if seat == "A" else g.b


def setup_battle(
    g: Game,
    formations: dict[str, dict[str, Any]] | None = None,
    *,
    attacker: str = "A",
    first: str = "A",
) -> None:
    """Roll-offs by hand, markers placed, formations declared, everything deployed, no Scouts."""
    formations = formations or {}
    g.a.send({"type": "roll_off"}, dice=[6, 1])  # A places the first marker
    for i in range(4):
        (g.a if i % 2 == 0 else g.b).send({"type": "place_objective"})
    g.a.send({"type": "roll_off"}, dice=[6, 1] if attacker == "A" else [1, 6])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": formations.get(p.seat, {})})
    while (view := g.a.view())["stage"] == "deploy":
        seat = view["next_seat"]
        todo = sorted(
            u["id"]
            for u in view["units"]
            if u["owner"] == seat and u["location"] == "to_deploy" and u["bodyguard"] is None
        )
        player(g, seat).send({"type": "deploy_unit", "unit": todo[0]})
    g.a.send({"type": "roll_off"}, dice=[6, 1] if first == "A" else [1, 6])
    while (view := g.a.view())["stage"] == "scouts":
        player(g, view["next_seat"]).send({"type": "end_scouts"})
    assert g.a.view()["stage"] == "battle"


def wipe_out_b(g: Game) -> None:
    """In A's first turn, unit a2 shoots down b1, B's lone Warboss: B's army is wiped out."""
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b1"]})
    g.a.send({"type": "resolve_attack", "attacker": "a2", "target": "b1", "damage": [3, 3]})


def finish_turn(g: Game) -> None:
    """End phases (passing windows, passing Battle-shock tests, fighting) until the turn ends."""
    view = g.a.view()
    start = (view["round"], view["active"])
    while view["stage"] == "battle" and (view["round"], view["active"]) == start:
        step(g, view)
        view = g.a.view()


def confirm_coherency(
    g: Game, seat: str, removals: Sequence[dict[str, Any]] = (), *, status: int = 200
) -> dict[str, Any]:
    """``seat`` answers the end-of-turn coherency check, removing ``removals``
    (``{"unit": id, "models": [slot, ...]}``, slots from 0), none by default."""
    return player(g, seat).send(
        {"type": "confirm_coherency", "removals": list(removals)}, status=status
    )


def end_turn(g: Game) -> None:
    """The active player ends the Fight phase, and every player the coherency check asks
    confirms it with no model removed: the turn is over."""
    view = g.a.view()
    player(g, view["active"]).send({"type": "end_phase"})
    for seat in g.a.view()["pending"]["coherency"]:
        confirm_coherency(g, seat)


def step(g: Game, view: dict[str, Any]) -> None:
    """One command that moves the battle on."""
    if view["reaction_window"]:
        player(g, view["reaction_window"]).send({"type": "pass"})
        return
    if view["pending"]["coherency"]:
        confirm_coherency(g, view["pending"]["coherency"][0])
        return
    active = player(g, view["active"])
    pending = view["pending"]["battle_shock_tests"]
    if pending:
        active.send({"type": "battle_shock_test", "unit": pending[0]}, dice=[6, 6])
        return
    fight = view["fight"]
    if fight is not None and fight["selects_next"] is not None:
        seat = fight["selects_next"]
        p = player(g, seat)
        if fight["current"] is not None:
            owner = next(u["owner"] for u in view["units"] if u["id"] == fight["current"])
            player(g, owner).send({"type": "consolidate", "unit": fight["current"]})
            return
        options = [a for a in p.actions() if a["command"]["type"] == "fight"]
        if options:
            p.send(options[0]["command"])
            return
    active.send({"type": "end_phase"})


# -- a match committed for real (concurrency, LISTEN/NOTIFY) ---------------------------------


def _snapshot(roster: Any) -> dict[str, Any]:
    return match_armies.snapshot_from_roster(
        starter_catalogue(),
        roster,
        source="test",
        army_id=None,
        catalogue_id=None,
        points_limit=2000,
    )


def started_match(s: Session, names: Sequence[str]) -> tuple[Match, list[User]]:
    """Two new users and a 10th-edition match between them, joined (version 2), flushed in
    ``s``; the caller commits."""
    import secrets

    users = [
        User(
            email=f"{name.replace(' ', '-')}-{secrets.token_hex(4)}@example.com",
            display_name=name,
            password_hash="x",
        )
        for name in names
    ]
    s.add_all(users)
    s.flush()
    match = Match(
        mission_id="only-war",
        battle_size="strike_force",
        status=MatchStatus.OPEN,
        opponent_kind=OpponentKind.USER,
        created_by_id=users[0].id,
        player_a_id=users[0].id,
        secret=secrets.token_hex(32),
        army_a=_snapshot(marines()),
        version=0,
    )
    s.add(match)
    s.flush()
    service.join(s, match, _snapshot(orks()), user=users[1])
    return match, users


@pytest.fixture
def committed_match(engine: Engine) -> Iterator[tuple[int, list[int]]]:
    """A started match (version 2) committed to the database; removed afterwards."""
    with Session(engine) as s:
        match, users = started_match(s, ("Writer A", "Writer B"))
        s.commit()
        match_id, user_ids = match.id, [u.id for u in users]
    reads.cache.clear()
    yield match_id, user_ids
    with Session(engine) as s:
        s.execute(delete(Match).where(Match.id == match_id))
        s.execute(delete(User).where(User.id.in_(user_ids)))
        s.commit()


# -- a league game between two players (matches created for a fixture report to it) ----------


@dataclass
class LeagueFixture:
    league_id: int
    game_id: int
    registrations: tuple[int, int]  # (player A's, player B's)


def league_game(db: Session, player_a: int, player_b: int) -> LeagueFixture:
    """A round-robin league of one club with one scheduled game, committed to the test's
    savepoint; ``player_a`` / ``player_b`` are user ids."""
    from app.clubs.models import Club
    from app.leagues.models import Game as LeagueGame
    from app.leagues.models import League, Registration

    club = Club(name="Club")
    db.add(club)
    db.flush()
    league = League(
        club_id=club.id, name="League", rule_system="wh40k-10e", format="round_robin", seed=1
    )
    db.add(league)
    db.flush()
    regs = [
        Registration(league_id=league.id, user_id=uid, snapshot={}) for uid in (player_a, player_b)
    ]
    db.add_all(regs)
    db.flush()
    game = LeagueGame(league_id=league.id, player_a_id=regs[0].id, player_b_id=regs[1].id)
    db.add(game)
    db.commit()
    return LeagueFixture(league.id, game.id, (regs[0].id, regs[1].id))
