"""The health check answers for the app and its database; the API is documented."""

from __future__ import annotations


def test_healthz_checks_the_database(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


def test_healthz_reports_a_dead_database(app, client) -> None:
    from app.core.db import Database

    app.state.db = Database("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"


def test_openapi_and_docs_are_served(client) -> None:
    spec = client.get("/api/v1/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    assert "/api/v1/rulesets" in paths
    assert "/api/v1/tokens" in paths
    assert not any(not p.startswith("/api/v1/") for p in paths), (
        "HTML routes stay out of the schema"
    )
    docs = client.get("/api/docs")
    assert docs.status_code == 200
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs.text
    assert client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200


def test_rulesets_lists_the_registered_systems(client) -> None:
    from app.engine import systems

    response = client.get("/api/v1/rulesets")
    assert response.status_code == 200
    listed = response.json()
    assert [r["id"] for r in listed] == [s.id for s in systems.load_all()]
    for entry in listed:
        assert set(entry) == {"id", "name", "capabilities", "turn_structures"}
    by_id = {r["id"]: r for r in listed}
    assert by_id["pen"]["turn_structures"] == ["classic", "alternation", "dynamics"]
    assert by_id["wh40k-10e"]["turn_structures"] == []
