"""``hexstones serve``: the browser app on a local web server."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="play in the browser (starts a local web server)",
                       description="Start the hexstones browser app: new games against a person or "
                                   "the AI, stored games, SGF download and upload.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default="hexstones-games.db",
                   help="SQLite file holding the games (default hexstones-games.db; created if missing)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from hexstones.web import create_app

    if not 0 < args.port < 65536:
        print(f"hexstones serve: --port must be from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2
    try:
        app = create_app(args.db)
    except ValueError as exc:
        print(f"hexstones serve: {exc}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"hexstones: playing at http://{host}:{args.port}/ (games stored in {args.db}); Ctrl-C stops",
          flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
