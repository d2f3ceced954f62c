"""Round-robin tournaments between AI configurations, run in parallel.

A player is written as a short spec:

* ``level:N`` -- strength level N (1-10) with its own budget;
* ``mcts:1000`` / ``mcts:0.5s`` -- full-knowledge search with 1000 iterations / 0.5 s a move;
* ``uct:1000`` / ``uct:0.5s`` -- the plain UCT baseline (uniform random playouts, no RAVE);
* ``net:400`` / ``net:1s`` -- the network-guided search (:mod:`hexstones.ai.puct`) with 400
  simulations / 1 s a move (the game needs shipped weights); ``net:400@FILE.npz`` plays the
  weights in that file instead (a training run's, to compare two networks);
* ``random`` -- a uniformly random legal move.

Games are independent tasks (a dict in, a dict out) so that any backend can run them:
``serial`` (this process), ``local`` (a process pool on local cores, the default) or
``ray`` (a Ray cluster, or a local Ray instance; Ray is the optional ``ray`` extra).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hexstones.ai.levels import get_level
from hexstones.games import BLACK, GAME_NAMES, WHITE, new_game
from hexstones.session import Resign, ResignWatch
from hexstones.studies.elo import fit_elo, wilson_interval

BACKENDS = ("local", "serial", "ray")
# A game longer than this many moves per board point is stopped and decided by its score.
MAX_MOVES_PER_POINT = 6

_SPEC = re.compile(r"^(?:(level):(\d+)|(mcts|uct|net):(\d+(?:\.\d+)?)(s?)|(random))$")


@dataclass(frozen=True)
class PlayerSpec:
    spec: str
    kind: str  # "level", "mcts", "uct", "net", "random"
    level: int | None = None
    iterations: int | None = None
    seconds: float | None = None
    weights: str | None = None  # net: the weights file it plays (None: the game's own)


def parse_player(text: str) -> PlayerSpec:
    """A :class:`PlayerSpec` from ``level:N``, ``mcts:ITER``, ``uct:ITER``, ``mcts:Ns``,
    ``uct:Ns``, ``net:N`` or ``net:Ns`` (each ``net:`` one optionally ``@WEIGHTS``, a
    network file) or ``random``; ValueError saying what is accepted otherwise."""
    head, at, weights = text.strip().partition("@") if isinstance(text, str) else ("", "", "")
    spec = head.lower()
    if at:
        if not spec.startswith("net:"):
            raise ValueError(f"bad player {text!r}: only a net: player names weights (@FILE)")
        weights_network(weights)  # a clear error now for a file that is not a network's
        found = parse_player(spec)
        return PlayerSpec(f"{spec}@{weights}", "net", iterations=found.iterations,
                          seconds=found.seconds, weights=weights)
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(
            f"bad player {text!r}: write level:N (1-10), mcts:ITERATIONS, uct:ITERATIONS, "
            "net:SIMULATIONS, mcts:SECONDSs, uct:SECONDSs, net:SECONDSs or random"
        )
    if m.group(1):
        level = int(m.group(2))
        get_level(level)
        return PlayerSpec(spec, "level", level=level)
    if m.group(3):
        if m.group(5):
            seconds = float(m.group(4))
            if not seconds > 0:
                raise ValueError(f"bad player {text!r}: the time per move must be positive")
            return PlayerSpec(spec, m.group(3), seconds=seconds)
        if "." in m.group(4) or int(m.group(4)) < 1:
            raise ValueError(f"bad player {text!r}: iterations are a whole number of at least 1")
        return PlayerSpec(spec, m.group(3), iterations=int(m.group(4)))
    return PlayerSpec(spec, "random")


def player_move(player: PlayerSpec, game, seed: int, sample: bool = False) -> str:
    """``player``'s move in ``game``: its search's most visited move (as the levels pick
    it: :func:`hexstones.ai.best_move`), or with ``sample`` one drawn in proportion to the
    visits (seeded), to vary the openings of players whose search draws no random numbers
    (``net:SIMULATIONS``)."""
    return player_turn(player, game, seed, sample)[0]


def player_turn(player: PlayerSpec, game, seed: int,
                sample: bool = False) -> tuple[str, float | None]:
    """:func:`player_move` with the search's win chance for the player to move (None
    where no search ran: a level, a random player, a single legal move)."""
    from hexstones import ai

    if player.kind == "random":
        return random.Random(seed).choice(game.legal_moves()), None
    if player.kind == "level":
        if sample:
            raise ValueError("sampled opening moves need an mcts:, uct: or net: player")
        return ai.choose_move(game, level=player.level, seed=seed), None
    legal = game.legal_moves()
    if len(legal) == 1:
        return legal[0], None
    if player.weights is not None:
        from hexstones.ai import puct

        result = puct.search(game, seconds=player.seconds, iterations=player.iterations,
                             seed=seed, reuse_key=player.spec, analysis=False,
                             network=player_network(player, game.name, game.size))
    else:
        result = ai.search(game, seconds=player.seconds, iterations=player.iterations, seed=seed,
                           knowledge=player.kind != "uct", reuse_key=player.spec,
                           analysis=False, engine="net" if player.kind == "net" else "mcts")
    if not result.children:
        return legal[0], None
    if sample:
        moves, visits = zip(*[(m, v) for m, v, _ in result.children])
        return random.Random(seed).choices(moves, weights=visits)[0], result.root_win_rate
    return ai.best_move(game, result.children, legal), result.root_win_rate


def check_resign(resign: Resign | None, parsed: list) -> Resign | None:
    """``resign`` checked (:meth:`Resign.checked`) for the players ``parsed``: players
    whose search gives a win chance."""
    if resign is None:
        return None
    resign.checked()
    if any(p.kind in ("level", "random") for p in parsed):
        raise ValueError("resigning needs players whose search gives a win chance: "
                         "mcts:, uct: or net:, not a level or random")
    return resign


def weights_network(path: str):
    """The network in the weights file ``path`` (read once a process); ValueError for a
    file that is not a network's weights."""
    from hexstones.ai.net import read_network

    if path not in _WEIGHTS:
        if not path or not os.path.isfile(path):
            raise ValueError(f"no weights file {path!r}")
        try:
            _WEIGHTS[path] = read_network(path)
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{path} holds no network's weights ({exc})") from None
    return _WEIGHTS[path]


