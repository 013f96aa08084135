"""A match's secret, sealed with the server key (ADR 0010).

The secret a match derives its invitation code, guest link and dice seeds from is 32 random
bytes. ``matches.secret`` does not hold it: it holds the secret XOR a pad that only the server
key can produce, ``HMAC-SHA256(server key, "auspex.match-secret|<match id>")``. A database dump
alone therefore gives neither the codes nor the seeds; the server unseals the column with the
same XOR.

Sealing and unsealing are the same operation (XOR is its own inverse): the migration that
sealed the secrets stored in clear before (``2026_11_21_1200-b6e1d2c4a8f3``) copies this
function and, run down, unseals them again. A new match simply stores 32 random bytes: XORed
with the pad they are just as random, so the working secret is never written anywhere.
"""

from __future__ import annotations

import hashlib
import hmac

SECRET_BYTES = 32
_PAD_LABEL = "auspex.match-secret"


def _pad(server_key: str, match_id: int) -> bytes:
    return hmac.new(
        server_key.encode(), f"{_PAD_LABEL}|{match_id}".encode(), hashlib.sha256
    ).digest()


def seal(value: str, match_id: int, server_key: str) -> str:
    """``value`` (64 hex digits) XOR the match's pad, as 64 hex digits: seals and unseals."""
    raw = bytes.fromhex(value)
    if len(raw) != SECRET_BYTES:
        raise ValueError(f"match {match_id}: a match secret is {SECRET_BYTES} bytes")
    pad = _pad(server_key, match_id)
    return bytes(a ^ b for a, b in zip(raw, pad, strict=True)).hex()


unseal = seal
