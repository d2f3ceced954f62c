"""The value head's fair komi: Black's win chance at every komi, asked of the network.

The network takes the balance (komi for White; Droched: black stones in the prison) as
an input (:mod:`hexstones.games.observation`), so one network answers for every komi. For each
balance value a fresh game is created with that balance through the game API, and the
network (or the network search, ``simulations``) is asked for Black's win chance and, in
games with a score, Black's expected margin. The fair komi is where Black's win chance
crosses 50 %, interpolated linearly between the two balance values either side.

The answer is only as good as the network, and a network knows only the board sides it
was trained on (``meta["sizes"]``): elsewhere :func:`value_curve` refuses unless forced.
"""

from __future__ import annotations

import math
from typing import Any

from hexstones.ai.net import geometry_of
from hexstones.games import BLACK, game_class, new_game
from hexstones.games.observation import features_of
from hexstones.studies.plots import line_plot


class NotTrained(ValueError):
    """The game has no network, or its network was not trained on the asked board side."""


def trained_sizes(network) -> list[int] | None:
    """The board sides ``network`` was trained on (its metadata), or None if unrecorded."""
    sizes = network.meta.get("sizes")
    return None if sizes is None else [int(s) for s in sizes]


def network_for_size(game_name: str, size: int, *, network=None, force: bool = False):
    """``network`` (else the network the game plays with), checked to have been trained
    on side ``size``; :class:`NotTrained` saying why where it was not (``force``: take
    it anyway, as long as there is one)."""
    from hexstones.ai import puct

    game_class(game_name)  # an unknown game is an error of its own
    net = network if network is not None else puct.network_for(game_name, size)
    if net is None:
        raise NotTrained(f"no network ships for {game_name}: its value head cannot be asked")
    if not net.trained:
        raise NotTrained(f"the {game_name} network is untrained (random weights)")
    sizes = trained_sizes(net)
    if not force and (sizes is None or size not in sizes):
        learned = "on no recorded side" if not sizes else \
            f"on side{'s' if len(sizes) > 1 else ''} {', '.join(map(str, sizes))} only"
        raise NotTrained(f"the {game_name} network was trained {learned}, not side {size}: "
                         "its value there is no estimate (force it to ask anyway)")
    return net


def black_view(game, value: float, margin: float | None) -> tuple[float, float | None]:
    """The side to move's value in [-1, 1] and margin as Black's win chance and margin."""
    sign = 1.0 if game.to_move == BLACK else -1.0
    return (sign * value + 1.0) / 2.0, None if margin is None else sign * margin


def evaluate_start(game, network) -> tuple[float, float | None]:
    """Black's win chance and expected margin at ``game``'s position by one evaluation of
    ``network``. (Averaging over the 12 symmetries would change nothing at the start: an
    empty board's features are their own image under each of them.)"""
    out = network.evaluate(features_of(game)[None], geometry_of(game))
    return black_view(game, float(out.value[0]),
                      None if out.score is None else float(out.score[0]))


def search_start(game, network, simulations: int, seed: int = 0) -> tuple[float, float | None]:
    """Black's win chance and expected margin at ``game``'s position as the root value of
    the network search with ``simulations`` (one searcher: reproducible)."""
    from hexstones.ai import puct

    result = puct.search(game, iterations=simulations, seed=seed, reuse=False, network=network,
                         threads=1)
    rate = result.root_win_rate if game.to_move == BLACK else 1.0 - result.root_win_rate
    return float(rate), result.score_lead


def value_curve(game_name: str, size: int, komis: list[int], *, network=None,
                simulations: int | None = None, seed: int = 0,
                force: bool = False) -> dict[str, Any]:
    """Black's win chance (and margin, where the game has a score) at the start of a game
    of side ``size`` at each balance value of ``komis``, and the fair komi they give.

    By default one evaluation of the network per value; ``simulations``: the root value
    of the network search with that many simulations instead (a deeper look)."""
    if not komis:
        raise ValueError("the curve needs at least one komi value")
    if simulations is not None and (isinstance(simulations, bool) or not isinstance(simulations, int)
                                    or simulations < 1):
        raise ValueError(f"simulations must be a whole number of at least 1, not {simulations!r}")
    option = game_class(game_name).balance.option
    games = [new_game(game_name, size=size, **{option: k}) for k in komis]  # bad values fail here
    net = network_for_size(game_name, size, network=network, force=force)
    rows: list[dict[str, Any]] = []
    for komi, game in zip(komis, games):
        if simulations is None:
            rate, margin = evaluate_start(game, net)
        else:
            rate, margin = search_start(game, net, simulations, seed)
        row: dict[str, Any] = {"komi": komi, "black_win_rate": rate}
        if margin is not None:
            row["black_margin"] = margin
        rows.append(row)
    komi_values = [r["komi"] for r in rows]
    fair = crossing(komi_values, [r["black_win_rate"] - 0.5 for r in rows])
    sizes = trained_sizes(net)
    curve: dict[str, Any] = {
        "game": game_name, "size": size, "balance": game_class(game_name).balance.label,
        "balance_short": game_class(game_name).balance.short,
        "method": ("the network search's root value" if simulations is not None else
                   "the network's value head"),
        "simulations": simulations, "seed": seed if simulations is not None else None,
        "network": {"trained_sizes": sizes, "command": net.meta.get("command"),
                    "trained_on_this_size": sizes is not None and size in sizes},
        "rows": rows, **fair_fields(fair),
    }
    if all("black_margin" in r for r in rows):
        curve["margin_fair_komi"] = crossing(komi_values, [r["black_margin"] for r in rows])
    return curve


