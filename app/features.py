"""The product features, discovered by name: each brings its JSON routes (``api.router``), its
pages (``web.router``), its ORM models (``models``) and its starter data (``starter.load``).

Adding a feature means creating ``app/<feature>/`` and naming it here; nothing else in shared
code changes.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from fastapi import APIRouter

FEATURES: tuple[str, ...] = (
    "web",
    "site",
    "rulesets",
    "accounts",
    "combat",
    "catalog",
    "armies",
    "matches",
    "blackreach",
    "clubs",
    "leagues",
)


# modules of a feature that bring routes besides its ``api`` / ``web`` ones (a room of their
# own, e.g. a match's league game link): {(feature, "api" or "web"): (module, ...)}
# ("module:attribute" names a router other than the module's ``router``)
EXTRA_ROUTERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("matches", "api"): ("league_link", "spectate", "packs", "systems.black_reach.api"),
    ("matches", "web"): ("spectate:page_router", "systems.black_reach.web"),
}


def _module(feature: str, name: str) -> ModuleType | None:
    dotted = f"app.{feature}.{name}"
    try:
        if importlib.util.find_spec(dotted) is None:
            return None
    except ModuleNotFoundError:  # the feature package itself does not exist (yet)
        return None
    return importlib.import_module(dotted)


def _routers(name: str) -> list[APIRouter]:
    routers = []
    for feature in FEATURES:
        for entry in (name, *EXTRA_ROUTERS.get((feature, name), ())):
            module_name, _, attribute = entry.partition(":")
            router = getattr(_module(feature, module_name), attribute or "router", None)
            if isinstance(router, APIRouter):
                routers.append(router)
    return routers


def api_routers() -> list[APIRouter]:
    return _routers("api")


def web_routers() -> list[APIRouter]:
    return _routers("web")


def load_models() -> None:
    for feature in FEATURES:
        _module(feature, "models")


def starter_modules() -> list[ModuleType]:
    return [m for f in FEATURES if (m := _module(f, "starter")) is not None]
