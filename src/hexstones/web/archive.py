"""The archive: finished games, searched by player, game, board side, result and date,
newest first, a page at a time; a player's games as one SGF collection; a profile's
record and recent games.

**Who sees what.** A finished game is shown to everyone if it is *public*: made with the
``public`` choice (a seek's or challenge's "public" box, or ``public=yes`` in a game link:
a game online, against the AI or at one screen). Every other game (an invitation's game,
which is private unless made public, a game against the AI or at one screen made without
``public``) is shown only to its players: the person who started it and the holders of its
seats (:func:`hexstones.web.seats.is_player`). Games still being played are not in the
archive (the watch page lists the public ones).

**A player's games** are those in which an account holds the seat of a colour: games
online against a person or one of the AI's accounts. A game against the AI from the start
page, or at one screen, is nobody's by name (it may still be public, and listed).

**Results**: ``black`` / ``white`` (that colour won, however), ``resignation``, ``time``
(a flag fell), ``rules`` (the rules' end: a score, or no legal action), ``aborted`` (a
first move not made in time: nobody won).

**Queries.** The ``games`` table keeps the setup as JSON text; one query a batch reads the
finished games newest first (its ``updated`` time: when the game ended), narrowed in SQL
by the columns (game, time) and by the JSON text (the player's account id, ``public``,
the board side), then checked exactly in Python on the parsed setup: the text match only
skips rows that cannot match (the setup is always written by ``json.dumps``, ``"key":
value``). A page stops reading once it is full, so the newest pages cost the same however
long the archive grows; the ratings of a page's games come in one more query.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from hexstones.games import BLACK, GAME_NAMES, WHITE, other
from hexstones.web import seats
from hexstones.web.accounts import Identity
from hexstones.web.errors import WebError, shown, whole
from hexstones.web.game_setup import GameSetup, Holder
from hexstones.web.live import Live, Tables, replay
from hexstones.web.rows import column_text
from hexstones.web.spec import spec_of
from hexstones.web.store import (
    GAME_COLUMNS,
    DamagedGame,
    Store,
    StoredGame,
    games_table,
    moves_table,
    stored_game_of,
)
from hexstones.web.texts import control_text, summary_text

PAGE_SIZE = 20  # games on a page of the archive
RECENT_GAMES = 10  # games a profile shows
MAX_PAGE = 10_000
MAX_COLLECTION = 500  # games in one SGF download: a player's newest
BATCH = 200  # rows read at a time
RESULTS = ("black", "white", "resignation", "time", "rules", "aborted")
SEARCH_PARAMS = ("player", "game", "size", "result", "from", "to", "page")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_g = games_table.c


@dataclass(frozen=True)
class Search:
    """What an archive search asks for (all optional); ``start``/``end``: times, the end
    excluded; ``player``: an account's id."""

    player: str | None = None
    game: str | None = None
    size: int | None = None
    result: str | None = None
    start: float | None = None
    end: float | None = None
    page: int = 1


def parse_search(params: dict[str, str], named) -> Search:
    """The search of ``params`` (:data:`SEARCH_PARAMS`, empty ones left out); ``named``
    finds an account by name (``(id, name)`` or None). A 400 saying what is wrong with a
    value, a 404 for a player name no account has."""
    given = {key: value.strip() for key, value in params.items() if value.strip()}
    player = None
    if "player" in given:
        found = named(given["player"])
        if found is None:
            raise WebError(404, "no player named {name}: search by an account's name", name=shown(given["player"]))
        player = found[0]
    game = given.get("game", "").lower() or None
    if game is not None and game not in GAME_NAMES:
        raise WebError(400, "game must be one of {games}, not {value}", games=", ".join(GAME_NAMES),
                       value=shown(given["game"]))
    size = None
    if "size" in given:
        size = whole(given["size"], "size")
        sizes = [spec_of(g)["sizes"] for g in ([game] if game else GAME_NAMES)]
        low, high = min(s[0] for s in sizes), max(s[1] for s in sizes)
        if not low <= size <= high:
            raise WebError(400, "size must be a board side from {low} to {high}, not {size}", low=low, high=high,
                           size=size)
    result = given.get("result", "").lower() or None
    if result is not None and result not in RESULTS:
        raise WebError(400, "result must be one of {results}, not {value}", results=", ".join(RESULTS),
                       value=shown(given["result"]))
    start = _day(given.get("from"), "from")
    end = _day(given.get("to"), "to")
    if start is not None and end is not None and end < start:
        raise WebError(400, "the date range ends before it starts: from {start} to {end}", start=given["from"],
                       end=given["to"])
    page = whole(given.get("page", "1"), "page")
    if not 1 <= page <= MAX_PAGE:
        raise WebError(400, "page must be from 1 to {most}, not {page}", most=MAX_PAGE, page=page)
    return Search(player, game, size, result, start, None if end is None else end + 86400, page)


