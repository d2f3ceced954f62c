"""The AI's accounts: one rated player per level of :data:`BOT_LEVELS` (``level2-bot`` ...
``level10-bot``), so that anyone has an opponent at any hour and the ratings an anchor.

A bot account is an account like any other (its games, its ratings, its profile) that
nobody signs in to (its password is no password hash: every sign-in fails) and whose name
no person may take (names ending in ``-bot``). Challenge one by its name, in the lobby or
with ``/new?opponent=challenge&to=level6-bot&...``: it answers at once, accepting a game
within its limits (:meth:`Bots.refusal`: a fixed balance, not the komi pie; a clock it
can keep at its level's time a move) and declining the others. In its games the AI plays
its colour at its level, on the server's AI processes, in turn with everyone's (by the
person who challenged it: one person's many games do not hold up another's).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hexstones.ai.levels import get_level
from hexstones.session import ByoYomi, Fischer
from hexstones.web.accounts import BOT_SUFFIX, Identity, name_key
from hexstones.web.bot_accounts import BotAccounts
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.live import Tables
from hexstones.web.rows import Rows
from hexstones.web.setup import NewGame

if TYPE_CHECKING:
    from hexstones.web.ratings import Ratings

BOT_LEVELS = (2, 4, 6, 8, 10)
MARGIN_SECONDS = 1.0  # on top of a level's time a move: the wait for an AI process, the answer
MOVES_ON_BASE = 40  # a clock without increment must hold this many of the level's moves


def bot_name(level: int) -> str:
    return f"level{level}{BOT_SUFFIX}"


def bot_user(level: int) -> str:
    return f"bot-level-{level}"


class Bots:
    """The bot accounts of one app: made in its database if missing."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.time) -> None:
        self.db = Rows(tables.store)
        self.levels = {bot_user(level): level for level in BOT_LEVELS}
        for level in BOT_LEVELS:
            name = bot_name(level)
            if not self.db.query("SELECT 1 FROM users WHERE id = :id", {"id": bot_user(level)}):
                try:
                    self.db.execute("INSERT INTO users (id, name, name_key, password, created) "
                                    "VALUES (:id, :name, :key, '!', :now)",
                                    {"id": bot_user(level), "name": name, "key": name_key(name), "now": clock()})
                except Rows.IntegrityError:
                    pass  # made meanwhile by another server process

    def level_of(self, user: str | None) -> int | None:
        """The level a bot account plays (None: not a bot)."""
        return self.levels.get(user or "")

    def identity(self, user: str) -> Identity:
        """Who a bot is when it answers a challenge."""
        return Identity(session=f"bot:{user}", user=user, name=bot_name(self.levels[user]))

    @staticmethod
    def refusal(level: int, new: NewGame) -> str | None:
        """Why the bot of ``level`` declines a game of ``new`` (None: it accepts)."""
        if new.setup.pie is not None:
            return "the AI's accounts play a fixed balance, not the komi pie"
        seconds = get_level(level).max_seconds + MARGIN_SECONDS
        control = new.setup.time_control
        if isinstance(control, Fischer) and control.increment < seconds and control.base < MOVES_ON_BASE * seconds:
            return f"level {level} needs about {seconds:.0f} s a move: more base time or increment"
        if isinstance(control, ByoYomi) and control.period_seconds < 2 * seconds:
            return f"level {level} needs about {seconds:.0f} s a move: longer byo-yomi periods"
        return None

    def taker(self, new: NewGame, rating: float | None, ratings: Ratings | None) -> str | None:
        """The bot account to take a seek of ``new`` from a maker rated ``rating`` in its
        game (None: unrated, the middle level): of the levels that can keep its clock, the
        one whose rating is nearest; None if no level can."""
        able = [(user, level) for user, level in self.levels.items() if self.refusal(level, new) is None]
        if not able:
            return None
        if rating is None or ratings is None:
            return min(able, key=lambda found: abs(found[1] - BOT_LEVELS[len(BOT_LEVELS) // 2]))[0]
        return min(able, key=lambda found: abs(ratings.of(found[0])[new.game]["rating"] - rating))[0]

    def seated(self, setup: GameSetup, holder: Holder) -> GameSetup:
        """The setup of a game whose seat ``holder`` takes: if it is a bot, the AI plays its
        colour at its level."""
        level = self.level_of(holder.user)
        if level is None or setup.seats is None:
            return setup
        players = {role: ("ai" if seat is not None and seat.user == holder.user else "human")
                   for role, seat in setup.seats.items()}
        return setup.replace(players=players, level=level)

    def listing(self, ratings: Ratings | None) -> list[dict[str, Any]]:
        """Each bot: its name, level, time a move and ratings; then the outside engines'
        bot accounts (``outside``: played by a program through the bot API, level and time
        a move unknown)."""
        ai = [{"name": bot_name(level), "level": level, "bot": True, "outside": False,
               "seconds_a_move": get_level(level).max_seconds,
               "ratings": ratings.of(user) if ratings is not None else None}
              for user, level in self.levels.items()]
        return ai + [{"name": name, "level": None, "bot": True, "outside": True, "seconds_a_move": None,
                      "ratings": ratings.of(user) if ratings is not None else None}
                     for user, name in BotAccounts(self.db).listing()]
