"""Ratings: each account's Glicko-2 rating per game (:mod:`hexstones.session.rating`),
moved by every rated game it finishes.

A rated game is between two accounts, on a clock (``rated=yes`` needs both: the new-game
checks and :func:`hexstones.web.seats.check_rated_seats` refuse the rest). When one ends by the rules, a
resignation or a flag, both players' ratings move by one Glicko-2 rating period each (as
lichess does: every game its own period), in one transaction that first records the game
as counted (table ``rated_games``): with several server processes, the one that stored the
end counts it, and a second try finds it counted. An aborted game counts for nobody. Each
change is kept in ``rating_history`` (the profile's graph). Tables: migration r0010.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hexstones.games import GAME_NAMES, other
from hexstones.session import Rating, rated
from hexstones.web import seats
from hexstones.web.live import Live, Tables
from hexstones.web.rows import Rows, column_text


def shown(rating: Rating, games: int) -> dict[str, Any]:
    return {"rating": round(rating.rating, 1), "deviation": round(rating.deviation, 1), "games": games,
            "provisional": rating.provisional}


class Ratings:
    """The accounts' ratings in the games database, moved by the rated games of ``tables``."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.time) -> None:
        self.db = Rows(tables.store)
        self.now = clock
        tables.after_end.append(self.count)

    def of(self, user: str) -> dict[str, dict[str, Any]]:
        """``user``'s rating in each game (the starting one where they have played none)."""
        rows = self.db.query("SELECT game, rating, deviation, volatility, games FROM ratings WHERE user_id = :u",
                             {"u": user})
        found = {column_text(r["game"]): r for r in rows}
        answer = {}
        for game in GAME_NAMES:
            row = found.get(game)
            rating = Rating() if row is None else Rating(row["rating"], row["deviation"], row["volatility"])
            answer[game] = shown(rating, 0 if row is None else int(row["games"]))
        return answer

    def leaderboard(self, game: str, since: float, limit: int = 100) -> list[dict[str, Any]]:
        """The accounts with a rated game of ``game`` since ``since``, best first."""
        rows = self.db.query("SELECT u.name, r.rating, r.deviation, r.volatility, r.games FROM ratings r "
                             "JOIN users u ON u.id = r.user_id WHERE r.game = :g AND r.updated >= :since "
                             "ORDER BY r.rating DESC, u.name LIMIT :n", {"g": game, "since": since, "n": limit})
        return [{"name": column_text(r["name"]), **shown(Rating(r["rating"], r["deviation"], r["volatility"]),
                                                    int(r["games"]))} for r in rows]

    def history(self, user: str, game: str) -> list[dict[str, Any]]:
        """``user``'s rating after each rated game of ``game``, oldest first."""
        rows = self.db.query("SELECT game_id, at, rating, deviation FROM rating_history "
                             "WHERE user_id = :u AND game = :g ORDER BY at", {"u": user, "g": game})
        return [{"game": column_text(r["game_id"]), "at": r["at"], "rating": round(r["rating"], 1),
                 "deviation": round(r["deviation"], 1)} for r in rows]

    def count(self, live: Live) -> None:
        """Move the players' ratings by the end of ``live``, if it is a rated game that
        ended with a winner and was not counted yet."""
        setup = live.setup
        outcome = live.session.outcome()
        if not setup.rated or outcome is None:
            return
        players = {color: seats.seat_of(setup, color) for color in ("black", "white")}
        users = {color: seat.user for color, seat in players.items() if seat is not None and seat.user}
        if len(users) != 2 or users["black"] == users["white"]:
            return
        game, now = live.record.game, self.now()
        try:
            self._count(live, game, now, users, outcome.winner)
        except Rows.IntegrityError:
            pass  # counted meanwhile by another server process

    def _count(self, live: Live, game: str, now: float, users: dict[str, str], winner: str) -> None:
        with self.db.transaction() as rows:
            # A game counted already (by another process) fails this insert: IntegrityError.
            rows.execute("INSERT INTO rated_games (game_id, counted) VALUES (:g, :t)",
                         {"g": live.record.id, "t": now})
            before: dict[str, tuple[Rating, int]] = {}  # each colour's rating and games, if stored
            for color, user in users.items():
                found = rows.query("SELECT rating, deviation, volatility, games FROM ratings "
                                   "WHERE user_id = :u AND game = :g", {"u": user, "g": game})
                if found:
                    before[color] = (Rating(found[0]["rating"], found[0]["deviation"], found[0]["volatility"]),
                                     int(found[0]["games"]))
            for color, user in users.items():
                mine, games = before.get(color, (Rating(), 0))
                after = rated(mine, [(before.get(other(color), (Rating(), 0))[0], 1.0 if winner == color else 0.0)])
                values = {"u": user, "g": game, "r": after.rating, "d": after.deviation, "v": after.volatility,
                          "n": games + 1, "t": now, "id": live.record.id}
                if color in before:
                    rows.execute("UPDATE ratings SET rating = :r, deviation = :d, volatility = :v, games = :n, "
                                 "updated = :t WHERE user_id = :u AND game = :g", values)
                else:
                    rows.execute("INSERT INTO ratings (user_id, game, rating, deviation, volatility, games, updated) "
                                 "VALUES (:u, :g, :r, :d, :v, :n, :t)", values)
                rows.execute("INSERT INTO rating_history (user_id, game, game_id, at, rating, deviation) "
                             "VALUES (:u, :g, :id, :t, :r, :d)", values)