def _day(text: str | None, what: str) -> float | None:
    """The start of the UTC day ``text`` (YYYY-MM-DD) as a time; a 400 if it is no date."""
    if text is None:
        return None
    try:
        if not _DATE.fullmatch(text):
            raise ValueError
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise WebError(400, "{what} must be a date written YYYY-MM-DD (like 2026-03-01), not {value}", what=what,
                       value=shown(text)) from None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


# -- a finished game's facts ------------------------------------------------------------------


def result_of(record: StoredGame) -> tuple[str | None, str | None]:
    """``(winner, reason)`` of a finished game: the reason is ``resignation``, ``time``,
    ``aborted`` (no winner), or the rules' ``score`` / ``no legal action``, read from its
    summary (written by ``Outcome.text``: "Black wins by 3.5 (...)", "White wins: Black has
    no legal action"); ``(None, None)`` for a summary that says neither."""
    setup = record.setup
    if record.resigned is not None:
        return other(record.resigned), "resignation"
    if setup.flagged is not None:
        return other(setup.flagged), "time"
    if setup.aborted:
        return None, "aborted"
    words = record.summary.split()
    if len(words) >= 2 and words[0].lower() in (BLACK, WHITE) and words[1] == "wins":
        return words[0].lower(), "no legal action" if "has no legal action" in record.summary else "score"
    return None, None


def matches_result(record: StoredGame, result: str) -> bool:
    winner, reason = result_of(record)
    if result in (BLACK, WHITE):
        return winner == result
    if result == "rules":
        return reason in ("score", "no legal action")
    return reason == result


def seat_users(setup: GameSetup) -> set[str]:
    """The accounts holding a seat (a colour, or a komi pie role) of a game online."""
    return {seat.user for seat in (setup.seats or {}).values() if seat is not None and seat.user}


def players_of(setup: GameSetup) -> list[tuple[str | None, Holder | None, str]]:
    """``(colour, holder, name)`` of each player, Black first: the seats of a game online
    (colour None where a komi pie never decided it), else the person who started it and
    the AI (an imported record's names where it has them)."""
    if setup.friend_game:
        held: list[tuple[str | None, Holder | None]] = [(c, seats.seat_of(setup, c)) for c in (BLACK, WHITE)]
        if all(h is None for _, h in held) and setup.pie is not None:
            held = [(None, h) for h in (setup.seats or {}).values()]
        return [(c, h, h.name or "a guest" if h is not None else "an open seat") for c, h in held]
    found: list[tuple[str | None, Holder | None, str]] = []
    for c in (BLACK, WHITE):
        if (setup.players or {}).get(c) == "ai":
            found.append((c, None, f"AI level {setup.level_for(c)}"))
        else:
            owner = setup.owner
            name = (setup.names or {}).get(c) or (owner.name if owner is not None else None) or "a player"
            found.append((c, None, name))
    return found


# -- reading the archive ---------------------------------------------------------------------


def _like(text: str) -> str:
    """``text`` for inside a LIKE pattern (its own % and _ taken literally)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _json_has(column: Any, fragment: str) -> Any:
    return column.like(f"%{_like(fragment)}%", escape="\\")


def archive_of(app: Any) -> Archive:
    """The archive of ``app``'s games (it keeps nothing but the store: made when asked)."""
    return Archive(app.state.store)