def crossing(xs: list[float], ys: list[float]) -> float | None:
    """Where ``ys`` (sampled at increasing ``xs``) first falls from >= 0 to < 0 (Black's
    edge shrinks as White's balance grows), interpolated linearly; None if it never does."""
    if len(xs) != len(ys):
        raise ValueError("xs and ys must have the same length")
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise ValueError("the komi values must increase")
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if y0 >= 0 > y1:
            return x0 + (x1 - x0) * y0 / (y0 - y1)
    return None


def fair_fields(fair: float | None) -> dict[str, Any]:
    """The estimate, the whole balance values either side, and the nearest whole value."""
    if fair is None:
        return {"fair_komi": None, "between": None, "rounded": None}
    return {"fair_komi": fair, "between": [math.floor(fair), math.ceil(fair)],
            "rounded": math.floor(fair + 0.5)}


def format_curve(curve: dict[str, Any]) -> str:
    has_margin = "margin_fair_komi" in curve
    how = curve["method"] + (f", {curve['simulations']} simulations" if curve["simulations"] else "")
    lines = [f"{curve['game']} side {curve['size']}: {how}; "
             f"balance: {curve['balance']}"]
    if not curve["network"]["trained_on_this_size"]:
        lines.append(f"  (forced: the network was trained on sides {curve['network']['trained_sizes']})")
    short = curve.get("balance_short", "komi")
    head = f"  {short:>5} {'Black wins':>10}" + (f" {'Black margin':>12}" if has_margin else "")
    lines.append(head)
    for row in curve["rows"]:
        line = f"  {row['komi']:>5} {100 * row['black_win_rate']:>9.1f}%"
        if has_margin:
            line += f" {row['black_margin']:>+12.1f}"
        lines.append(line)
    if curve["fair_komi"] is None:
        lines.append(f"fair {short}: none in this range: {no_crossing(curve['rows'])}")
    else:
        low, high = curve["between"]
        lines.append(f"fair {short}: {curve['fair_komi']:.2f} (50% crossed between {low} and {high}; "
                     f"nearest whole value {curve['rounded']})")
    if has_margin:
        m = curve["margin_fair_komi"]
        lines.append("Black's expected margin is not 0 anywhere in this range" if m is None
                     else f"Black's expected margin is 0 at komi {m:.2f}")
    return "\n".join(lines) + "\n"


def no_crossing(rows: list[dict[str, Any]]) -> str:
    """Why a curve gives no estimate, for a person."""
    rates = [r["black_win_rate"] for r in rows]
    if all(x >= 0.5 for x in rates):
        return "Black's win chance is 50% or more at every value (the fair value lies above it)"
    if all(x < 0.5 for x in rates):
        return "Black's win chance is under 50% at every value (the fair value lies below it)"
    return "Black's win chance rises through 50% but never falls through it (not monotone)"


def plot_curve(curve: dict[str, Any], selfplay: dict[str, Any] | None = None) -> str:
    """The curve as SVG; ``selfplay`` (a summary of :mod:`hexstones.studies.komi`): its
    win rates with their 95% intervals on the same axes."""
    xs = [r["komi"] for r in curve["rows"]]
    ys = [r["black_win_rate"] for r in curve["rows"]]
    title = f"{curve['game'].capitalize()} side {curve['size']}: Black's win chance"
    marks = legend = None
    if selfplay is None:
        title += f", {curve['method'].removeprefix('the ')}"
    else:
        rows = selfplay["rows"]
        marks = ([r["komi"] for r in rows], [r["black_win_rate"] for r in rows],
                  [r["ci95"][0] for r in rows], [r["ci95"][1] for r in rows])
        legend = (curve["method"].removeprefix("the "), f"self-play, {selfplay['player']} (95%)")
    return line_plot(xs, ys, ys, ys, title=title, x_label=curve["balance"],
                     y_label="Black wins", marks=marks, legend=legend)
