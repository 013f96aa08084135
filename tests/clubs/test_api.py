"""Clubs through the JSON API: roles, invitations, access rules."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from app.clubs.models import Invite
from app.core.db import utcnow
from tests.clubs.conftest import user_id


def _club(owner, **extra) -> int:  # type: ignore[no-untyped-def]
    response = owner.post("/api/v1/clubs", json={"name": "Les Dés Rouges", **extra})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["your_role"] == "owner"
    assert body["member_count"] == 1
    return int(body["id"])


def _invite(admin, club_id: int, **extra) -> str:  # type: ignore[no-untyped-def]
    response = admin.post(f"/api/v1/clubs/{club_id}/invites", json=extra)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["url"].endswith(f"/clubs/join/{body['code']}")
    return str(body["code"])


def test_create_list_and_join_by_code(user_client) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    club_id = _club(owner)
    code = _invite(owner, club_id)
    joined = bob.post("/api/v1/clubs/join", json={"code": code})
    assert joined.status_code == 200
    assert joined.json()["your_role"] == "member"
    assert [c["id"] for c in bob.get("/api/v1/clubs").json()] == [club_id]
    names = [m["display_name"] for m in owner.get(f"/api/v1/clubs/{club_id}/members").json()]
    assert names == ["Owner", "Bob"]


def test_private_club_is_invisible_to_outsiders(user_client, client) -> None:
    owner, eve = user_client("Owner"), user_client("Eve")
    club_id = _club(owner)
    for who in (eve, client):
        for path in (f"/api/v1/clubs/{club_id}", f"/api/v1/clubs/{club_id}/members"):
            response = who.get(path)
            assert response.status_code == 404
            assert "Dés Rouges" not in response.text


def test_public_club_is_visible_but_not_editable(user_client, client) -> None:
    owner, eve = user_client("Owner"), user_client("Eve")
    club_id = _club(owner, is_public=True)
    assert client.get(f"/api/v1/clubs/{club_id}").json()["your_role"] is None
    response = eve.patch(f"/api/v1/clubs/{club_id}", json={"name": "Hijacked"})
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"


def test_only_admins_invite_and_see_invitations(user_client) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    club_id = _club(owner)
    bob.post("/api/v1/clubs/join", json={"code": _invite(owner, club_id)})
    assert bob.post(f"/api/v1/clubs/{club_id}/invites", json={}).status_code == 403
    assert bob.get(f"/api/v1/clubs/{club_id}/invites").status_code == 403
    listing = owner.get(f"/api/v1/clubs/{club_id}/invites").json()
    assert listing
    assert "code" not in listing[0]  # codes are shown once only


def test_admin_promotion_lets_them_invite(user_client) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    club_id = _club(owner)
    bob.post("/api/v1/clubs/join", json={"code": _invite(owner, club_id)})
    response = owner.patch(
        f"/api/v1/clubs/{club_id}/members/{user_id(bob)}", json={"role": "admin"}
    )
    assert response.json()["role"] == "admin"
    assert bob.post(f"/api/v1/clubs/{club_id}/invites", json={}).status_code == 201


def test_only_the_owner_changes_roles(user_client) -> None:
    owner, bob, carl = user_client("Owner"), user_client("Bob"), user_client("Carl")
    club_id = _club(owner)
    for member in (bob, carl):
        member.post("/api/v1/clubs/join", json={"code": _invite(owner, club_id)})
    owner.patch(f"/api/v1/clubs/{club_id}/members/{user_id(bob)}", json={"role": "admin"})
    response = bob.patch(f"/api/v1/clubs/{club_id}/members/{user_id(carl)}", json={"role": "admin"})
    assert response.status_code == 403


def test_ownership_transfer_demotes_the_old_owner_to_admin(user_client) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    club_id = _club(owner)
    bob.post("/api/v1/clubs/join", json={"code": _invite(owner, club_id)})
    owner.patch(f"/api/v1/clubs/{club_id}/members/{user_id(bob)}", json={"role": "owner"})
    assert bob.get(f"/api/v1/clubs/{club_id}").json()["your_role"] == "owner"
    assert owner.get(f"/api/v1/clubs/{club_id}").json()["your_role"] == "admin"


def test_leave_and_removal_rules(user_client) -> None:
    owner, admin, m1, m2 = (user_client(n) for n in ("Owner", "Admin", "Mia", "Max"))
    club_id = _club(owner)
    for member in (admin, m1, m2):
        member.post("/api/v1/clubs/join", json={"code": _invite(owner, club_id)})
    owner.patch(f"/api/v1/clubs/{club_id}/members/{user_id(admin)}", json={"role": "admin"})
    # a member leaves by themselves
    assert m1.delete(f"/api/v1/clubs/{club_id}/members/{user_id(m1)}").status_code == 204
    assert m1.get(f"/api/v1/clubs/{club_id}").status_code == 404
    # a member cannot remove another; an admin can remove a member but not the owner
    assert m2.delete(f"/api/v1/clubs/{club_id}/members/{user_id(admin)}").status_code == 403
    assert admin.delete(f"/api/v1/clubs/{club_id}/members/{user_id(m2)}").status_code == 204
    response = admin.delete(f"/api/v1/clubs/{club_id}/members/{user_id(owner)}")
    assert response.status_code == 422
    assert response.json()["type"].endswith("owner-must-stay")
    # the owner cannot leave without transferring ownership
    assert owner.delete(f"/api/v1/clubs/{club_id}/members/{user_id(owner)}").status_code == 422


def test_invites_expire_run_out_and_are_revocable(user_client, db) -> None:
    owner, a, b, c = (user_client(n) for n in ("Owner", "Ann", "Ben", "Cat"))
    club_id = _club(owner)
    once = _invite(owner, club_id, max_uses=1)
    assert a.post("/api/v1/clubs/join", json={"code": once}).status_code == 200
    assert b.post("/api/v1/clubs/join", json={"code": once}).status_code == 404
    expiring = _invite(owner, club_id)
    db.execute(update(Invite).values(expires_at=utcnow() - timedelta(minutes=1)))
    db.flush()
    assert b.post("/api/v1/clubs/join", json={"code": expiring}).status_code == 404
    revoked = _invite(owner, club_id)
    invite_id = owner.get(f"/api/v1/clubs/{club_id}/invites").json()[-1]["id"]
    owner.delete(f"/api/v1/clubs/{club_id}/invites/{invite_id}")
    assert c.post("/api/v1/clubs/join", json={"code": revoked}).status_code == 404


def test_joining_twice_is_a_conflict(user_client) -> None:
    owner, bob = user_client("Owner"), user_client("Bob")
    club_id = _club(owner)
    code = _invite(owner, club_id)
    bob.post("/api/v1/clubs/join", json={"code": code})
    assert bob.post("/api/v1/clubs/join", json={"code": code}).status_code == 409


def test_club_input_is_validated(user_client) -> None:
    owner = user_client("Owner")
    response = owner.post("/api/v1/clubs", json={"name": "   ", "colour": "red"})
    assert response.status_code == 422
    assert {e["field"] for e in response.json()["errors"]} == {"name", "colour"}
    assert owner.post("/api/v1/clubs/join", json={"code": "x"}).status_code == 422


def test_anonymous_cannot_create(client) -> None:
    assert client.post("/api/v1/clubs", json={"name": "X"}).status_code == 401
