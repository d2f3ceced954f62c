"""Tournaments: Swiss and round robin between accounts (people and the AI's accounts), on
any game, board side and clock, rated or not.

A signed-in person makes one (:meth:`Tournaments.create`: a name, the games' choices as a
seek's, the system, Swiss rounds, the most players, and a start time or none: then its
creator starts it). Until the start, accounts join and leave (:meth:`~Tournaments.join`,
:meth:`~Tournaments.leave`) and the creator may add the AI's accounts
(:meth:`~Tournaments.add_bot`, each level refusing a clock it cannot keep, as it refuses a
challenge: :meth:`hexstones.web.bots.Bots.refusal`).

At the start (its time, or :meth:`~Tournaments.start` by the creator) the players are
seeded by their rating in the game, then by when they joined, and each round is paired
(:mod:`hexstones.web.pairing`: Swiss, or round robin's circle) and its games made as a
seek's accepted game is: both seats filled, the clock started, the AI playing a bot's seat,
rated if the tournament is. A round ends when all its games have: the next is paired at
once, and after the last the tournament finishes with a winner. A game's result is its
winner's point (a draw half each); a game aborted because a first move was not made loses
for the player who did not make it; a Swiss bye is a point (a round robin's none: each
player has one).

Standings: points, then Buchholz (Swiss: the points of one's opponents) or
Sonneborn-Berger (round robin: the points of the opponents one beat, half of those drawn),
then the seed.

Everything moves on from :meth:`Tournaments.advance`, which the app's time keeper runs
every :data:`ADVANCE_SECONDS` (and every look at a tournament first), on the app's clock:
a tournament goes on with no page open and after a restart. Each step is a conditional
update of the database (a round moves on only from the round it was at; a game is attached
to its board only while the board has none; a round's boards are a primary key), so with
several server processes on one database a round is paired once: the step that loses
changes nothing (a game it made meanwhile is deleted).

The tables are made by the migration r0012_tournaments.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from hexstones.games import BLACK, WHITE
from hexstones.web import pairing
from hexstones.web.accounts import Identity, name_key
from hexstones.web.bots import Bots, bot_name
from hexstones.web.broker import user_topic
from hexstones.web.errors import Phrase, WebError, choice, only_known, shown, whole
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.live import Tables
from hexstones.web.ratings import Ratings
from hexstones.web.rows import column_text
from hexstones.web.setup import NewGame, parse_setup
from hexstones.web.spec import spec_of
from hexstones.web.texts import control_text

log = logging.getLogger("hexstones.web")

SYSTEMS = ("swiss", "round-robin")
OPEN, RUNNING, FINISHED, CANCELLED = "open", "running", "finished", "cancelled"
MAX_NAME = 60  # characters of a tournament's name
MAX_ROUNDS = 20  # of a Swiss tournament
DEFAULT_ROUNDS = 3
MIN_PLAYERS, MAX_PLAYERS, DEFAULT_MAX_PLAYERS = 2, 64, 16
MAX_AHEAD = 90 * 86400  # seconds: the latest start time, from now
ADVANCE_SECONDS = 1.0  # between the time keeper's looks at the tournaments in a process
LISTED = 100  # tournaments a list shows of each kind
GAME_CHOICES = ("game", "size", "komi", "clock", "rated", "public")
CHOICES = ("name", "system", "rounds", "max_players", "starts_at", *GAME_CHOICES)
POINTS = {BLACK: (1.0, 0.0), WHITE: (0.0, 1.0), "draw": (0.5, 0.5), "none": (0.0, 0.0)}


@dataclass(frozen=True)
class Tournament:
    """One stored tournament (see the module)."""

    id: str
    name: str
    creator: str
    game: str
    choices: dict[str, Any]
    system: str
    rounds: int | None
    max_players: int
    entrants: int
    starts_at: float | None
    status: str
    round: int
    created: float
    started: float | None
    finished: float | None
    winner: str | None

    @classmethod
    def of_row(cls, row: dict[str, Any]) -> Tournament:
        row = {key: column_text(value) for key, value in row.items()}
        return cls(row["id"], row["name"], row["creator"], row["game"], json.loads(row["choices"]), row["system"],
                   row["rounds"], row["max_players"], row["entrants"], row["starts_at"], row["status"], row["round"],
                   row["created"], row["started"], row["finished"], row["winner"])

    @property
    def new_game(self) -> NewGame:
        return parse_setup(dict(self.choices, opponent="friend"))

    @property
    def bye_points(self) -> float:
        # A Swiss bye is a round without an opponent, worth a win; in a round robin each
        # player sits one round out, so it is worth nothing to anyone.
        return 1.0 if self.system == "swiss" else 0.0


def check_choices(data: dict[str, Any], now: float) -> tuple[dict[str, Any], NewGame]:
    """A new tournament's choices, checked (a 400 saying what is wrong), and its games'
    new-game choices checked as a seek's would be."""
    only_known(data, CHOICES, "tournament choice")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
        raise WebError(400, "a tournament's name is text of 1 to {most} characters on one line, "
                            "not {value}", most=MAX_NAME, value=shown(name))
    system = choice(data.get("system"), "system", SYSTEMS, "swiss")
    if system == "round-robin" and data.get("rounds") not in (None, ""):
        raise WebError(400, "a round robin has as many rounds as it needs for everyone to meet everyone: "
                            "leave out rounds")
    rounds = None
    if system == "swiss":
        rounds = whole(data.get("rounds", DEFAULT_ROUNDS), "rounds")
        if not 1 <= rounds <= MAX_ROUNDS:
            raise WebError(400, "a Swiss tournament has 1 to {most} rounds, not {rounds}", most=MAX_ROUNDS,
                           rounds=rounds)
    max_players = whole(data.get("max_players", DEFAULT_MAX_PLAYERS), "max_players")
    if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
        raise WebError(400, "max_players must be from {low} to {high}, not {value}", low=MIN_PLAYERS,
                       high=MAX_PLAYERS, value=max_players)
    starts_at = data.get("starts_at")
    if starts_at in (None, ""):
        starts_at = None
    elif (not isinstance(starts_at, (int, float)) or isinstance(starts_at, bool)
          or not math.isfinite(starts_at)):
        raise WebError(400, "starts_at is the start time in seconds since 1970 (UTC), not {value}; "
                            "leave it out to start the tournament yourself", value=shown(starts_at))
    elif starts_at <= now:
        raise WebError(400, "the start time has passed: give a later one, or leave it out to start the "
                            "tournament yourself")
    elif starts_at > now + MAX_AHEAD:
        raise WebError(400, "the start time is more than {days} days away: give an earlier one",
                       days=MAX_AHEAD // 86400)
    games = {key: data[key] for key in GAME_CHOICES if key in data}
    games.setdefault("public", "yes")  # a tournament's games are there to be watched
    new = parse_setup(dict(games, opponent="friend"))
    if new.setup.time_control is None:
        raise WebError(400, "a tournament is played on a clock, so that every round ends: give clock= "
                            "(fischer, byoyomi or days)")
    games["game"] = new.game
    return {"name": name.strip(), "system": system, "rounds": rounds, "max_players": max_players,
            "starts_at": None if starts_at is None else float(starts_at), "games": games}, new


class Tournaments:
    """The tournaments of one app, in its games database."""

    def __init__(self, tables: Tables, clock: Callable[[], float], ratings: Ratings, bots: Bots) -> None:
        self.tables = tables
        self.store = tables.store
        self.clock = clock
        self.ratings = ratings
        self.bots = bots
        self._advancing = threading.Lock()  # one advance at a time in this process
        self._last_advance = -math.inf
        tables.watchers.append(self.advance_now_and_then)

    # -- reading --------------------------------------------------------------------------

    def _query(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        return [{k: column_text(v) for k, v in row.items()} for row in self.store.query(sql, params)]

    def get(self, tournament_id: str) -> Tournament:
        rows = self.store.query("SELECT * FROM tournaments WHERE id = :id", {"id": tournament_id})
        if not rows:
            raise WebError(404, "no tournament with id {tournament}", tournament=shown(tournament_id))
        return Tournament.of_row(rows[0])

    def players(self, tournament_id: str) -> list[dict[str, Any]]:
        """The players, in seed order once seeded (else in the order they joined)."""
        return self._query("SELECT p.user_id, u.name, p.seed, p.joined FROM tournament_players p "
                           "JOIN users u ON u.id = p.user_id WHERE p.tournament_id = :t "
                           "ORDER BY p.seed, p.joined, u.name", t=tournament_id)

    def boards(self, tournament_id: str) -> list[dict[str, Any]]:
        """Every round's boards, in order."""
        return self._query("SELECT round, board, black, white, game_id, result FROM tournament_games "
                           "WHERE tournament_id = :t ORDER BY round, board", t=tournament_id)

    # -- before the start -------------------------------------------------------------------

    @staticmethod
    def _account(who: Identity | None, what: str) -> Identity:
        if who is None:
            raise WebError(401, "sign in to {what}: only accounts play in tournaments", what=what)
        if not who.user:
            raise WebError(403, "sign in (or sign up) to {what}: only accounts play in tournaments, "
                                "guests watch", what=what)
        return who

    def create(self, who: Identity | None, data: dict[str, Any]) -> Tournament:
        """A new tournament made by ``who`` (an account), open to join."""
        user = self._account(who, Phrase("make a tournament")).user
        now = self.clock()
        checked, new = check_choices(data, now)
        tournament_id = secrets.token_hex(8)
        with self.store.transaction() as tx:
            tx.connection.execute(sa.text(
                "INSERT INTO tournaments (id, name, creator, game, choices, system, rounds, max_players, entrants, "
                "starts_at, status, round, created) VALUES (:id, :name, :creator, :game, :choices, :system, :rounds, "
                ":max_players, 0, :starts_at, :status, 0, :now)"),
                {"id": tournament_id, "name": checked["name"], "creator": user, "game": new.game,
                 "choices": json.dumps(checked["games"]), "system": checked["system"], "rounds": checked["rounds"],
                 "max_players": checked["max_players"], "starts_at": checked["starts_at"], "status": OPEN,
                 "now": now})
        return self.get(tournament_id)

    def join(self, tournament_id: str, who: Identity | None) -> Tournament:
        """``who`` (an account) joins before the start."""
        user = self._account(who, Phrase("join a tournament")).user
        assert user is not None
        self._enter(self.get(tournament_id), user, "you")
        return self.get(tournament_id)

    def add_bot(self, tournament_id: str, who: Identity | None, name: Any) -> Tournament:
        """The creator adds one of the AI's accounts, by its name, if its level can keep the
        tournament's clock."""
        tournament = self._creators(tournament_id, who, Phrase("add the AI's accounts"))
        found = self._account_named(name)
        level = None if found is None else self.bots.level_of(found)
        if found is None or level is None:
            raise WebError(400, "{name} is not one of the AI's accounts: give one of {names}", name=shown(name),
                           names=", ".join(b["name"] for b in self.bots.listing(None) if b["level"] is not None))
        refusal = Bots.refusal(level, tournament.new_game)
        if refusal is not None:
            raise WebError(400, "{name} cannot play this tournament: {reason}", name=bot_name(level), reason=refusal)
        self._enter(tournament, found, bot_name(level))
        return self.get(tournament_id)

    def _account_named(self, name: Any) -> str | None:
        """The id of the account called ``name``, None if there is none."""
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            return None
        rows = self.store.query("SELECT id FROM users WHERE name_key = :k", {"k": name_key(name.strip())})
        return column_text(rows[0]["id"]) if rows else None

    def _enter(self, tournament: Tournament, user: str, whom: str) -> None:
        """Add ``user`` to an open tournament with room, once (409s saying why not)."""
        self._require_open(tournament, Phrase("join it"))
        joined = self.store.query("SELECT 1 FROM tournament_players WHERE tournament_id = :t AND user_id = :u",
                                  {"t": tournament.id, "u": user})
        if joined:
            raise self._entered(whom)
        with self.store.transaction() as tx:
            # One conditional update takes the place (and, on PostgreSQL, locks the row
            # against a start or another join meanwhile).
            taken = tx.connection.execute(sa.text(
                "UPDATE tournaments SET entrants = entrants + 1 WHERE id = :t AND status = :open "
                "AND entrants < max_players"), {"t": tournament.id, "open": OPEN}).rowcount
            if taken:
                try:
                    tx.connection.execute(sa.text(
                        "INSERT INTO tournament_players (tournament_id, user_id, seed, joined) "
                        "VALUES (:t, :u, NULL, :now)"), {"t": tournament.id, "u": user, "now": self.clock()})
                except sa_exc.IntegrityError:  # joined meanwhile, by another request
                    raise self._entered(whom) from None
        if not taken:
            current = self.get(tournament.id)
            self._require_open(current, Phrase("join it"))
            raise WebError(409, "this tournament is full: {most} players at most", most=current.max_players)

    @staticmethod
    def _entered(whom: str) -> WebError:
        """The refusal of entering ``whom`` ("you", or a bot's name) a second time."""
        if whom == "you":
            return WebError(409, "you are in this tournament already")
        return WebError(409, "{name} is in this tournament already", name=whom)

    @staticmethod
    def _require_open(tournament: Tournament, what: str) -> None:
        if tournament.status == OPEN:
            return
        if tournament.status == CANCELLED:
            raise WebError(409, "this tournament was cancelled: too few players at its start; nobody can {what}",
                           what=what)
        raise WebError(409, "this tournament has started: nobody can {what} any more", what=what)

    def leave(self, tournament_id: str, who: Identity | None) -> Tournament:
        """``who`` leaves before the start (the creator may also take out a bot: ``user``)."""
        user = self._account(who, Phrase("leave a tournament")).user
        tournament = self.get(tournament_id)
        self._require_open(tournament, Phrase("leave it"))
        with self.store.transaction() as tx:
            gone = tx.connection.execute(sa.text(
                "DELETE FROM tournament_players WHERE tournament_id = :t AND user_id = :u AND EXISTS "
                "(SELECT 1 FROM tournaments WHERE id = :t AND status = :open)"),
                {"t": tournament_id, "u": user, "open": OPEN}).rowcount
            if gone:
                tx.connection.execute(sa.text("UPDATE tournaments SET entrants = entrants - 1 WHERE id = :t"),
                                      {"t": tournament_id})
        if not gone:
            self._require_open(self.get(tournament_id), Phrase("leave it"))
            raise WebError(409, "you are not in this tournament: join it first")
        return self.get(tournament_id)

    def _creators(self, tournament_id: str, who: Identity | None, what: str) -> Tournament:
        tournament = self.get(tournament_id)
        user = self._account(who, what).user
        if user != tournament.creator:
            raise WebError(403, "only the tournament's creator may {what}", what=what)
        return tournament

    def start(self, tournament_id: str, who: Identity | None) -> Tournament:
        """The creator starts the tournament now: its first round is paired and played."""
        tournament = self._creators(tournament_id, who, Phrase("start it"))
        self._require_open(tournament, Phrase("start it"))
        if tournament.entrants < MIN_PLAYERS:
            raise WebError(409, "a tournament needs at least {least} players to start: it has {count}",
                           least=MIN_PLAYERS, count=tournament.entrants)
        if not self._begin(tournament):
            current = self.get(tournament_id)
            self._require_open(current, Phrase("start it"))
            raise WebError(409, "a tournament needs at least {least} players to start: it has {count}",
                           least=MIN_PLAYERS, count=current.entrants)
        self._make_games(self.get(tournament_id))
        return self.get(tournament_id)

    # -- progress ---------------------------------------------------------------------------

    def advance_now_and_then(self) -> None:
        """:meth:`advance`, at most once every ADVANCE_SECONDS in this process."""
        now = time.monotonic()
        if now - self._last_advance >= ADVANCE_SECONDS:
            self._last_advance = now
            self.advance()

    def advance(self, tournament_id: str | None = None) -> None:
        """Bring the tournaments (or the one of ``tournament_id``) up to date: start those
        whose time came (or cancel them, with too few players), record the results of the
        games that ended, pair the next round of those whose round ended, finish those whose
        last round did. Skipped while another advance runs in this process."""
        if not self._advancing.acquire(blocking=False):
            return
        try:
            if tournament_id is None:
                rows = self.store.query("SELECT * FROM tournaments WHERE status IN (:open, :running)",
                                        {"open": OPEN, "running": RUNNING})
                tournaments = [Tournament.of_row(row) for row in rows]
            else:
                tournaments = [self.get(tournament_id)]
            for tournament in tournaments:
                try:
                    self._step(tournament)
                except WebError as exc:
                    log.warning("tournament %s cannot go on now: %s", tournament.id, exc.message)
                except Exception as exc:  # noqa: BLE001  (the database away: the next look tries again)
                    log.warning("tournament %s cannot go on now: %r", tournament.id, exc)
        finally:
            self._advancing.release()

    def _step(self, tournament: Tournament) -> None:
        now = self.clock()
        if tournament.status == OPEN:
            if tournament.starts_at is None or tournament.starts_at > now:
                return
            if not self._begin(tournament):
                with self.store.transaction() as tx:
                    tx.connection.execute(sa.text(
                        "UPDATE tournaments SET status = :cancelled, finished = :now WHERE id = :t "
                        "AND status = :open AND entrants < :least"),
                        {"cancelled": CANCELLED, "now": now, "t": tournament.id, "open": OPEN,
                         "least": MIN_PLAYERS})
                return
            tournament = self.get(tournament.id)
        if tournament.status != RUNNING:
            return
        self._make_games(tournament)
        self._record_results(tournament)
        boards = [b for b in self.boards(tournament.id) if b["round"] == tournament.round]
        if any(b["result"] is None for b in boards):
            return
        if tournament.round < (tournament.rounds or 0):
            if self._pair_next(tournament):
                self._make_games(self.get(tournament.id))
        else:
            self._finish(tournament)

    def _seeds(self, tournament: Tournament, users: list[tuple[str, float]]) -> list[str]:
        """The players' ids in seed order: best rating in the game first, then who joined first."""
        rating = {user: self.ratings.of(user)[tournament.game]["rating"] for user, _ in users}
        return [user for user, joined in sorted(users, key=lambda u: (-rating[u[0]], u[1], u[0]))]

    def _begin(self, tournament: Tournament) -> bool:
        """Start an open tournament with enough players: seeds, rounds and the first round's
        boards, in one transaction that only one caller's conditional update gets into.
        Whether this call started it."""
        users = [(column_text(r["user_id"]), r["joined"]) for r in self.store.query(
            "SELECT user_id, joined FROM tournament_players WHERE tournament_id = :t", {"t": tournament.id})]
        if len(users) < MIN_PLAYERS:
            return False
        seeded = self._seeds(tournament, users)
        rounds = tournament.rounds if tournament.system == "swiss" else pairing.round_robin_rounds(len(seeded))
        with self.store.transaction() as tx:
            c = tx.connection
            # The players of the transaction, which no join or leave can change under it.
            inside = {column_text(r[0]) for r in c.execute(sa.text(
                "SELECT user_id FROM tournament_players WHERE tournament_id = :t"), {"t": tournament.id})}
            if inside != set(seeded):
                return False  # someone joined or left meanwhile: the next look starts it
            started = c.execute(sa.text(
                "UPDATE tournaments SET status = :running, round = 1, rounds = :rounds, started = :now "
                "WHERE id = :t AND status = :open AND entrants >= :least"),
                {"running": RUNNING, "rounds": rounds, "now": self.clock(), "t": tournament.id, "open": OPEN,
                 "least": MIN_PLAYERS}).rowcount
            if not started:
                return False
            for seed, user in enumerate(seeded):
                c.execute(sa.text("UPDATE tournament_players SET seed = :s WHERE tournament_id = :t AND user_id = :u"),
                          {"s": seed, "t": tournament.id, "u": user})
            first = (pairing.swiss_round([pairing.Record(user, seed=seed) for seed, user in enumerate(seeded)])
                     if tournament.system == "swiss" else pairing.round_robin_round(seeded, 1))
            self._insert_round(c, tournament.id, 1, first)
        return True

    @staticmethod
    def _insert_round(c: sa.Connection, tournament_id: str, number: int, paired: pairing.Pairing) -> None:
        for board, (black, white) in enumerate(paired.games, start=1):
            c.execute(sa.text("INSERT INTO tournament_games (tournament_id, round, board, black, white) "
                              "VALUES (:t, :r, :b, :black, :white)"),
                      {"t": tournament_id, "r": number, "b": board, "black": black, "white": white})
        if paired.bye is not None:
            c.execute(sa.text("INSERT INTO tournament_games (tournament_id, round, board, black, white, result) "
                              "VALUES (:t, :r, :b, :black, NULL, 'bye')"),
                      {"t": tournament_id, "r": number, "b": len(paired.games) + 1, "black": paired.bye})

    def _pair_next(self, tournament: Tournament) -> bool:
        """Pair the round after ``tournament.round``, if no one did: whether this call did."""
        number = tournament.round + 1
        with self.store.transaction() as tx:
            c = tx.connection
            moved = c.execute(sa.text(
                "UPDATE tournaments SET round = :next WHERE id = :t AND status = :running AND round = :now_round "
                "AND NOT EXISTS (SELECT 1 FROM tournament_games WHERE tournament_id = :t AND round = :now_round "
                "AND result IS NULL)"),
                {"next": number, "t": tournament.id, "running": RUNNING, "now_round": tournament.round}).rowcount
            if not moved:
                return False
            seeds = {column_text(r[0]): r[1] for r in c.execute(sa.text(
                "SELECT user_id, seed FROM tournament_players WHERE tournament_id = :t"), {"t": tournament.id})}
            if tournament.system == "swiss":
                boards = [{k: column_text(v) for k, v in r._mapping.items()} for r in c.execute(sa.text(
                    "SELECT round, board, black, white, result FROM tournament_games WHERE tournament_id = :t "
                    "ORDER BY round, board"), {"t": tournament.id})]
                paired = pairing.swiss_round(records(seeds, boards, tournament.bye_points))
            else:
                paired = pairing.round_robin_round(sorted(seeds, key=lambda u: seeds[u]), number)
            self._insert_round(c, tournament.id, number, paired)
        return True

    def _finish(self, tournament: Tournament) -> None:
        table = standings(tournament, self.players(tournament.id), self.boards(tournament.id))
        winner = table[0]["user"] if table else None
        with self.store.transaction() as tx:
            tx.connection.execute(sa.text(
                "UPDATE tournaments SET status = :finished, finished = :now, winner = :w WHERE id = :t "
                "AND status = :running AND round = :r"),
                {"finished": FINISHED, "now": self.clock(), "w": winner, "t": tournament.id, "running": RUNNING,
                 "r": tournament.round})

    def _make_games(self, tournament: Tournament) -> None:
        """Make the games of the round's boards that have none yet."""
        names = {p["user_id"]: p["name"] for p in self.players(tournament.id)}
        for board in self.boards(tournament.id):
            if board["round"] == tournament.round and board["white"] is not None and board["game_id"] is None:
                self._make_game(tournament, board, names)

    def _make_game(self, tournament: Tournament, board: dict[str, Any], names: dict[str, str]) -> None:
        """The game of one board, as a seek's accepted game: both seats filled, the AI
        playing a bot's; attached to the board unless another process attached one first."""
        holders: dict[str, Holder | None] = {BLACK: Holder(None, board["black"], names.get(board["black"])),
                                             WHITE: Holder(None, board["white"], names.get(board["white"]))}
        levels = {color: level for color in (BLACK, WHITE) if (level := self.bots.level_of(board[color])) is not None}
        label = f"{tournament.name}, round {board['round']}"

        # The tournament owns its games: no player may delete one (a loss for both) or rename it.
        owner = Holder(None, f"tournament:{tournament.id}", tournament.name)

        def claim(setup: GameSetup, _color: str | None) -> GameSetup:
            setup = setup.replace(owner=owner, seats=holders, invite=None, name=label)
            if levels:  # the AI plays each bot's seat, at that bot's level
                setup = setup.replace(level=max(levels.values()), levels=levels if len(levels) == 2 else None,
                                      players={color: "ai" if color in levels else "human" for color in (BLACK, WHITE)})
            return setup

        game_id = self.tables.create(dict(tournament.choices, opponent="friend", color=BLACK), claim=claim)["id"]
        with self.store.transaction() as tx:
            attached = tx.connection.execute(sa.text(
                "UPDATE tournament_games SET game_id = :g WHERE tournament_id = :t AND round = :r AND board = :b "
                "AND game_id IS NULL"),
                {"g": game_id, "t": tournament.id, "r": board["round"], "b": board["board"]}).rowcount
        if not attached:
            try:
                self.tables.delete(game_id)  # another process made this board's game first
            except WebError as exc:
                log.warning("the game %s of a board paired twice stays: %s", game_id, exc.message)
            return
        for color in (BLACK, WHITE):
            if self.bots.level_of(board[color]) is None:  # their "My games" lists hear of it
                self.store.broker.publish(user_topic(board[color]), {"game": game_id, "change": "seated"})

    def _record_results(self, tournament: Tournament) -> None:
        for board in self.boards(tournament.id):
            if board["round"] != tournament.round or board["result"] is not None or board["game_id"] is None:
                continue
            result = self.result_of(board["game_id"])
            if result is None:
                continue
            with self.store.transaction() as tx:
                tx.connection.execute(sa.text(
                    "UPDATE tournament_games SET result = :res WHERE tournament_id = :t AND round = :r "
                    "AND board = :b AND result IS NULL"),
                    {"res": result, "t": tournament.id, "r": board["round"], "b": board["board"]})

    def result_of(self, game_id: str) -> str | None:
        """The result of a tournament game: "black" or "white" (who won), "draw", "none"
        (the game is gone: both lose); None while it goes on. A game aborted for a first move
        not made is lost by the player who did not make it."""
        rows = self.store.query("SELECT finished FROM games WHERE id = :id", {"id": game_id})
        if not rows:
            return "none"
        if not rows[0]["finished"]:
            return None
        live = self.tables.get(game_id)
        with live.lock:
            if not live.over:
                return None
            outcome = live.session.outcome()
            if outcome is not None:
                return outcome.winner if outcome.winner in (BLACK, WHITE) else "draw"
            if live.setup.aborted:
                # Black's first move is the game's first, white's its second.
                return WHITE if not live.game.moves else BLACK
            return "none"

    # -- what pages show ----------------------------------------------------------------------

    def view(self, tournament_id: str, who: Identity | None) -> dict[str, Any]:
        """Everything about one tournament (``GET /api/tournaments/<id>``)."""
        tournament = self.get(tournament_id)
        players = self.players(tournament_id)
        boards = self.boards(tournament_id)
        names = {p["user_id"]: p["name"] for p in players}
        user = who.user if who is not None else None
        table = standings(tournament, players, boards)
        rounds: dict[int, dict[str, Any]] = {}
        for b in boards:
            shown_round = rounds.setdefault(b["round"], {"round": b["round"], "games": [], "bye": None})
            if b["white"] is None:
                shown_round["bye"] = names.get(b["black"])
                continue
            shown_round["games"].append({
                "board": b["board"], "black": names.get(b["black"]), "white": names.get(b["white"]),
                "game": b["game_id"], "url": None if b["game_id"] is None else f"/game/{b['game_id']}",
                "result": b["result"], "score": score_text(b["result"])})
        creator = self._query("SELECT name FROM users WHERE id = :u", u=tournament.creator)
        new = tournament.new_game
        return {
            **self.summary(tournament, new), "creator": creator[0]["name"] if creator else None,
            "yours": user == tournament.creator, "joined": any(p["user_id"] == user for p in players),
            "signed_in": bool(user),
            "players": [{"name": p["name"], "seed": None if p["seed"] is None else p["seed"] + 1,
                         "bot": self.bots.level_of(p["user_id"]) is not None} for p in players],
            "rounds": [rounds[n] for n in sorted(rounds)],
            "standings": [{key: row[key] for key in ("place", "name", "points", "tiebreak", "wins", "draws", "losses",
                                                     "byes", "games")} for row in table],
            "crosstable": crosstable(table, boards, tournament.bye_points),
        }

    def summary(self, tournament: Tournament, new: NewGame | None = None) -> dict[str, Any]:
        """What a list shows of a tournament."""
        new = new or tournament.new_game
        winner = (self._query("SELECT name FROM users WHERE id = :u", u=tournament.winner)
                  if tournament.winner else [])
        control = new.setup.time_control
        return {
            "id": tournament.id, "name": tournament.name, "url": f"/tournaments/{tournament.id}",
            "game": tournament.game, "title": spec_of(tournament.game)["title"], "size": new.options.get("size"),
            "clock": None if control is None else control.text,
            "clock_text": None if control is None else control_text(control.describe()), "rated": new.setup.rated,
            "system": tournament.system, "tiebreak": "Buchholz" if tournament.system == "swiss" else "Sonneborn-Berger",
            "round_count": tournament.rounds, "round": tournament.round, "max_players": tournament.max_players,
            "entrants": tournament.entrants, "starts_at": tournament.starts_at, "status": tournament.status,
            "created": tournament.created, "started": tournament.started, "finished": tournament.finished,
            "winner": winner[0]["name"] if winner else None,
        }

    def listing(self) -> dict[str, list[dict[str, Any]]]:
        """The upcoming (open), running and finished (or cancelled) tournaments, newest first."""
        answer: dict[str, list[dict[str, Any]]] = {"upcoming": [], "running": [], "finished": []}
        kinds = {OPEN: "upcoming", RUNNING: "running", FINISHED: "finished", CANCELLED: "finished"}
        for status in (OPEN, RUNNING, FINISHED, CANCELLED):
            rows = self.store.query("SELECT * FROM tournaments WHERE status = :s ORDER BY created DESC LIMIT :n",
                                    {"s": status, "n": LISTED})
            answer[kinds[status]].extend(self.summary(Tournament.of_row(row)) for row in rows)
        answer["finished"].sort(key=lambda t: -(t["finished"] or t["created"]))
        return answer


# -- standings --------------------------------------------------------------------------------------

def score_text(result: str | None) -> str | None:
    """A board's result as scores are written: "1-0", "0-1", "½-½", "0-0"; None while played."""
    if result is None or result == "bye":
        return None
    black, white = POINTS[result]
    return f"{_points(black)}-{_points(white)}"


def _points(value: float) -> str:
    return "½" if value == 0.5 else str(int(value))


def records(seeds: dict[str, int], boards: list[dict[str, Any]], bye_points: float) -> list[pairing.Record]:
    """Each player's record for the Swiss pairing, from the boards played so far."""
    score = {user: 0.0 for user in seeds}
    met: dict[str, set[str]] = {user: set() for user in seeds}
    colors: dict[str, list[str]] = {user: [] for user in seeds}
    byes: set[str] = set()
    for b in sorted(boards, key=lambda b: (b["round"], b["board"])):
        if b["white"] is None:
            byes.add(b["black"])
            score[b["black"]] = score.get(b["black"], 0.0) + (bye_points if b["result"] == "bye" else 0.0)
            continue
        black, white = POINTS.get(b["result"] or "none", (0.0, 0.0))
        for user, other_user, color, points in ((b["black"], b["white"], BLACK, black),
                                                (b["white"], b["black"], WHITE, white)):
            if user in seeds:
                score[user] += points
                met[user].add(other_user)
                colors[user].append(color)
    return [pairing.Record(user, score[user], seed, frozenset(met[user]), tuple(colors[user]), user in byes)
            for user, seed in seeds.items()]


def standings(tournament: Tournament, players: list[dict[str, Any]],
              boards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The players best first: points, then the tie-break (Buchholz for Swiss,
    Sonneborn-Berger for round robin), then the seed; only finished games count."""
    names = {p["user_id"]: p["name"] for p in players}
    seed = {p["user_id"]: (p["seed"] if p["seed"] is not None else i) for i, p in enumerate(players)}
    rows = {user: {"user": user, "name": names[user], "points": 0.0, "wins": 0, "draws": 0, "losses": 0,
                   "byes": 0, "games": 0, "met": []} for user in names}
    for b in boards:
        if b["result"] is None:
            continue
        if b["white"] is None:
            if b["black"] in rows:
                rows[b["black"]]["byes"] += 1
                rows[b["black"]]["points"] += tournament.bye_points
            continue
        black, white = POINTS[b["result"]]
        for user, other_user, points in ((b["black"], b["white"], black), (b["white"], b["black"], white)):
            if user not in rows:
                continue
            row = rows[user]
            row["points"] += points
            row["games"] += 1
            row["wins" if points == 1 else "draws" if points == 0.5 else "losses"] += 1
            row["met"].append((other_user, points))
    for row in rows.values():
        if tournament.system == "swiss":
            row["tiebreak"] = sum(rows[o]["points"] for o, _ in row["met"] if o in rows)
        else:
            row["tiebreak"] = sum(rows[o]["points"] * p for o, p in row["met"] if o in rows)
    ordered = sorted(rows.values(), key=lambda r: (-r["points"], -r["tiebreak"], seed[r["user"]]))
    for place, row in enumerate(ordered, start=1):
        row["place"] = place
    return ordered


def crosstable(table: list[dict[str, Any]], boards: list[dict[str, Any]], bye_points: float) -> dict[str, Any]:
    """The crosstable in standings order: a row per player, a cell per opponent (the games
    between them: the points scored, colour, round and game), and the byes."""
    index = {row["user"]: i for i, row in enumerate(table)}
    cells: list[list[list[dict[str, Any]]]] = [[[] for _ in table] for _ in table]
    byes: list[list[int]] = [[] for _ in table]
    for b in boards:
        if b["white"] is None:
            if b["black"] in index:
                byes[index[b["black"]]].append(b["round"])
            continue
        black, white = POINTS.get(b["result"], (None, None)) if b["result"] else (None, None)
        for user, opponent, color, points in ((b["black"], b["white"], BLACK, black),
                                              (b["white"], b["black"], WHITE, white)):
            if user in index and opponent in index:
                cells[index[user]][index[opponent]].append({
                    "round": b["round"], "color": color, "game": b["game_id"],
                    "points": None if points is None else _points(points)})
    return {"players": [row["name"] for row in table], "bye_points": bye_points,
            "rows": [{"name": row["name"], "place": row["place"], "points": row["points"], "tiebreak": row["tiebreak"],
                      "cells": cells[i], "byes": byes[i]} for i, row in enumerate(table)]}


def tournaments_of(app: Any) -> Tournaments:
    """The app's tournaments (``app.state.tournaments``, made with the app)."""
    return app.state.tournaments
