"""The fair-komi study: self-play across balance values.

For each komi (Droched: black stones in the prison) the same AI plays both sides a
number of games; Black's win rate with its 95% Wilson interval is recorded, and the fair
komi is the value whose win rate is nearest 50%. Games run on any tournament backend.
"""

from __future__ import annotations

from typing import Any

from hexstones.ai.elo import wilson_interval
from hexstones.ai.svgplot import line_plot
from hexstones.ai.tournament import black_share, parse_player, points_text
from hexstones.games import GAME_NAMES, game_class, new_game


def default_komis(game_name: str) -> list[int]:
    """The balance values a study tries when none are given (the game's study range)."""
    low, high = game_class(game_name).balance.study_range
    return list(range(low, high + 1))


def balance_option(game_name: str) -> str:
    return game_class(game_name).balance.option


def balance_label(game_name: str) -> str:
    return game_class(game_name).balance.label


def study_tasks(game_name: str, size: int, komis: list[int], *, games_per_komi: int,
                player: str, seed: int = 0) -> list[dict[str, Any]]:
    if game_name not in GAME_NAMES:
        raise ValueError(f"unknown game {game_name!r}: choose from {', '.join(GAME_NAMES)}")
    spec = parse_player(player).spec
    if not komis:
        raise ValueError("the study needs at least one komi value")
    if isinstance(games_per_komi, bool) or not isinstance(games_per_komi, int) or games_per_komi < 1:
        raise ValueError(f"games per komi must be a whole number of at least 1, not {games_per_komi!r}")
    tasks = []
    for komi in komis:
        options = {"size": size, balance_option(game_name): komi}
        new_game(game_name, **options)  # a bad size or komi fails before any game
        for _ in range(games_per_komi):
            tasks.append({"game": game_name, "options": options, "black": spec, "white": spec,
                          "komi": komi, "seed": seed * 1_000_003 + len(tasks)})
    return tasks


def summarise(game_name: str, size: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows per komi (games, Black's wins and win rate with 95% interval) and the fair komi."""
    by_komi: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        by_komi.setdefault(r["komi"], []).append(r)
    rows = []
    for komi in sorted(by_komi):
        recs = by_komi[komi]
        wins = sum(black_share(r) for r in recs)
        low, high = wilson_interval(wins, len(recs))
        rows.append({"komi": komi, "games": len(recs), "black_wins": wins,
                     "black_win_rate": wins / len(recs), "ci95": [low, high]})
    fair = min(rows, key=lambda row: (abs(row["black_win_rate"] - 0.5), abs(row["komi"])))
    return {"game": game_name, "size": size, "balance": balance_label(game_name),
            "rows": rows, "fair_komi": fair["komi"], "fair_row": fair,
            "player": records[0]["black"] if records else None}


def format_table(summary: dict[str, Any]) -> str:
    lines = [f"{summary['game']} side {summary['size']} ({summary['player']} self-play); "
             f"balance: {summary['balance']}",
             f"  {'komi':>5} {'games':>6} {'Black wins':>10} {'Black %':>8}   95% interval"]
    for row in summary["rows"]:
        low, high = row["ci95"]
        mark = "  <- nearest 50%" if row is summary["fair_row"] else ""
        lines.append(f"  {row['komi']:>5} {row['games']:>6} {points_text(row['black_wins']):>10} "
                     f"{100 * row['black_win_rate']:>7.1f}%   {100 * low:.0f}-{100 * high:.0f}%{mark}")
    lines.append(f"fair komi: {summary['fair_komi']}")
    return "\n".join(lines) + "\n"


def plot(summary: dict[str, Any]) -> str:
    rows = summary["rows"]
    return line_plot(
        [r["komi"] for r in rows], [r["black_win_rate"] for r in rows],
        [r["ci95"][0] for r in rows], [r["ci95"][1] for r in rows],
        title=f"{summary['game'].capitalize()} side {summary['size']}: Black's win rate",
        x_label=summary["balance"], y_label="Black wins (95% interval)",
    )
