"""Secrets: password hashing, random tokens and their digests, CSRF tokens.

Passwords are hashed with argon2id. Session and API tokens are 256-bit random values, so a
SHA-256 digest is enough to store them (there is nothing to brute-force); only digests are stored.
CSRF uses the signed double-submit pattern: a random value in a cookie, repeated in the form (or
the ``X-CSRF-Token`` header), whose HMAC under the server secret must verify.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# Tests may ask for a cheap hash (W40K_PASSWORD_HASH=fast); production refuses it (config.py).
_hasher = (
    PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    if os.environ.get("W40K_PASSWORD_HASH") == "fast"
    else PasswordHasher()
)

# A hash of a random password, verified when the account does not exist, so that a login
# for an unknown e-mail takes as long as one with a wrong password.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def password_needs_rehash(password_hash: str) -> bool:
    return _hasher.check_needs_rehash(password_hash)


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _sign(secret: str, nonce: str) -> str:
    return hmac.new(secret.encode(), nonce.encode(), hashlib.sha256).hexdigest()[:32]


def new_csrf_token(secret: str) -> str:
    nonce = secrets.token_urlsafe(18)
    return f"{nonce}.{_sign(secret, nonce)}"


def csrf_token_valid(secret: str, token: str | None) -> bool:
    if not token or token.count(".") != 1 or len(token) > 200:
        return False
    nonce, signature = token.split(".")
    return hmac.compare_digest(signature, _sign(secret, nonce))


def hmac_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
