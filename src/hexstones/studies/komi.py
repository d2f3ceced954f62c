"""The fair-komi study: self-play across balance values.

For each komi (Droched: black stones in the prison) the same AI plays both sides a
number of games; Black's win rate with its 95% Wilson interval is recorded, and the fair
komi is the value whose win rate is nearest 50%. Games run on any tournament backend.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from hexstones.games import GAME_NAMES, game_class, new_game
from hexstones.session import Resign
from hexstones.studies.elo import wilson_interval
from hexstones.studies.plots import line_plot
from hexstones.studies.tournament import (
    black_share,
    check_resign,
    check_sample_plies,
    load_records,
    network_fields,
    parse_player,
    points_text,
    task_key,
)


def default_komis(game_name: str) -> list[int]:
    """The balance values a study tries when none are given (the game's study range)."""
    low, high = game_class(game_name).balance.study_range
    return list(range(low, high + 1))


def balance_option(game_name: str) -> str:
    return game_class(game_name).balance.option


def balance_label(game_name: str) -> str:
    return game_class(game_name).balance.label


def study_tasks(game_name: str, size: int, komis: list[int], *, games_per_komi: int,
                player: str, seed: int = 0, sample_plies: int = 0,
                resign: Resign | None = None) -> list[dict[str, Any]]:
    """The games of a study. ``sample_plies``: each game's first moves are drawn in
    proportion to the search's visits, so that a player whose search draws no random
    numbers (``net:SIMULATIONS``) plays different games. ``resign``: when a player gives
    up (:class:`~hexstones.session.Resign`; every ``check``-th game at each komi is
    played out)."""
    if game_name not in GAME_NAMES:
        raise ValueError(f"unknown game {game_name!r}: choose from {', '.join(GAME_NAMES)}")
    parsed = parse_player(player)
    spec = parsed.spec
    check_sample_plies(sample_plies, [parsed])
    check_resign(resign, [parsed])
    if not komis:
        raise ValueError("the study needs at least one komi value")
    if isinstance(games_per_komi, bool) or not isinstance(games_per_komi, int) or games_per_komi < 1:
        raise ValueError(f"games per komi must be a whole number of at least 1, not {games_per_komi!r}")
    # A net: player's games are of the weights it plays with: a study resumed after they
    # changed does not count the other weights' games as its own.
    networks = network_fields(game_name, size, parsed, parsed)
    tasks: list[dict[str, Any]] = []
    for komi in komis:
        options = {"size": size, balance_option(game_name): komi}
        new_game(game_name, **options)  # a bad size or komi fails before any game
        for j in range(games_per_komi):
            task = {"game": game_name, "options": options, "black": spec, "white": spec,
                    "komi": komi, "seed": seed * 1_000_003 + len(tasks)}
            if sample_plies:
                task["sample_plies"] = sample_plies
            if resign is not None:
                task.update(resign.fields(j))
            task.update(networks)
            tasks.append(task)
    # Played in turns across the komi values (each keeps its seeds), so that a study
    # stopped early has about as many games at every value.
    turns = sorted(range(len(tasks)), key=lambda i: (i % games_per_komi, i // games_per_komi))
    return [tasks[i] for i in turns]


def _config_key(task: dict[str, Any]) -> tuple:
    """A study's game without its seed: what the game is a sample of."""
    return task_key(task)[:5] + task_key(task)[6:]


def _games_asked(tasks: list[dict[str, Any]]) -> dict[tuple, int]:
    """How many games the tasks ask of each configuration (at each komi)."""
    return dict(Counter(_config_key(task) for task in tasks))


def read_records(path: str, tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games of ``tasks`` already played in the records file ``path`` (JSON lines;
    no file yet: none): at each komi, up to as many as the tasks ask there, the games of
    these very tasks first, then other games of the same configuration (game, options,
    komi, players, sampling) in the file's order, as a study run before with another
    number of games per komi left them (its seeds differ). Games of other configurations
    are left out; a torn last line (a study killed while writing) is ignored."""
    wanted = {task_key(task) for task in tasks}
    room = _games_asked(tasks)
    same: dict[tuple, dict[str, Any]] = {}
    other: dict[tuple, dict[str, Any]] = {}
    for record in load_records(path, "hexstones komi"):
        key = task_key(record)
        if _config_key(record) in room:
            (same if key in wanted else other).setdefault(key, record)
    found = []
    for record in list(same.values()) + list(other.values()):
        if room[_config_key(record)] > 0:
            room[_config_key(record)] -= 1
            found.append(record)
    return found


def left_to_play(tasks: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tasks still to play once ``earlier`` (:func:`read_records`) are counted: at each
    komi only as many as it lacks, in the study's order."""
    done = {task_key(r) for r in earlier}
    room = _games_asked(tasks)
    for record in earlier:
        room[_config_key(record)] -= 1
    left = []
    for task in tasks:
        if task_key(task) not in done and room[_config_key(task)] > 0:
            room[_config_key(task)] -= 1
            left.append(task)
    return left


def recorded_games(path: str, game_name: str, size: int, *, player: str | None = None,
                   komis: list[int] | None = None) -> list[dict[str, Any]]:
    """The games of ``game_name`` on side ``size`` in the records file ``path``, each once
    (a game recorded twice has one seed), of ``player`` self-play and at ``komis`` where
    given. ValueError when there are none, or when they are of several players (or one
    player with several networks' weights): a study's table is of one player."""
    spec = parse_player(player).spec if player is not None else None
    found: dict[tuple, dict[str, Any]] = {}
    for record in load_records(path, "hexstones komi"):
        if (record["game"] == game_name and record["options"].get("size") == size
                and (spec is None or (record["black"], record["white"]) == (spec, spec))
                and (komis is None or record["komi"] in komis)):
            found.setdefault(task_key(record), record)
    if not found:
        who = f" of {player} self-play" if player is not None else ""
        raise ValueError(f"{path} holds no {game_name} game of side {size}{who}"
                         + (f" at {', '.join(map(str, komis))}" if komis is not None else ""))
    players = study_players(list(found.values()))
    if len(players) > 1:
        raise ValueError(f"{path} holds games of {len(players)} players ({'; '.join(players)}): "
                         "choose one with --player, or keep each player's games (each network's, "
                         "each resignation threshold's) in a file of their own")
    return list(found.values())


def study_players(records: list[dict[str, Any]]) -> list[str]:
    """The players (with their opening sampling) of a study's games, as a user names them."""
    def named(r: dict[str, Any]) -> str:
        who = r["black"] if r["black"] == r["white"] else f"{r['black']} against {r['white']}"
        return (who + (f", --sample-plies {r['sample_plies']}" if r.get("sample_plies") else "")
                + (f", weights {r['network']}" if r.get("network") else "")
                + (f", --resign {r['resign'][0]:g}:{r['resign'][1]}" if r.get("resign") else ""))

    return sorted({named(r) for r in records})


def summarise(game_name: str, size: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows per komi (games, Black's wins and win rate with 95% interval) and the fair komi."""
    by_komi: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        by_komi.setdefault(r["komi"], []).append(r)
    rows: list[dict[str, Any]] = []
    for komi in sorted(by_komi):
        recs = by_komi[komi]
        wins = sum(black_share(r) for r in recs)
        low, high = wilson_interval(wins, len(recs))
        rows.append({"komi": komi, "games": len(recs), "black_wins": wins,
                     "black_win_rate": wins / len(recs), "ci95": [low, high],
                     "unfinished": sum(r["winner"] is None for r in recs)})
    fair = min(rows, key=lambda row: (abs(row["black_win_rate"] - 0.5), abs(row["komi"])))
    return {"game": game_name, "size": size, "balance": balance_label(game_name),
            "rows": rows, "fair_komi": fair["komi"], "fair_row": fair,
            "fit": logistic_fit([r["komi"] for r in records], [black_share(r) for r in records]),
            "margins": margin_estimate(game_name, records),
            "resignations": resignation_check(records),
            "player": records[0]["black"] if records else None,
            "sample_plies": records[0].get("sample_plies", 0) if records else 0}


def resignation_check(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How the games of players that resign ended, and how often a resignation would have
    been wrong: of the games played out (``play_out``) in which a player would have
    resigned and the rules then decided, those that player won. None if no game's
    players resign."""
    resigning = [r for r in records if r.get("resign")]
    if not resigning:
        return None
    out = [r for r in resigning if r.get("play_out")]
    checked = [r for r in out if r.get("would_resign") and not r.get("adjudicated")]
    wrong = sum(r["winner"] == r["would_resign"]["color"] for r in checked)
    low, high = wilson_interval(wrong, len(checked)) if checked else (0.0, 1.0)
    return {"threshold": resigning[0]["resign"], "games": len(resigning),
            "resigned": sum("resigned" in r for r in resigning), "played_out": len(out),
            "would_resign": sum("would_resign" in r for r in out), "checked": len(checked),
            "wrong": wrong, "wrong_ci95": [low, high]}


def board_margin(record: dict[str, Any]) -> float:
    """Black's final margin before komi (the board and the half point) of a finished
    game's record, in a game whose balance is a komi for White."""
    return record["score"]["black"] - record["score"]["white"] + record["komi"]


def margin_estimate(game_name: str, records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fair komi read from the games' margins before komi: their median (Black wins
    at komi ``k`` iff that margin exceeds ``k``, so half the games are Black's at the
    median), with a 95% interval from the order statistics. Every game counts whatever
    komi it was played at, so it says more per game than the win rates where the margins
    spread wide (a point of komi then moves few games); it assumes the players play the
    board the same at each komi of the study. Also: the share of games whose margin is
    within 10 points of the median. None for games whose balance is not a komi, or with
    fewer than 10 finished games."""
    if not game_class(game_name).balance.offsets_score:
        return None
    margins = np.sort([board_margin(r) for r in records if r.get("score") and r["winner"]])
    n = len(margins)
    if n < 10:
        return None
    median = float(np.median(margins))
    # The ranks that bound the median with 95% confidence (the normal approximation of
    # the binomial count of margins below it).
    half = 1.96 * math.sqrt(n) / 2
    low = margins[max(0, math.floor(n / 2 - half) - 1)]
    high = margins[min(n - 1, math.ceil(n / 2 + half))]
    near = float(np.mean(np.abs(margins - median) <= 10))
    return {"median": median, "ci95": [float(low), float(high)], "games": n,
            "within_10": round(near, 3)}


def logistic_fit(komis: list[float], black: list[float]) -> dict[str, Any] | None:
    """Black's win (1, 0, or 0.5 for a game without a result) against komi as a logistic
    curve, fitted by maximum likelihood (Newton's method): where it crosses 50% with a 95%
    interval (the delta method), and its slope in log-odds a point of komi. None when the
    games cannot place a crossing: fewer than two komi values, a flat fit, or separated
    outcomes (every game below some komi won by Black, above it lost), where the fit has
    no maximum."""
    x = np.asarray(komis, dtype=float)
    y = np.asarray(black, dtype=float)
    if len(set(komis)) < 2:
        return None
    design = np.stack([np.ones_like(x), x], axis=1)
    beta = np.zeros(2)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        info = design.T @ (design * (p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(info, design.T @ (y - p))
        except np.linalg.LinAlgError:
            return None
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        return None
    a, b = float(beta[0]), float(beta[1])
    if not (math.isfinite(a) and math.isfinite(b)) or abs(b) < 1e-9 or abs(b) > 20:
        return None
    cov = np.linalg.inv(info)
    crossing = -a / b
    grad = np.array([-1.0 / b, a / b**2])
    half = 1.96 * math.sqrt(max(float(grad @ cov @ grad), 0.0))
    slope_half = 1.96 * math.sqrt(cov[1, 1])
    return {"crossing": round(crossing, 3), "ci95": [round(crossing - half, 3), round(crossing + half, 3)],
            "slope": round(b, 4), "slope_ci95": [round(b - slope_half, 4), round(b + slope_half, 4)],
            # Every balance is White's (komi, prison stones), so Black's chance falls with
            # it; a slope that the games do not show falling places no crossing (the
            # interval above then means nothing).
            "resolved": bool(b + slope_half < 0),
            "games": len(komis)}


def format_table(summary: dict[str, Any]) -> str:
    lines = [f"{summary['game']} side {summary['size']} ({summary['player']} self-play); "
             f"balance: {summary['balance']}",
             f"  {'komi':>5} {'games':>6} {'Black wins':>10} {'Black %':>8}   95% interval"]
    for row in summary["rows"]:
        low, high = row["ci95"]
        mark = "  <- nearest 50%" if row is summary["fair_row"] else ""
        lines.append(f"  {row['komi']:>5} {row['games']:>6} {points_text(row['black_wins']):>10} "
                     f"{100 * row['black_win_rate']:>7.1f}%   {100 * low:.0f}-{100 * high:.0f}%{mark}")
    unfinished = [(row["komi"], row.get("unfinished", 0)) for row in summary["rows"]]
    if any(n for _, n in unfinished):
        # A game stopped at the move limit has no winner: it counts half, and many of
        # them say more about the player than about the balance.
        lines.append("games stopped at the move limit without a result (each counted half): "
                     + ", ".join(f"{n} at {komi}" for komi, n in unfinished if n))
    lines.append(f"fair komi: {summary['fair_komi']}")
    fit = summary.get("fit")
    if fit:
        low, high = fit["ci95"]
        if fit.get("resolved", True):
            lines.append(f"logistic fit over the {fit['games']} games: 50% at {fit['crossing']:.2f} "
                         f"(95% {low:.2f} to {high:.2f}), slope {fit['slope']:+.3f} log-odds a point")
        else:
            slope_low, slope_high = fit["slope_ci95"]
            lines.append(f"logistic fit over the {fit['games']} games: no crossing, Black's win "
                         f"rate is not seen to fall with the {summary['balance']} (slope "
                         f"{fit['slope']:+.3f} log-odds a point, 95% {slope_low:+.3f} to "
                         f"{slope_high:+.3f})")
    check = summary.get("resignations")
    if check:
        below, turns = check["threshold"]
        line = (f"resignations (win chance below {below:g} on {turns} turns in a row): "
                f"{check['resigned']} of {check['games']} games; {check['played_out']} played "
                f"out to check, in {check['would_resign']} a player would have resigned")
        if check["checked"]:
            low, high = check["wrong_ci95"]
            line += (f"; of the {check['checked']} of those the rules decided, that player "
                     f"won {check['wrong']} (95% {100 * low:.0f}-{100 * high:.0f}%)")
        lines.append(line)
    margins = summary.get("margins")
    if margins:
        low, high = margins["ci95"]
        lines.append(f"Black's margin before komi over the {margins['games']} finished games: "
                     f"median {margins['median']:+g} (95% {low:+g} to {high:+g}), "
                     f"{100 * margins['within_10']:.0f}% of them within 10 points of it")
    return "\n".join(lines) + "\n"


def plot(summary: dict[str, Any]) -> str:
    rows = summary["rows"]
    return line_plot(
        [r["komi"] for r in rows], [r["black_win_rate"] for r in rows],
        [r["ci95"][0] for r in rows], [r["ci95"][1] for r in rows],
        title=f"{summary['game'].capitalize()} side {summary['size']}: Black's win rate",
        x_label=summary["balance"], y_label="Black wins (95% interval)",
    )
