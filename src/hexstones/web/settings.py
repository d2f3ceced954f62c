"""The app's configuration: what :func:`hexstones.web.create_app` was given, in one object.

It is kept on ``app.state.settings``; the routes reach it through
:func:`hexstones.web.deps.get_settings`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hexstones.web.live import LIVE_GAMES
from hexstones.web.mail import MailSettings


@dataclass(frozen=True)
class AppSettings:
    """How one app is set up (see :func:`hexstones.web.create_app` for each value)."""

    db_path: str  # a SQLite file, or a PostgreSQL address (``postgresql://...``)
    ai_processes: int = 2  # the AI's worker processes
    warm_ai: bool = False  # start the AI's workers at once and compile its kernels ahead
    origins: frozenset[str] = frozenset()  # addresses the app is reached at besides its Host's
    games_per_minute: int | None = None  # new games one person may start a minute (None: any)
    live_games: int = LIVE_GAMES  # games kept in memory
    # The time every rule of the app reads (seconds since the epoch): tests give their own.
    clock: Callable[[], float] = time.time
    mail: MailSettings | None = None  # the SMTP server of the email notices (None: no email)
