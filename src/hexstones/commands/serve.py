"""``hexstones serve``: the browser app on a local web server."""

from __future__ import annotations

import argparse
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hexstones.web.mail import MailSettings

KEEP_ALIVE_S = 120  # seconds an idle HTTP connection is kept open (nginx: 75, Chrome: 300)
GAMES_PER_MINUTE = 30  # far above what a person plays; a script making thousands is slowed
AI_PROCESSES = 2  # the AI's workers: the two cores of a small server
MAX_AI_PROCESSES = 64


HELP = "play in the browser (starts a local web server)"
DESCRIPTION = (
    "Start the hexstones browser app: new games against a person or the AI, stored games, SGF "
    "download and upload."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None,
                   help="SQLite file holding the games (created if missing; default games.db in "
                        "the user's data folder, e.g. ~/.local/share/hexstones), or a PostgreSQL "
                        "database as postgresql://user[:password]@host[:port]/dbname, which "
                        "several servers may share (needs the postgres extra)")
    p.add_argument("--origin", action="append", default=[], metavar="URL",
                   help="the address people reach the app at, e.g. https://hex.example.org, when "
                        "it is behind a reverse proxy that changes the Host header (repeatable); "
                        "changes asked from any other site are refused")
    p.add_argument("--ai-processes", type=int, default=AI_PROCESSES, metavar="N",
                   help=f"the AI's worker processes, each thinking for one game at a time (default "
                        f"{AI_PROCESSES}; one a core the AI may use: 1 on a small machine that also "
                        f"serves the pages, more on a bigger one)")
    p.add_argument("--games-per-minute", type=int, default=GAMES_PER_MINUTE, metavar="N",
                   help=f"new games (and imports) one person may start in a minute, ten times "
                        f"that from one address (default {GAMES_PER_MINUTE}; 0: no limit)")
    p.add_argument("--head-timeout", type=float, default=None, metavar="SECONDS",
                   help="close a connection whose request head has not arrived whole within this "
                        "many seconds (default 10): a client sending nothing, or half a request, "
                        "holds no connection for long")
    p.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                   help="the address of a reverse proxy in front of the app (repeatable; an IP "
                        "address or network such as 10.0.0.0/8): only its X-Forwarded-For and "
                        "X-Forwarded-Proto are believed, so that the sign-in throttle counts the "
                        "real client's address; by default no forwarded header is believed")
    mail = p.add_argument_group("email notices of correspondence games (opt-in, per account)")
    mail.add_argument("--smtp", default=None, metavar="HOST:PORT",
                      help="the SMTP server that sends them (default: no email)")
    mail.add_argument("--mail-from", default=None, metavar="ADDRESS",
                      help="their sender address (needed with --smtp)")
    mail.add_argument("--public-url", default=None, metavar="URL",
                      help="the app's address in their links (default: the first --origin, else "
                           "http://HOST:PORT/ as served)")
    mail.add_argument("--smtp-user", default=None, help="the SMTP server's user name, if it asks for one")
    mail.add_argument("--smtp-password-file", default=None, metavar="FILE",
                      help="a file holding that user's password (not on the command line, where "
                           "every user of the machine could read it)")
    mail.add_argument("--smtp-starttls", action="store_true",
                      help="encrypt the connection to the SMTP server (STARTTLS)")


def mail_settings(args: argparse.Namespace) -> MailSettings | None:
    """The email settings the options give (None without --smtp); ValueError saying what
    is wrong."""
    from hexstones.web.mail import MailSettings

    if args.smtp is None:
        return None
    host, _, port = args.smtp.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--smtp is HOST:PORT, such as mail.example.org:587, not {args.smtp!r}")
    if not args.mail_from:
        raise ValueError("--smtp needs --mail-from, the notices' sender address")
    password = None
    if args.smtp_password_file:
        try:
            with open(args.smtp_password_file) as handle:
                password = handle.read().strip()
        except OSError as exc:
            raise ValueError(f"cannot read --smtp-password-file {args.smtp_password_file!r}: "
                             f"{exc.strerror}") from None
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    public = args.public_url or (args.origin[0] if args.origin else f"http://{shown_host}:{args.port}/")
    return MailSettings(host.strip("[]"), int(port), args.mail_from, public, args.smtp_user, password,
                        args.smtp_starttls)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``; OSError if the address cannot be had."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from hexstones.web import create_app

    if not 0 < args.port < 65536:
        print(f"hexstones serve: --port must be from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2
    if not 0 < args.ai_processes <= MAX_AI_PROCESSES:
        print(f"hexstones serve: --ai-processes must be from 1 to {MAX_AI_PROCESSES}, not {args.ai_processes}",
              file=sys.stderr)
        return 2
    try:
        if args.db is None:
            from hexstones.web.store import default_path

            args.db = default_path()
        # Takes the database (one server per file); the AI's workers start compiling.
        app = create_app(args.db, ai_processes=args.ai_processes, warm_ai=True, origins=frozenset(args.origin),
                         games_per_minute=args.games_per_minute or None, mail=mail_settings(args))
    except (ValueError, OSError) as exc:
        print(f"hexstones serve: {exc}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    try:
        sock = _listen(args.host, args.port)
    except OSError as exc:
        print(f"hexstones serve: cannot listen on {host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        app.state.tables.close()
        app.state.store.close()
        return 1
    announcement = (f"hexstones: playing at http://{host}:{args.port}/ (games stored in {app.state.store.path}); "
                    f"Ctrl-C stops")

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets)
            if self.started:  # listening and the app started: only now say where
                print(announcement, flush=True)

        async def shutdown(self, sockets=None):
            from hexstones.web.bot_events import end_streams

            end_streams(app)  # the bots' open event streams end (else the stop waits for them); they reconnect
            await super().shutdown(sockets)

    # Idle connections stay open as long as a browser keeps them (uvicorn's 5 s would close
    # them between two moves of a game, and every move would pay for a new connection).
    # uvicorn believes X-Forwarded-For from 127.0.0.1 unless told otherwise: a client on
    # this machine could then pose as any address (a fresh sign-in count each time).
    proxies = ",".join(args.trusted_proxy)
    from hexstones.web.connections import HEAD_TIMEOUT, raise_open_file_limit, timely_protocol

    raise_open_file_limit()
    # The live updates' events are a hundred bytes of JSON: compressing each cost more
    # CPU than it saved.
    config = uvicorn.Config(app, log_level="warning", timeout_keep_alive=KEEP_ALIVE_S,
                            proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None,
                            http=timely_protocol(args.head_timeout or HEAD_TIMEOUT),
                            ws_per_message_deflate=False)
    Server(config).run(sockets=[sock])
    return 0