_WEIGHTS: dict[str, Any] = {}


def player_network(player: PlayerSpec | None, game_name: str, size: int):
    """The network a ``net:`` player (None: a plain ``net:``) plays ``game_name`` with on
    side ``size``: its own weights (ValueError if they are another game's), else the
    game's in this process (None: it has none)."""
    from hexstones.ai import puct

    if player is None or player.weights is None:
        return puct.network_for(game_name, size)
    network = weights_network(player.weights)
    if network.game != game_name:
        raise ValueError(f"{player.spec}: the weights are {network.game}'s, not {game_name}'s")
    return network


def network_fingerprint(game_name: str, size: int, player: PlayerSpec | None = None) -> str | None:
    """The fingerprint of the network a ``net:`` player (``player``; None: a plain
    ``net:``) plays ``game_name`` with on side ``size`` in this process (None: it has
    none)."""
    network = player_network(player, game_name, size)
    return network.fingerprint if network is not None else None


def network_fields(game_name: str, size: int, black: PlayerSpec, white: PlayerSpec) -> dict[str, Any]:
    """The weights a game's ``net:`` players play with, as its task and record name them:
    ``network`` (one fingerprint) or ``networks`` (two networks: each colour's); nothing
    without a ``net:`` player. A game resumed from a records file after the weights changed
    is then another game."""
    prints = {color: network_fingerprint(game_name, size, p)
              for color, p in ((BLACK, black), (WHITE, white)) if p.kind == "net"}
    if len(set(prints.values())) == 1:
        return {"network": next(iter(prints.values()))}
    return {"networks": prints} if prints else {}