class Archive:
    """The finished games of ``store``, as each person may see them."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _candidates(self, search: Search, who: Identity | None) -> Iterator[tuple[StoredGame, int]]:
        """The finished games that may match, newest first (with their move counts), read
        :data:`BATCH` at a time; a row that cannot be read is skipped."""
        count = (sa.select(sa.func.count()).select_from(moves_table).where(moves_table.c.game_id == _g.id)
                 .scalar_subquery().label("move_count"))
        query = sa.select(*GAME_COLUMNS, _g.updated.label("ended"), count).where(_g.finished == 1)
        if search.game is not None:
            query = query.where(_g.game == search.game)
        if search.start is not None:
            query = query.where(_g.updated >= search.start)
        if search.end is not None:
            query = query.where(_g.updated < search.end)
        if search.player is not None:
            query = query.where(_json_has(_g.setup, f'"user": "{search.player}"'))
        if search.size is not None:
            query = query.where(sa.or_(_json_has(_g.options, f'"size": {search.size},'),
                                       _json_has(_g.options, f'"size": {search.size}}}')))
        if search.result == "resignation":
            query = query.where(_g.resigned.is_not(None))
        elif search.result == "time":
            query = query.where(_json_has(_g.setup, '"flagged": "'))
        elif search.result == "aborted":
            query = query.where(_json_has(_g.setup, '"aborted": true'))
        mine: Any = sa.false()
        if who is not None:  # a seat taken before signing in is the session's
            mine = _json_has(_g.setup, f'"session": "{who.session}"')
            if who.user:
                mine = sa.or_(mine, _json_has(_g.setup, f'"user": "{who.user}"'))
        query = query.where(sa.or_(_json_has(_g.setup, '"public": true'), mine))
        query = query.order_by(_g.updated.desc(), _g.id.desc()).limit(BATCH)
        after: tuple[float, Any] | None = None
        while True:
            batch = query if after is None else query.where(sa.or_(
                _g.updated < after[0], sa.and_(_g.updated == after[0], _g.id < after[1])))
            with self.store.reading() as connection:
                rows = connection.execute(batch).all()
            for row in rows:
                try:
                    yield stored_game_of(row._mapping), int(row._mapping["move_count"])
                except DamagedGame:
                    continue  # the list of games says what is wrong with it
            if len(rows) < BATCH:
                return
            # The id as text: SQLite's reader gives bytes, which SQLite would compare as a BLOB.
            after = (rows[-1]._mapping["ended"], column_text(rows[-1]._mapping["id"]))

    def games(self, search: Search, who: Identity | None) -> Iterator[tuple[StoredGame, int]]:
        """The finished games ``who`` may see that match ``search`` (its page aside), newest
        first."""
        for record, moves in self._candidates(search, who):
            setup = record.setup
            if not (setup.public or seats.is_player(setup, who)):
                continue
            if search.player is not None and search.player not in seat_users(setup):
                continue
            if search.size is not None and record.options.get("size") != search.size:
                continue
            if search.result is not None and not matches_result(record, search.result):
                continue
            yield record, moves

    def search(self, search: Search, who: Identity | None, per_page: int = PAGE_SIZE) -> dict[str, Any]:
        """One page of the search: ``{games: [...], page, per_page, more}`` (``more``: a
        next page has games)."""
        skip = (search.page - 1) * per_page
        found: list[tuple[StoredGame, int]] = []
        more = False
        for index, item in enumerate(self.games(search, who)):
            if index < skip:
                continue
            if len(found) == per_page:
                more = True
                break
            found.append(item)
        return {"games": self.shown(found), "page": search.page, "per_page": per_page, "more": more}

    def shown(self, found: list[tuple[StoredGame, int]]) -> list[dict[str, Any]]:
        """The archive's line of each game (nothing secret: names, never sessions or ids)."""
        ratings = self._ratings([record for record, _ in found if record.setup.rated])
        return [line(record, moves, ratings) for record, moves in found]

    def _ratings(self, records: list[StoredGame]) -> dict[tuple[str, str], dict[str, float]]:
        """``(account, game id) -> {rating, change}`` of the rated games ``records``: the
        rating after the game and what the game moved it by (one query)."""
        users = sorted({user for record in records for user in seat_users(record.setup)})
        if not users:
            return {}
        statement = sa.text(
            "SELECT user_id, game_id, rating, previous FROM (SELECT user_id, game_id, rating, "
            "LAG(rating) OVER (PARTITION BY user_id, game ORDER BY at) AS previous FROM rating_history "
            "WHERE user_id IN :users) AS h WHERE game_id IN :ids").bindparams(
            sa.bindparam("users", expanding=True), sa.bindparam("ids", expanding=True))
        with self.store.reading() as connection:
            rows = connection.execute(statement, {"users": users, "ids": [r.id for r in records]}).all()
        found = {}
        for user, game_id, rating, previous in rows:
            before = 1500.0 if previous is None else previous
            found[(column_text(user), column_text(game_id))] = {"rating": round(rating, 1),
                                                                "change": round(rating - before, 1)}
        return found

    def visible(self, game_ids: list[str], who: Identity | None) -> set[str]:
        """Which of ``game_ids`` ``who`` may see listed (public, or their own)."""
        if not game_ids:
            return set()
        with self.store.reading() as connection:
            rows = connection.execute(sa.select(*GAME_COLUMNS).where(_g.id.in_(game_ids))).all()
        seen = set()
        for row in rows:
            try:
                record = stored_game_of(row._mapping)
            except DamagedGame:
                continue
            if record.setup.public or seats.is_player(record.setup, who):
                seen.add(record.id)
        return seen

    # -- a profile --------------------------------------------------------------------------

    def record(self, user: str, who: Identity | None) -> dict[str, dict[str, int]]:
        """``user``'s record in each game, over their finished games ``who`` may see:
        ``games``, ``wins``, ``losses``, ``aborted``, and the wins and losses on time and
        by resignation."""
        keys = ("games", "wins", "losses", "aborted", "won_on_time", "lost_on_time",
                "won_by_resignation", "lost_by_resignation")
        record = {game: dict.fromkeys(keys, 0) for game in GAME_NAMES}
        for game, _ in self.games(Search(player=user), who):
            tally = record.get(game.game)
            if tally is None:
                continue
            colors = [c for c in (BLACK, WHITE) if (s := seats.seat_of(game.setup, c)) is not None and s.user == user]
            winner, reason = result_of(game)
            tally["games"] += 1
            if reason == "aborted":
                tally["aborted"] += 1
                continue
            if winner is None or not colors:
                continue
            won = winner in colors
            tally["wins" if won else "losses"] += 1
            if reason == "time":
                tally["won_on_time" if won else "lost_on_time"] += 1
            elif reason == "resignation":
                tally["won_by_resignation" if won else "lost_by_resignation"] += 1
        return record

    def recent(self, user: str, who: Identity | None) -> list[dict[str, Any]]:
        """``user``'s latest :data:`RECENT_GAMES` finished games ``who`` may see."""
        return self.search(Search(player=user), who, RECENT_GAMES)["games"]

    # -- the SGF collection -----------------------------------------------------------------

    def collection(self, user: str, who: Identity | None, tables: Tables) -> tuple[str, int]:
        """``user``'s finished games ``who`` may see (the newest :data:`MAX_COLLECTION`),
        as one SGF collection, newest first, and how many games it holds. The moves come in
        one query per :data:`BATCH` games."""
        from hexstones.records import write_sgf

        found = []
        for item in self.games(Search(player=user), who):
            found.append(item[0])
            if len(found) == MAX_COLLECTION:
                break
        for name in sorted({record.game for record in found}):
            tables.rules_for(name)  # compiled by the AI's warm-up, not a second time here
        trees = []
        for start in range(0, len(found), BATCH):
            chunk = found[start:start + BATCH]
            with self.store.reading() as connection:
                rows = connection.execute(
                    sa.select(moves_table.c.game_id, moves_table.c.ply, moves_table.c.move)
                    .where(moves_table.c.game_id.in_([r.id for r in chunk]))
                    .order_by(moves_table.c.game_id, moves_table.c.ply)).all()
            moves: dict[str, list[str]] = {}
            for game_id, _, move in rows:
                moves.setdefault(column_text(game_id), []).append(column_text(move))
            for record in chunk:
                record.moves = moves.get(record.id, [])
                try:
                    live = Live(record, replay(record))
                except DamagedGame:
                    continue  # opening the game says what is wrong with it
                trees.append(write_sgf(live.game, **sgf_information(live)).strip())
        return "\n".join(trees) + ("\n" if trees else ""), len(trees)


