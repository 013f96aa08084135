"""Secrets: password hashing, random tokens and their digests, CSRF tokens.

Passwords are hashed with argon2id. Session and API tokens are 256-bit random values, so a
SHA-256 digest is enough to store them (there is nothing to brute-force); only digests are stored.
CSRF: a browser session's token is an HMAC, under the server secret, of the session cookie's
digest, so someone who can plant cookies (a sibling subdomain, a man in the middle on plain HTTP)
still cannot produce it. Anonymous forms (log in, register) use the signed double-submit pattern:
a random value in a cookie, repeated in the form (or the ``X-CSRF-Token`` header), whose HMAC
under the server secret must verify.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
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


def session_csrf_token(secret: str, session_cookie: str) -> str:
    """The CSRF token of one browser session: fixed for the session, unknowable without the
    server secret and the session cookie (a new session after login gets a new token)."""
    return "s." + _sign(secret, "csrf-session:" + digest(session_cookie))


# One leading slash then printable ASCII without a backslash: a path (and query) on this site.
# Browsers drop tab, CR and LF inside URLs and read "\\" as "/", so "/\t/evil.example" or
# "/\\evil.example" would leave the site; non-ASCII cannot go into a header at all.
_SAFE_PATH = re.compile(r"/(?![/\\])[!-\[\]-~]*")


def safe_redirect_path(target: str | None, fallback: str = "/") -> str:
    """``target`` when it is a same-site relative path (one leading ``/``, no scheme, no
    authority, no whitespace, control or non-ASCII character); ``fallback`` otherwise."""
    if target and len(target) <= 2000 and _SAFE_PATH.fullmatch(target):
        return target
    return fallback


def hmac_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
