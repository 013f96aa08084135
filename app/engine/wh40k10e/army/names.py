"""Name matching: the lenient key used to look names up, and "did you mean" suggestions.

Players type names by hand: case, runs of spaces and the apostrophe style (``’`` in the
BattleScribe files, ``'`` on a keyboard) must not matter, so every lookup goes through
:func:`name_key`. :func:`closest` suggests the nearest known names for an unknown one.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["closest", "name_key"]

_TRANSLATE = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "\u02bc": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
    }
)


@lru_cache(maxsize=16_384)
def name_key(name: str) -> str:
    """The lookup key of a name: NFKC, unified apostrophes and dashes, casefolded, spaces
    collapsed. Memoised: a validation keys the same few hundred keyword and datasheet names
    every time (bounded, so names typed by players cannot grow it without limit)."""
    text = unicodedata.normalize("NFKC", name).translate(_TRANSLATE)
    return " ".join(text.casefold().split())


def closest(name: str, candidates: Iterable[str], n: int = 3) -> tuple[str, ...]:
    """Up to ``n`` candidates nearest to ``name`` (best first): close spellings by similarity,
    then names containing what was typed (``"intercessors"`` -> ``"Intercessor Squad"``)."""
    by_key: dict[str, str] = {}
    for c in candidates:
        by_key.setdefault(name_key(c), c)
    key = name_key(name)
    if not key or not by_key:
        return ()
    picked: list[str] = []
    for k in difflib.get_close_matches(key, list(by_key), n=n, cutoff=0.6):
        picked.append(by_key[k])
    if len(picked) < n:
        stem = key.rstrip("s") if len(key) > 3 else key
        for k in sorted(by_key):
            if len(picked) >= n:
                break
            if by_key[k] in picked:
                continue
            if stem in k or (len(k) > 3 and k in key):
                picked.append(by_key[k])
    return tuple(picked)
