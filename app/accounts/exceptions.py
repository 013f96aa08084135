"""Errors of the accounts feature."""

from app.core.errors import Conflict, NotFound, TooManyRequests
from app.core.i18n import lazy


class EmailTaken(Conflict):
    code, title = "email-taken", lazy("E-mail already registered")


class LoginThrottled(TooManyRequests):
    code, title = "login-throttled", lazy("Too many failed logins")


class TokenNotFound(NotFound):
    code, title = "token-not-found", lazy("API token not found")


class TokenLimitReached(Conflict):
    code, title = "token-limit", lazy("Too many API tokens")
