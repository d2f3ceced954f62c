"""Keil: the definitions and examples of docs/rules.md section 2, and its scoring invariants
(the properties every game has: tests/test_game_api.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

import hexstones
from hexstones import IllegalMove
from positions import varied_game


def setup(size: int, black=(), white=(), komi: int = 6):
    """A Keil game holding exactly the given stones (placed in order), Black to move.

    A side with no stone left to place takes the button or passes, so the other side can
    go on placing; two passes never follow each other.
    """
    game = hexstones.new_game("keil", size=size, komi=komi)
    queues = {"black": list(black), "white": list(white)}
    while queues["black"] or queues["white"] or game.to_move == "white":
        queue = queues[game.to_move]
        game.play(queue.pop(0) if queue else ("button" if game.button is None else "pass"))
    assert sorted(game.stones()) == sorted(list(black) + list(white))
    return game


def groups_by_point(game):
    return {p: g for g in game.groups() for p in g["points"]}


def test_defaults_follow_the_rules():
    game = hexstones.new_game("keil")
    assert (game.size, game.komi) == (7, 6)
    assert game.board.num_points == 127
    assert game.to_move == "black"
    assert "button" in game.legal_moves() and "pass" not in game.legal_moves()
    assert len(game.legal_moves()) == 128


def test_two_adjacent_stones_without_a_triangle_are_two_groups():
    game = setup(4, black=["d4", "e4"])
    groups = groups_by_point(game)
    assert groups["d4"]["points"] == ["d4"]
    assert sorted(groups["d4"]["liberties"]) == ["c3", "c4", "d3", "d5", "e5"]
    assert sorted(groups["e4"]["liberties"]) == ["d3", "e3", "e5", "f4", "f5"]


def test_a_triangle_joins_three_stones_into_one_group_with_nine_liberties():
    game = setup(4, black=["d4", "e4", "e5"])
    (group,) = game.groups()
    assert group["points"] == ["d4", "e4", "e5"]
    assert len(group["liberties"]) == 9


def test_crosscut_makes_four_groups():
    game = setup(4, black=["d4", "e4"], white=["e5", "d3"])
    groups = groups_by_point(game)
    assert len(game.groups()) == 4
    assert sorted(groups["d4"]["liberties"]) == ["c3", "c4", "d5"]


def test_corner_stone_is_captured_by_a_placement_on_b2():
    game = setup(4, black=["a1", "e4"], white=["d5"])
    assert game.to_move == "black"
    game.play("e5")  # black elsewhere
    assert groups_by_point(game)["a1"]["liberties"] != []
    game.play("b2")
    assert game.stone_at("a1") is None
    assert game.stone_at("b2") == "white"
    assert game.last_captured == ["a1"]


def test_suicide_is_illegal_and_changes_nothing():
    game = setup(4, white=["b2"])
    before = (game.stones(), game.to_move, list(game.moves), game.legal_moves())
    with pytest.raises(IllegalMove, match="suicide"):
        game.play("a1")
    assert (game.stones(), game.to_move, list(game.moves), game.legal_moves()) == before
    assert "a1" not in game.legal_moves()


def test_after_a_placement_every_group_of_the_mover_has_a_liberty():
    # Only the placed stone's group is checked (RULES 2.4); a black placement can only take
    # away the liberty it stands on, and a group that loses it merges with the placed stone,
    # so no other group of the mover is ever left without liberty. Check this consequence.
    rng = random.Random(11)
    placements = 0
    for size in (3, 4):
        for _ in range(15):
            game = hexstones.new_game("keil", size=size)
            while not game.is_over and len(game.moves) < 120:
                mover = game.to_move
                move = rng.choice(game.legal_moves())
                game.play(move)
                if move in ("pass", "button"):
                    continue
                placements += 1
                assert all(g["liberties"] for g in game.groups() if g["color"] == mover)
                assert not any(g["color"] != mover and not g["liberties"] for g in game.groups())
    assert placements > 500


def test_button_and_pass_rules():
    game = hexstones.new_game("keil", size=3)
    with pytest.raises(IllegalMove, match="button"):
        game.play("pass")
    game.play("button")
    assert game.button == "black"
    with pytest.raises(IllegalMove, match="already taken"):
        game.play("button")
    assert "button" not in game.legal_moves() and "pass" in game.legal_moves()
    game.play("pass")
    game.play("pass")
    assert game.is_over and game.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        game.play("a1")
    # Empty board: one neutral territory, komi 6 and button 0.5 to Black.
    assert game.result() == {"winner": "white", "score": {"black": 0.5, "white": 6.0}}


def test_score_counts_stones_territory_komi_and_button():
    game = hexstones.new_game("keil", size=3, komi=2)
    for move in ["b2", "button", "c2", "pass", "b1", "pass", "c3", "pass", "pass"]:
        game.play(move)
    assert game.is_over
    details = game.score_details()
    assert details["black"]["stones"] == 4 and details["white"]["stones"] == 0
    territory = sum(len(t["points"]) for t in game.territories() if t["owner"] == "black")
    assert details["black"]["territory"] == territory == 19 - 4
    assert game.result() == {"winner": "black", "score": {"black": 19.0, "white": 2.5}}


def test_malformed_and_unknown_moves_name_the_problem():
    game = hexstones.new_game("keil", size=4)
    for bad, pattern in [("z9", "not a move"), ("h1", "not a move"), ("", "not a move"), (17, "not")]:
        with pytest.raises(IllegalMove, match=pattern):
            game.play(bad)
    game.play("d4")
    with pytest.raises(IllegalMove, match="occupied"):
        game.play("d4")
    assert game.moves == ["d4"]


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="size"):
        hexstones.new_game("keil", size=14)
    with pytest.raises(ValueError, match="whole number"):
        hexstones.new_game("keil", komi=6.5)
    with pytest.raises(ValueError, match="unknown option"):
        hexstones.new_game("keil", prison=2)
    with pytest.raises(ValueError, match="unknown game"):
        hexstones.new_game("go")


def test_repetition_rule_forbids_returning_to_an_own_earlier_position():
    rng = random.Random(7)
    refused = 0
    for _ in range(30):
        game = hexstones.new_game("keil", size=3)
        ends = {"black": set(), "white": set()}
        while not game.is_over and len(game.moves) < 150:
            mover = game.to_move
            legal = game.legal_moves()
            for p in game.board.names:
                if game.stone_at(p) is None and p not in legal:
                    with pytest.raises(IllegalMove) as exc:
                        game.play(p)
                    refused += "repeats a position" in str(exc.value)
            move = rng.choice(legal)
            game.play(move)
            position = (tuple(sorted(game.stones().items())), game.button is not None)
            if move not in ("pass", "button"):
                assert position not in ends[mover], "a placement repeated the mover's position"
            ends[mover].add(position)
    assert refused > 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 80))
def test_score_adds_up_to_the_board_minus_neutral_points(seed, size, length):
    game = varied_game("keil", seed, size, length)
    score = game.score()
    neutral = sum(len(t["points"]) for t in game.territories() if t["owner"] is None)
    extras = game.komi + (0.5 if game.button else 0)
    assert score["black"] + score["white"] - extras == game.board.num_points - neutral
    # Every empty point lies in exactly one territory.
    empties = [p for p in game.board.names if game.stone_at(p) is None]
    assert sorted(p for t in game.territories() for p in t["points"]) == sorted(empties)


def test_text_picture_uses_the_rules_layout():
    game = setup(4, black=["a1", "g7"], white=["a4", "d4"])
    lines = str(game).splitlines()
    assert lines[0] == "7    . . . X"
    assert lines[3] == "4 O . . O . . ."
    assert lines[6] == "1    X . . . e"  # columns e-g are named along the lower right
    assert lines[4] == "3  . . . . . . g" and lines[7].split() == ["a", "b", "c", "d"]