def play_game(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game described by ``task`` and return its record (a plain dict).

    ``task``: game, options (new_game's), black, white (player specs), seed, and
    optionally sample_plies: the game's first moves drawn in proportion to the search's
    visits (:func:`player_move`); resign (``[below, turns]``, see :class:`Resign`) and
    play_out. A resigned game's record has ``resigned`` (the colour) and no score; a game
    played out notes ``would_resign`` (``{"color", "ply"}``) where a player would have
    resigned, and that decides it if the move limit stops it without a score (Droched).
    """
    game = new_game(task["game"], **task.get("options", {}))
    players = {BLACK: parse_player(task["black"]), WHITE: parse_player(task["white"])}
    rng = random.Random(task["seed"])
    sample_plies = int(task.get("sample_plies", 0))
    limit = MAX_MOVES_PER_POINT * game.board.num_points
    start = time.perf_counter()
    watch = ResignWatch(task.get("resign"), bool(task.get("play_out")))
    adjudicated = False
    while not game.is_over:
        if not game.legal_moves():
            break
        if len(game.moves) >= limit:
            adjudicated = True
            break
        mover, sampled = game.to_move, len(game.moves) < sample_plies
        move, win_rate = player_turn(players[mover], game, rng.randrange(2**31), sample=sampled)
        if not sampled and watch.resigns(mover, len(game.moves), win_rate):
            break
        game.play(move)
    result = game.result()
    if watch.resigned is not None:
        result = {"winner": watch.winner(None)}
    elif result is None:  # stopped by the move limit: decided by the score as it stands,
        score = game.score()  # a draw (winner None) in a game without one (Droched),
        winner = None if score is None else (BLACK if score[BLACK] > score[WHITE] else WHITE)
        result = {"winner": watch.winner(winner), "score": score}  # unless one would resign
    record = dict(task)
    if "network" not in record and "networks" not in record:
        record.update(network_fields(task["game"], game.size, players[BLACK], players[WHITE]))
    record.update(winner=result["winner"], moves=list(game.moves), adjudicated=adjudicated,
                  seconds=round(time.perf_counter() - start, 3))
    watch.note(record)
    if result.get("score") is not None:
        record["score"] = result["score"]
    return record


def check_sample_plies(sample_plies: Any, parsed: list) -> int:
    """``sample_plies`` (the task field) checked for the players ``parsed``: a whole
    number of at least 0, and only for players whose search gives visit counts."""
    if isinstance(sample_plies, bool) or not isinstance(sample_plies, int) or sample_plies < 0:
        raise ValueError(f"sampled plies must be a whole number of at least 0, not {sample_plies!r}")
    if sample_plies and any(p.kind == "level" for p in parsed):
        raise ValueError("sampled opening moves need an mcts:, uct: or net: player, not a level")
    return sample_plies


def schedule(players: list[str], games: Iterable[str], *, games_per_pair: int, seed: int = 0,
             options: dict[str, dict[str, Any]] | None = None,
             ladder: bool = False, sample_plies: int = 0,
             resign: Resign | None = None) -> list[dict[str, Any]]:
    """Every pair meets ``games_per_pair`` times in each game, colours alternating.

    ``ladder``: only neighbours in the list meet (1-2, 2-3, ...), to compare each level
    with the one below at a fraction of a round-robin's cost. ``sample_plies``: each
    game's first moves drawn in proportion to the search's visits (a search that draws
    no random numbers, as ``net:N``, otherwise plays one game per pairing and colour).
    ``resign``: when players give up (:class:`Resign`).
    """
    parsed = [parse_player(p) for p in players]
    check_sample_plies(sample_plies, parsed)
    check_resign(resign, parsed)
    specs = [p.spec for p in parsed]
    if len(set(specs)) != len(specs):
        raise ValueError("each player may appear once in a round-robin")
    if len(specs) < 2:
        raise ValueError("a round-robin needs at least two players")
    if isinstance(games_per_pair, bool) or not isinstance(games_per_pair, int) or games_per_pair < 1:
        raise ValueError(f"games per pair must be a whole number of at least 1, not {games_per_pair!r}")
    tasks: list[dict[str, Any]] = []
    for name in games:
        if name not in GAME_NAMES:
            raise ValueError(f"unknown game {name!r}: choose from {', '.join(GAME_NAMES)}")
        opts = dict((options or {}).get(name, {}))
        size = new_game(name, **opts).size  # bad options fail here, before any game is played
        for p in parsed:
            if p.weights is not None:
                player_network(p, name, size)  # weights of another game fail here too
        for i in range(len(specs)):
            for j in range(i + 1, i + 2 if ladder else len(specs)):
                if j >= len(specs):
                    continue
                for k in range(games_per_pair):
                    black, white = (i, j) if k % 2 == 0 else (j, i)
                    task = {"game": name, "options": opts, "black": specs[black],
                            "white": specs[white], "seed": seed * 1_000_003 + len(tasks),
                            **network_fields(name, size, parsed[black], parsed[white])}
                    if sample_plies:
                        task["sample_plies"] = sample_plies
                    if resign is not None:
                        task.update(resign.fields(k))
                    tasks.append(task)
    return tasks


# -- records files: each game kept as it ends -----------------------------------------


def task_key(task: dict[str, Any]) -> tuple:
    """What makes a scheduled game the same game again (a record carries its task's
    fields): a tournament's or a komi study's, which alone has a ``komi``."""
    return (task["game"], json.dumps(task["options"], sort_keys=True), task.get("komi"),
            task["black"], task["white"], task["seed"], task.get("sample_plies", 0),
            task.get("network"), json.dumps(task.get("resign")),
            json.dumps(task.get("networks"), sort_keys=True))


def load_records(path: str, command: str = "hexstones") -> list[dict[str, Any]]:
    """Every game record in the records file ``path`` (none if there is no file yet);
    ValueError naming the line that is not one, but for a torn last line (a run killed
    while writing it)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            task_key(record)
            record["winner"]  # noqa: B018 (a finished game's record has one)
        except (ValueError, KeyError, TypeError, AttributeError):
            if number == len(lines):
                continue
            raise ValueError(f"{path}:{number} is not a game record of {command}") from None
        records.append(record)
    return records


def drop_torn_line(path: str) -> None:
    """Cut an unfinished last line (a run killed while writing it) off the file, so that
    the next record starts a line of its own."""
    if not os.path.exists(path):
        return
    with open(path, "rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)


class RecordWriter:
    """Appends each finished game to a JSON-lines file as it ends (then tells
    ``progress``), so that a run stopped in any way keeps every game it finished."""

    def __init__(self, path: str, progress=None):
        self.path = path
        self.progress = progress
        drop_torn_line(path)

    def update(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        if self.progress is not None:
            self.progress.update(record)


def played_before(path: str, tasks: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(earlier, left)``: the records in ``path`` of these very tasks (each once, in the
    tasks' order) and the tasks still to play; ValueError for a file that is not a
    records file."""
    found: dict[tuple, dict[str, Any]] = {}
    for record in load_records(path, "hexstones tournament"):
        found.setdefault(task_key(record), record)
    keys = [task_key(task) for task in tasks]
    earlier = [found[key] for key in keys if key in found]
    left = [task for task, key in zip(tasks, keys) if key not in found]
    return earlier, left


# -- running tasks on a backend -----------------------------------------------------


def _warm_up(tasks: list[dict[str, Any]]) -> None:
    """Compile the search for each game once before the pool forks, so that workers
    inherit the compiled code instead of compiling it again each."""
    from hexstones.ai import mcts, puct

    seen = set()
    for t in tasks:
        key = (t["game"], json.dumps(t.get("options", {}), sort_keys=True))
        if key not in seen:
            seen.add(key)
            mcts.warm_up(new_game(t["game"], **t.get("options", {})))
            puct.warm_up(new_game(t["game"], **t.get("options", {})))


class Interrupted(Exception):
    """Raised by :func:`run_tasks` on Ctrl-C; ``records`` are the games finished before it
    (in task order), so that hours of play are not lost."""

    def __init__(self, records: list[dict[str, Any]], total: int):
        super().__init__(f"interrupted after {len(records)} of {total} games")
        self.records, self.total = records, total


def run_tasks(tasks: list[dict[str, Any]], *, backend: str = "local", workers: int | None = None,
              on_result: Callable[[dict[str, Any]], None] | None = None,
              ray_address: str | None = None, worker_fn=None) -> list[dict[str, Any]]:
    """Run every task with ``worker_fn`` (default :func:`play_game`); results in task order.
    On KeyboardInterrupt the workers are stopped and :class:`Interrupted` is raised."""
    worker_fn = worker_fn or play_game
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a whole number of at least 1, not {workers!r}")
    results: list[dict[str, Any] | None] = [None] * len(tasks)

    def done(i, record):
        results[i] = record
        if on_result:
            on_result(record)

    try:
        if backend == "serial" or (backend == "local" and (workers == 1 or len(tasks) <= 1)):
            for i, t in enumerate(tasks):
                done(i, worker_fn(t))
        elif backend == "local":
            _run_pool(tasks, workers, done, worker_fn)
        else:
            _run_ray(tasks, workers, ray_address, done, worker_fn)
    except KeyboardInterrupt:
        raise Interrupted([r for r in results if r is not None], len(tasks)) from None
    finished = [r for r in results if r is not None]
    # Every backend returns only once each task has reported its record.
    if len(finished) != len(tasks):
        raise RuntimeError(f"{len(tasks) - len(finished)} of {len(tasks)} tasks gave no record")
    return finished


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (and stops the
    # pool), so the workers print no tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _call_indexed(job):
    worker_fn, i, task = job
    return i, worker_fn(task)


def _run_pool(tasks, workers, done, worker_fn) -> None:
    import multiprocessing

    if worker_fn is play_game:
        _warm_up(tasks)
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    n = workers or os.cpu_count() or 1
    # multiprocessing.Pool, not concurrent.futures: leaving the block (an interrupt
    # included) terminates the workers instead of waiting for their games to end.
    with ctx.Pool(n, initializer=_ignore_interrupts) as pool:
        jobs = [(worker_fn, i, t) for i, t in enumerate(tasks)]
        for i, record in pool.imap_unordered(_call_indexed, jobs):
            done(i, record)


def _run_ray(tasks, workers, address, done, worker_fn) -> None:
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "the ray backend needs Ray: pip install 'hexstones[ray]'"
        ) from None
    started_here = not ray.is_initialized()
    if started_here:
        kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR",
                                  "log_to_driver": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = workers or os.cpu_count() or 1
        ray.init(**kwargs)
    try:
        remote_fn = ray.remote(num_cpus=1)(worker_fn)
        pending = {remote_fn.remote(t): i for i, t in enumerate(tasks)}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                done(pending.pop(ref), ray.get(ref))
    finally:
        if started_here:
            ray.shutdown()


# -- standings, Elo and output -------------------------------------------------------


def shares(record: dict[str, Any]) -> list[tuple[str, str, float]]:
    """(player, opponent, points) for each player who scored in a game: the winner 1, or
    each player 1/2 for a draw (winner None: stopped by the move limit without a score)."""
    black, white = record["black"], record["white"]
    if record["winner"] is None:
        return [(black, white, 0.5), (white, black, 0.5)]
    return [(black, white, 1)] if record["winner"] == BLACK else [(white, black, 1)]


def points_text(x: float) -> str:
    """A points total as people write it: 3, 2.5."""
    return f"{x:g}"


def black_share(record: dict[str, Any]) -> float:
    """Black's points from a game: 1 a win, 1/2 a draw, 0 a loss."""
    return 0.5 if record["winner"] is None else float(record["winner"] == BLACK)


def standings(records: list[dict[str, Any]], players: list[str]) -> dict[str, Any]:
    """Points, Elo (with 95% intervals) and pairwise results, overall and per game."""
    players = list(players)  # names as the records spell them

    def summarise(recs: list[dict[str, Any]]) -> dict[str, Any]:
        wins: dict[tuple[str, str], float] = {}
        points: dict[str, float] = {p: 0 for p in players}
        played = {p: 0 for p in players}
        for r in recs:
            for player, opponent, share in shares(r):
                wins[(player, opponent)] = wins.get((player, opponent), 0) + share
                points[player] += share
            played[r["black"]] += 1
            played[r["white"]] += 1
        elo = fit_elo(players, wins)
        pairs = []
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                n = wins.get((a, b), 0) + wins.get((b, a), 0)
                if n:
                    low, high = wilson_interval(wins.get((a, b), 0), n)
                    pairs.append({"a": a, "b": b, "games": n, "a_wins": wins.get((a, b), 0),
                                  "a_win_rate": wins.get((a, b), 0) / n, "ci95": [low, high]})
        table: list[dict[str, Any]] = [
            {"player": p, "games": played[p], "wins": points[p],
             "win_rate": points[p] / played[p] if played[p] else None, **elo[p]}
            for p in players]
        table.sort(key=lambda row: -row["elo"])
        black_wins = sum(black_share(r) for r in recs)
        return {"games": len(recs), "black_wins": black_wins, "players": table, "pairs": pairs}

    by_game = {}
    for name in dict.fromkeys(r["game"] for r in records):
        by_game[name] = summarise([r for r in records if r["game"] == name])
    return {"overall": summarise(records), "by_game": by_game}


def format_table(summary: dict[str, Any]) -> str:
    lines = []
    sections = [("all games", summary["overall"])] + list(summary["by_game"].items())
    # as wide as the longest player's name (net:N@FILE names a file)
    width = max([16] + [len(row["player"]) for _, s in sections for row in s["players"]])
    for title, s in sections:
        lines.append(f"{title}: {s['games']} games, Black won {points_text(s['black_wins'])}")
        lines.append(f"  {'player':<{width}} {'games':>5} {'wins':>5} {'win%':>6} {'Elo':>7} {'±95%':>6}")
        for row in s["players"]:
            rate = "-" if row["win_rate"] is None else f"{100 * row['win_rate']:.1f}"
            lines.append(f"  {row['player']:<{width}} {row['games']:>5} {points_text(row['wins']):>5} "
                         f"{rate:>6} {row['elo']:>7.0f} {row['ci95']:>6.0f}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


class Progress:
    """A one-line progress bar on a stream: games done and the current leaders.

    On a terminal the line redraws in place; elsewhere (a log file) it prints a new line
    only every tenth of the way, so logs stay short.
    """

    def __init__(self, total: int, players: list[str], stream=None, width: int = 24,
                 black_wins: bool = False):
        self.total, self.players, self.width = total, players, width
        self.black_wins = black_wins  # self-play study: show Black's wins, not players'
        self.black_won: float = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.points: dict[str, float] = {p: 0 for p in players}
        self.played = {p: 0 for p in players}
        self._last_tenth = -1

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.black_won += black_share(record)
        for player, _, share in shares(record):
            self.points[player] = self.points.get(player, 0) + share
        for p in (record["black"], record["white"]):
            self.played[p] = self.played.get(p, 0) + 1
        tenth = self.done * 10 // max(self.total, 1)
        if self.tty or tenth != self._last_tenth or self.done == self.total:
            self._last_tenth = tenth
            end = "\n" if not self.tty or self.done == self.total else ""
            self.stream.write(("\r" if self.tty else "") + self.line() + end)
            self.stream.flush()

    def line(self) -> str:
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        if self.black_wins:
            return (f"[{bar}] {self.done}/{self.total} games | "
                    f"Black won {points_text(self.black_won)}/{self.done}")
        leaders = sorted(self.points, key=lambda p: -self.points[p] / max(self.played.get(p, 0), 1))
        board = "  ".join(f"{p} {points_text(self.points[p])}/{self.played.get(p, 0)}"
                          for p in leaders[:4])
        return f"[{bar}] {self.done}/{self.total} games | {board}"
