"""Hostile uploads for the import tests: small files that unzip or parse into a lot."""

from __future__ import annotations


def element_bomb(elements: int = 2_000_000, root_id: str = "bomb") -> bytes:
    """A catalogue of ``elements`` empty elements (8 MB of XML for two million, which zips to
    a few KB)."""
    return (
        f'<catalogue id="{root_id}" name="Bomb" library="false" gameSystemId="s">'.encode()
        + b"<a/>" * elements
        + b"</catalogue>"
    )


def deep_nesting(levels: int = 100_000) -> bytes:
    """A catalogue whose elements nest ``levels`` deep."""
    return (
        b'<catalogue id="deep" name="Deep">'
        + b"<a>" * levels
        + b"</a>" * levels
        + (b"</catalogue>")
    )
