"""Fixtures of the combat tests: the army tests' users (bearer-token headers, each client also
holding the user's browser session) and the starter catalogue."""

from tests.armies.conftest import alice, anon, bob, other_client, starter_loaded

__all__ = ["alice", "anon", "bob", "other_client", "starter_loaded"]
