"""``hexstones db copy SOURCE TARGET``: move the app's games to another database."""

from __future__ import annotations

import argparse
import sys

HELP = "the games database: copy it into another one (SQLite <-> PostgreSQL)"
DESCRIPTION = (
    "Tools for the app's games database (what `hexstones serve --db` takes: a SQLite file's path or "
    "postgresql://user[:password]@host[:port]/dbname)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    c = actions.add_parser(
        "copy", help="copy every game, account and analysis into a new, empty database",
        description="Copy everything the app stores (games and their moves, accounts, sessions, "
                    "analyses) from SOURCE into TARGET, in one transaction: from a SQLite file "
                    "to PostgreSQL when one server process is no longer enough, or back to a "
                    "file as a backup. TARGET is made if missing and must hold no row; stop the "
                    "servers of both first (a SQLite file in use is refused). Then start "
                    "`hexstones serve --db TARGET`.")
    c.add_argument("source", help="the database to copy (a SQLite file or a postgresql:// URL)")
    c.add_argument("target", help="the new database (a SQLite file or a postgresql:// URL)")
    c.add_argument("--quiet", action="store_true", help="print only the summary")


def run(args: argparse.Namespace) -> int:
    from hexstones.web.transfer import copy_database

    shown: list[str] = []

    def progress(table: str, rows: int) -> None:
        if shown and shown[-1] != table:
            print(file=sys.stderr)
        shown.append(table)
        print(f"\r{table}: {rows} rows", end="", file=sys.stderr, flush=True)

    try:
        done = copy_database(args.source, args.target, None if args.quiet else progress)
    except ValueError as exc:
        if not args.quiet:
            print(file=sys.stderr)
        print(f"hexstones db copy: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(file=sys.stderr)
    print(done)
    return 0
