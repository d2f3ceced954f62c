"""Glicko-2 ratings (hexstones.session.rating): the paper's worked example, and the
system's invariants on any ratings."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from hexstones.session.rating import Rating, rated

ratings = st.builds(Rating, st.floats(800, 2600), st.floats(30, 350), st.floats(0.03, 0.09))
results = st.lists(st.tuples(ratings, st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=6)


def test_the_worked_example_of_glickmans_paper():
    # Glickman, "Example of the Glicko-2 system" (2013): a 1500 player, deviation 200,
    # beats a 1400 (30), loses to a 1550 (100) and to a 1700 (300).
    after = rated(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)])
    # The paper's figures on the Glicko-2 scale (4 places), then on the Glicko scale
    # (which it computes from the rounded ones: 1464.06 where the exact value is 1464.05).
    assert round((after.rating - 1500) / 173.7178, 4) == -0.2069
    assert round(after.deviation / 173.7178, 4) == 0.8722
    assert abs(after.volatility - 0.05999) < 1e-5
    assert abs(after.rating - 1464.06) < 0.02 and round(after.deviation, 2) == 151.52


@given(ratings, results, st.floats(-600, 600))
def test_only_differences_of_rating_count(player, games, shift):
    """Moving every rating by the same amount moves the result by it and changes nothing
    else (the paper's formulas read only differences of ratings: the volatility of a
    player not at 1500 is computed right)."""
    moved = rated(Rating(player.rating + shift, player.deviation, player.volatility),
                  [(Rating(o.rating + shift, o.deviation, o.volatility), s) for o, s in games])
    plain = rated(player, games)
    assert math.isclose(moved.rating - shift, plain.rating, abs_tol=1e-6)
    assert math.isclose(moved.deviation, plain.deviation, rel_tol=1e-9)
    assert math.isclose(moved.volatility, plain.volatility, rel_tol=1e-6)


@given(ratings, ratings)
def test_a_win_raises_a_loss_lowers_and_games_make_a_rating_surer(player, opponent):
    won, lost = rated(player, [(opponent, 1.0)]), rated(player, [(opponent, 0.0)])
    assert lost.rating < player.rating < won.rating
    for after in (won, lost):  # below the deviation grown by the period's volatility
        assert after.deviation < math.hypot(player.deviation, after.volatility * 173.7178)
    assert (player.expected(opponent) > 0.5) == (player.rating > opponent.rating)


@given(st.floats(800, 2600), st.floats(30, 350))
def test_two_equal_players_win_and_lose_the_same_amount(rating, deviation):
    a = b = Rating(rating, deviation)
    winner, loser = rated(a, [(b, 1.0)]), rated(b, [(a, 0.0)])
    assert math.isclose(winner.rating - rating, rating - loser.rating, rel_tol=1e-9)
    assert winner.deviation == pytest.approx(loser.deviation)
    assert a.expected(b) == 0.5


def test_without_games_only_the_deviation_grows_and_a_newcomer_is_provisional():
    idle = rated(Rating(1700, 60, 0.06), [])
    assert (idle.rating, idle.volatility) == (1700, 0.06)
    assert idle.deviation == pytest.approx(math.hypot(60, 0.06 * 173.7178))
    assert Rating().provisional and not Rating(1500, 60).provisional
    with pytest.raises(ValueError, match="from 0"):
        rated(Rating(), [(Rating(), 2.0)])
