"""The front-end skeleton: base layout, home page, language, vendored htmx."""

from __future__ import annotations

from tests.support.web import csrf, html, register


def test_home_page_says_what_auspex_does(client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    tree = html(response)
    assert tree.css_first("#home-title") is not None
    assert tree.css_first("nav#main-nav") is not None
    assert tree.css_first('script[src="/static/vendor/htmx/htmx.min.js"]') is not None
    assert tree.css_first('link[href="/static/css/app.css"]') is not None
    assert tree.css_first("meta[name=viewport]") is not None


def test_htmx_is_vendored_2x(client) -> None:
    response = client.get("/static/vendor/htmx/htmx.min.js")
    assert response.status_code == 200
    assert 'version:"2.' in response.text.replace(" ", "")


def test_language_follows_accept_language(client) -> None:
    response = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    tree = html(response)
    assert tree.css_first("html").attributes["lang"] == "fr"
    assert tree.css_first("#login-link").text() == "Se connecter"
    response = client.get("/", headers={"Accept-Language": "en-GB"})
    assert html(response).css_first("#login-link").text() == "Log in"


def test_language_switch_sets_a_cookie_for_visitors(client) -> None:
    token = csrf(client, "/")
    response = client.post(
        "/language",
        data={"csrf_token": token, "language": "fr", "next": "/"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    page = client.get("/", headers={"Accept-Language": "en"})
    assert html(page).css_first("html").attributes["lang"] == "fr"


def test_user_setting_beats_accept_language(client) -> None:
    register(client, email="zoe@example.com", language="fr")
    page = client.get("/", headers={"Accept-Language": "en"})
    assert html(page).css_first("html").attributes["lang"] == "fr"


def test_every_form_carries_a_csrf_token(client) -> None:
    register(client)
    for path in ("/", "/account"):
        for form in html(client.get(path)).css("form[method=post]"):
            assert form.css_first("input[name=csrf_token]") is not None, (path, form.html)


def test_htmx_requests_carry_the_csrf_header(client) -> None:
    body = html(client.get("/")).css_first("body")
    assert "X-CSRF-Token" in body.attributes["hx-headers"]


def test_every_hx_post_has_a_real_action(client) -> None:
    register(client)
    for path in ("/", "/account"):
        for node in html(client.get(path)).css("[hx-post]"):
            assert node.attributes.get("action") == node.attributes["hx-post"], node.html
