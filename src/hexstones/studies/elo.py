"""Elo ratings with confidence intervals from a round-robin, and binomial intervals.

Ratings are the maximum-likelihood fit of the Elo (Bradley-Terry) model,
P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400)), with one virtual draw added between
every pair that met, so that a player who won every game gets a finite rating. The 95%
intervals come from the curvature of the log-likelihood at the optimum (the observed
Fisher information), with the anchor player's rating fixed at 0.
"""

from __future__ import annotations

import math

import numpy as np

ELO_PER_NATURAL = 400.0 / math.log(10.0)
Z95 = 1.959963984540054


def wilson_interval(wins: float, games: float, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (``wins`` may hold halves for draws)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    # At 0 or all wins the interval touches the end exactly (rounding aside).
    return (0.0 if wins <= 0 else low, 1.0 if wins >= games else high)


def elo_difference(share: float) -> float:
    """The Elo difference at which the stronger player scores ``share`` of the points
    (+241 at 80 %); +inf and -inf at 1 and 0."""
    if share >= 1:
        return math.inf
    if share <= 0:
        return -math.inf
    return -400.0 * math.log10(1.0 / share - 1.0)


def fit_elo(names: list[str], wins: dict[tuple[str, str], float], *, anchor: str | None = None,
            prior_draws: float = 1.0) -> dict[str, dict[str, float]]:
    """Elo rating and 95% interval half-width for every name.

    ``wins[(a, b)]`` is how many games ``a`` won against ``b`` (halves allowed).
    Returns ``{name: {"elo": r, "ci95": half_width}}``; ``anchor`` (default: the first
    name) is rated 0 with interval 0.
    """
    names = list(names)
    if len(set(names)) != len(names):
        raise ValueError("player names must be distinct")
    index = {n: i for i, n in enumerate(names)}
    anchor = names[0] if anchor is None else anchor
    if anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    k = len(names)
    w = np.zeros((k, k))
    for (a, b), v in wins.items():
        if a not in index or b not in index:
            raise ValueError(f"result for unknown player in {(a, b)!r}")
        if v < 0:
            raise ValueError(f"negative win count for {(a, b)!r}")
        w[index[a], index[b]] += v
    met = (w + w.T) > 0
    w = w + met * (prior_draws / 2.0)
    n = w + w.T
    free = [i for i in range(k) if names[i] != anchor]
    s = np.zeros(k)
    hess = np.zeros((len(free), len(free)))  # set on the loop's first pass
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(s[:, None] - s[None, :])))
        grad = (w - n * p).sum(axis=1)
        pq = n * p * (1 - p)
        h = -np.diag(pq.sum(axis=1)) + pq  # Hessian of the log-likelihood
        hess = h[np.ix_(free, free)]
        if not free:
            break
        try:
            step = np.linalg.solve(hess, grad[free])
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad[free], rcond=None)[0]
        s[free] -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    out = {anchor: {"elo": 0.0, "ci95": 0.0}}
    if free:
        try:
            cov = np.linalg.inv(-hess)
            sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
        except np.linalg.LinAlgError:  # a player who met nobody connected to the anchor
            sd = np.full(len(free), np.inf)
        for pos, i in enumerate(free):
            out[names[i]] = {"elo": float(s[i] * ELO_PER_NATURAL),
                             "ci95": float(Z95 * sd[pos] * ELO_PER_NATURAL)}
    return {n: out[n] for n in names}
