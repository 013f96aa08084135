"""Club pages: create, invite by link, join, readable refusals."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.web import csrf, html, register


def _create(client: TestClient, name: str = "Club Alpha") -> str:
    response = client.post(
        "/clubs", data={"csrf_token": csrf(client, "/clubs"), "name": name}, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def test_create_invite_and_join_in_the_browser(app, client) -> None:
    register(client, email="owner@example.com", name="Owner")
    club_url = _create(client)
    page = client.post(f"{club_url}/invites", data={"csrf_token": csrf(client, club_url)})
    link = html(page).css_first("#new-invite code").text()
    assert "/clubs/join/club_" in link

    guest = TestClient(app)
    register(guest, email="guest@example.com", name="Guest")
    join_path = link.split("testserver", 1)[1]
    join_page = guest.get(join_path)
    assert html(join_page).css_first("#join-form") is not None
    joined = guest.post(
        join_path, data={"csrf_token": csrf(guest, join_path)}, follow_redirects=False
    )
    assert joined.headers["location"] == club_url
    club = html(guest.get(club_url))
    assert club.css_first("#your-role").text() == "member"
    assert club.css_first("#invites") is None  # members do not manage invitations


def test_reloading_the_new_invitation_page_goes_back_to_the_club(client) -> None:
    register(client, email="owner@example.com", name="Owner")
    club_url = _create(client)
    page = client.post(f"{club_url}/invites", data={"csrf_token": csrf(client, club_url)})
    assert page.status_code == 200
    assert str(page.url).endswith(f"{club_url}/invites")  # the address bar after the post
    again = client.get(f"{club_url}/invites", follow_redirects=False)
    assert (again.status_code, again.headers["location"]) == (303, club_url)
    club = client.get(f"{club_url}/invites")
    assert club.status_code == 200
    assert html(club).css_first("#invites") is not None
    assert html(club).css_first("#new-invite") is None  # the link was shown once
    assert len(html(club).css("#invites tbody tr")) == 1  # and the reload made no other


def test_outsider_gets_a_readable_404(app, client) -> None:
    register(client, email="owner@example.com")
    club_url = _create(client, "Secret Club")
    outsider = TestClient(app)
    register(outsider, email="out@example.com")
    response = outsider.get(club_url, headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "Secret Club" not in response.text
    assert html(response).css_first("#error-title") is not None


def test_member_trying_admin_action_gets_a_readable_403(app, client) -> None:
    register(client, email="owner@example.com")
    club_url = _create(client)
    link = (
        html(client.post(f"{club_url}/invites", data={"csrf_token": csrf(client, club_url)}))
        .css_first("#new-invite code")
        .text()
    )
    member = TestClient(app)
    register(member, email="m@example.com")
    join_path = link.split("testserver", 1)[1]
    member.post(join_path, data={"csrf_token": csrf(member, join_path)})
    response = member.post(
        f"{club_url}/invites",
        data={"csrf_token": csrf(member, club_url)},
        headers={"Accept": "text/html"},
    )
    assert response.status_code == 403
    assert html(response).css_first("#error-title").text() == "Only the club's admins may do this"


def test_invalid_invitation_link_is_explained(client) -> None:
    register(client)
    response = client.get("/clubs/join/club_not-a-real-code")
    assert response.status_code == 404
    assert html(response).css_first("#invite-invalid") is not None


def test_clubs_need_login(client) -> None:
    response = client.get("/clubs", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")


def test_create_club_form_errors(client) -> None:
    register(client)
    response = client.post("/clubs", data={"csrf_token": csrf(client, "/clubs"), "name": "  "})
    assert response.status_code == 422
    assert html(response).css_first("#error-name") is not None
