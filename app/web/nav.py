"""The site navigation: each feature adds its entry when its pages exist."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NavItem:
    href: str
    label: str  # an English msgid, translated when rendered
    blurb: str = ""  # the home page's one-line description, also a msgid
    order: int = 100


_items: dict[str, NavItem] = {}


def add_nav(item: NavItem) -> None:
    _items[item.href] = item


def nav_items() -> list[NavItem]:
    return sorted(_items.values(), key=lambda item: (item.order, item.href))
