"""The ``auspex`` command line: ``auspex migrate | seed | serve | check | import-bsdata``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _migrate(args: argparse.Namespace) -> int:
    from app.core import migrate

    if args.down:
        migrate.downgrade(revision=args.down)
    else:
        migrate.upgrade()
    return 0


def _seed(_args: argparse.Namespace) -> int:
    from app.core.config import get_settings
    from app.core.db import Database
    from app.starter import load_all

    db = Database(get_settings().database_url)
    with db.writing() as session:
        for line in load_all(session):
            print(line)
    db.engine.dispose()
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.core.config import get_settings

    get_settings().check_production_ready()
    uvicorn.run(
        "app.asgi:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        # forwarded headers are the app's to judge (W40K_TRUSTED_PROXIES, app.main), not uvicorn's
        proxy_headers=False,
        # off unless asked for, as in the Dockerfile: a log line per request cost some 0.2 ms
        # of CPU, 8 % of a tournament write-refresh cycle (issue 21)
        access_log=args.access_log,
    )
    return 0


def _check(_args: argparse.Namespace) -> int:
    from app.core.config import InsecureConfiguration, get_settings

    try:
        get_settings().check_production_ready()
    except InsecureConfiguration as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("configuration ok")
    return 0


def _import_bsdata(args: argparse.Namespace) -> int:
    """Import BattleScribe files: owned by ``--owner`` (an account's e-mail), else readable by
    every user of the instance (like the starter catalogue)."""
    from pathlib import Path

    from sqlalchemy import func, select

    from app.accounts.models import User
    from app.catalog import service
    from app.catalog.exceptions import ImportFailed
    from app.core.config import get_settings
    from app.core.db import Database

    files: list[tuple[str, bytes]] = []
    for name in args.files:
        path = Path(name)
        if path.is_dir():
            found = sorted(
                p
                for p in path.iterdir()
                if p.is_file() and p.suffix.lower() in (".gst", ".cat", ".gstz", ".catz")
            )
            files.extend((p.name, p.read_bytes()) for p in found)
        elif path.is_file():
            files.append((path.name, path.read_bytes()))
        else:
            print(f"error: {name}: no such file", file=sys.stderr)
            return 2
    db = Database(get_settings().database_url)
    try:
        owner = None
        if args.owner:
            with db.sessions() as session:
                owner = session.scalar(
                    select(User).where(func.lower(User.email) == args.owner.strip().lower())
                )
            if owner is None:
                print(f"error: no account with the e-mail {args.owner}", file=sys.stderr)
                return 2
        try:  # read before taking the write lock: the server's writers do not wait for it
            read = service.read_import(files)
        except ImportFailed as exc:
            print(f"error: {exc.detail}", file=sys.stderr)
            for err in exc.errors or []:
                where = f"{err['file']}: " if err.get("file") else ""
                print(f"  {where}{err['message']}", file=sys.stderr)
            return 1
        with db.writing() as session:
            outcome = service.store_import(session, owner, read)
            for record, created in zip(outcome.records, outcome.created, strict=True):
                state = "imported" if created else "updated"
                print(
                    f"{state}: {record.name} (id {record.id}, slug {record.slug}, version "
                    f"{record.version}, {record.datasheet_count} datasheets)"
                )
            warnings = outcome.report.get("warnings", [])
            print(f"{len(warnings)} warning(s)")
            for warning in warnings[: args.show_warnings]:
                print(f"  warning: {warning['message']}")
    finally:
        db.engine.dispose()
    return 0


def _flag(value: str | None) -> bool:
    """An environment flag as uvicorn's own command line reads ``UVICORN_*`` (click's bool)."""
    return (value or "").strip().lower() in {"1", "true", "t", "yes", "y", "on"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auspex", description="Auspex administration.")
    sub = parser.add_subparsers(dest="command", required=True)
    migrate = sub.add_parser("migrate", help="apply the database migrations")
    migrate.add_argument("--down", metavar="REVISION", help="downgrade to REVISION instead")
    migrate.set_defaults(func=_migrate)
    sub.add_parser("seed", help="load the starter data (idempotent)").set_defaults(func=_seed)
    serve = sub.add_parser("serve", help="serve the app with uvicorn")
    serve.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS", "1")))
    serve.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=_flag(os.environ.get("UVICORN_ACCESS_LOG")),
        help="log a line per request (default: off, or UVICORN_ACCESS_LOG as uvicorn reads it)",
    )
    serve.set_defaults(func=_serve)
    sub.add_parser("check", help="refuse unsafe production settings").set_defaults(func=_check)
    bsdata = sub.add_parser(
        "import-bsdata",
        help="import BattleScribe/BSData files (.gst, .cat, .gstz, .catz) as catalogues",
    )
    bsdata.add_argument("files", nargs="+", metavar="FILE", help="files, or a directory of them")
    bsdata.add_argument(
        "--owner",
        metavar="EMAIL",
        help="the account that owns them (default: readable by every user)",
    )
    bsdata.add_argument(
        "--show-warnings", type=int, default=20, metavar="N", help="print the first N warnings"
    )
    bsdata.set_defaults(func=_import_bsdata)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
