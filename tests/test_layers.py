"""Every feature stands in the import-linter layers contract (ADR 0012), so that ``make lint``
sees an arrow that runs up from any of them, a new feature included."""

from __future__ import annotations

import tomllib

from app.core.config import ROOT
from app.features import FEATURES


def _layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return [name.strip() for layer in layers for name in layer.replace(":", "|").split("|")]


def test_every_feature_stands_in_a_layer() -> None:
    assert sorted(_layers()) == sorted(f"app.{feature}" for feature in FEATURES)


def test_the_layers_run_from_leagues_down_to_accounts() -> None:
    order = _layers()
    chain = ["app.leagues", "app.matches", "app.armies", "app.catalog", "app.clubs"]
    assert [order.index(m) for m in chain] == sorted(order.index(m) for m in chain)
    assert order.index("app.clubs") < order.index("app.accounts")