def sgf_information(live: Live) -> dict[str, Any]:
    """What the SGF record of an archived game says besides its moves: the players' names,
    the result (a resignation; a flag or an abort, which no rule ends: "B+T", "Void"),
    the day it ended (UTC), its name."""
    setup = live.setup
    names = {c: name for c, _, name in players_of(setup) if c is not None}
    info: dict[str, Any] = {"players": (names.get(BLACK), names.get(WHITE)), "resigned": live.record.resigned}
    outcome = live.session.outcome()
    if outcome is not None and outcome.reason == "time":
        info["result"] = f"{outcome.winner[0].upper()}+T"
    elif setup.aborted:
        info["result"] = "Void"
    info["date"] = dt.datetime.fromtimestamp(live.record.updated, dt.UTC).date().isoformat()
    if setup.name:
        info["game_name"] = setup.name
    return info


def line(record: StoredGame, moves: int, ratings: dict[tuple[str, str], dict[str, float]]) -> dict[str, Any]:
    """One game's line in the archive."""
    setup = record.setup
    winner, reason = result_of(record)
    players = []
    for color, holder, name in players_of(setup):
        user = holder.user if holder is not None else None
        rating = ratings.get((user, record.id)) if user else None
        players.append({"color": color, "name": name, "rating": rating})
    return {
        "id": record.id, "url": f"/game/{record.id}", "game": record.game, "title": spec_of(record.game)["title"],
        "size": record.options.get("size"), "name": setup.name, "players": players,
        "clock": None if setup.time_control is None else control_text(setup.time_control.describe()),
        "rated": setup.rated, "public": setup.public,
        "result": {"winner": winner, "reason": reason, "text": summary_text(record.summary)},
        "ended": record.updated, "moves": moves,
    }
