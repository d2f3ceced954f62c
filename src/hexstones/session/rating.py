"""Ratings: Glickman's Glicko-2 system, one rating per player and game.

A :class:`Rating` is a rating (1500 for a newcomer), its deviation (how unsure it is: 350
for a newcomer, shrinking with games played, growing again while none are) and a
volatility (how erratic the player's results are). :func:`rated` turns a rating and the
results of one rating period (each game's opponent and score, 1 a win, 0 a loss) into the
rating after it, step by step as in Glickman, "Example of the Glicko-2 system" (2013),
whose worked example the tests check. A game rated as soon as it ends is a period of
one game, as lichess rates.

Written from the paper: the ``glicko2`` package on PyPI (2.1.0) computes the volatility
with the square of the rating where the paper has the square of the deviation, which
gives the paper's numbers only for a player rated exactly 1500 (as in its example) and
wrong ones for everyone else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # between the Glicko scale (1500 +- 350) and Glicko-2's (0 +- 2.01)
TAU = 0.5  # the system constant: how far the volatility may move in one period
EPSILON = 0.000001  # the volatility iteration's tolerance
PROVISIONAL_DEVIATION = 110.0  # above this a rating is shown as provisional (lichess's "?")


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    @property
    def provisional(self) -> bool:
        """Too few recent games to trust it (shown with a mark)."""
        return self.deviation > PROVISIONAL_DEVIATION

    def expected(self, opponent: Rating) -> float:
        """The score this player is expected to make against ``opponent`` (0 to 1)."""
        mu, mu_j, phi_j = _mu(self), _mu(opponent), opponent.deviation / SCALE
        return _e(mu, mu_j, phi_j)


def _mu(r: Rating) -> float:
    return (r.rating - 1500.0) / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi ** 2)


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rated(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after a period with ``results``: (the opponent's rating at the
    start of the period, the score: 1 a win, 0 a loss, 0.5 a draw). A period without
    games only makes the deviation grow."""
    if any(not 0.0 <= score <= 1.0 for _, score in results):
        raise ValueError("a game's score is from 0 (a loss) to 1 (a win)")
    mu, phi, sigma = _mu(player), player.deviation / SCALE, player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    # Steps 3-4: the estimated variance of the rating from the games alone, and the
    # improvement they suggest.
    parts = [(_g(o.deviation / SCALE), _e(mu, _mu(o), o.deviation / SCALE), score) for o, score in results]
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in parts)
    delta = v * sum(g * (score - e) for g, e, score in parts)
    sigma = _volatility(phi, sigma, v, delta, tau)
    # Steps 6-8: the deviation grows by the volatility, then shrinks by the games.
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu = mu + phi * phi * sum(g * (score - e) for g, e, score in parts)
    return Rating(1500.0 + SCALE * mu, SCALE * phi, sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of the paper's f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)
