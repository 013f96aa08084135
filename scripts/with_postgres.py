"""Run a command against a throwaway Postgres database, when the local server answers.

Creates ``auspex_test_<random>`` on 127.0.0.1:5432 (user ``postgres``, or ``W40K_PG_ADMIN_URL``),
runs the command with ``W40K_TEST_DATABASE_URL`` pointing at it, then drops it. When no server
answers, says so and succeeds: the SQLite run already covered the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg
from psycopg import sql

ADMIN = os.environ.get("W40K_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def main(argv: list[str]) -> int:
    try:
        admin = psycopg.connect(ADMIN, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        print(f"Postgres does not answer at {ADMIN} ({exc}); the Postgres run is skipped.")
        return 0
    name = f"auspex_test_{uuid.uuid4().hex[:10]}"
    admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    base = ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    env = {**os.environ, "W40K_TEST_DATABASE_URL": f"{base}/{name}"}
    print(f"== the suite again on Postgres ({name})", flush=True)
    try:
        return subprocess.call(argv, env=env)
    finally:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        # xdist workers use databases of their own, suffixed with the worker id
        rows = admin.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", (name + "_%",)
        ).fetchall()
        for (extra,) in rows:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(extra))
            )
        admin.close()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
