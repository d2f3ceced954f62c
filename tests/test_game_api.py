"""The game API's facts, option checks, move codec, symmetries and outcomes, and the
properties every game has (undo, copies, refusals, mirrored games), each test run for
every game."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hexstones
from hexstones.games import (
    BALANCE_LIMIT,
    GAME_NAMES,
    IllegalMove,
    Outcome,
    check_options,
    game_class,
    game_specs,
)
from positions import random_game, snapshot, turn_ends, varied_game


@pytest.mark.parametrize("name", GAME_NAMES)
def test_each_game_declares_its_facts(name):
    cls = game_class(name)
    spec = cls.spec()
    assert spec["name"] == name and spec["title"] == cls.title != ""
    assert spec["summary"] == cls.summary != ""
    assert cls.default_size in cls.sizes and set(cls.app_sizes) <= set(cls.sizes)
    assert spec["balance"]["option"] in cls.option_names
    assert cls.balance.minimum <= cls.balance.default <= cls.balance.maximum
    assert cls.final_overlay in {o.name for o in cls.overlays}
    assert set(cls.special_help) == set(cls.special_moves)
    assert cls.has_score == bool(cls.score_parts)
    game = hexstones.new_game(name)
    assert game.balance_value == cls.balance.default
    assert (game.score() is not None) == cls.has_score == (game.score_details() is not None)
    if cls.has_score:
        assert set(game.score_details()["black"]) == {p.key for p in cls.score_parts}
    json.dumps(game_specs())  # JSON-ready as the browser gets it


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_refusal_reason_reads_as_a_sentence(name):
    """Each message of a game's table of the kernels' reasons (``reasons``) fills every
    field; a code without one names the move and the code."""
    game = hexstones.new_game(name)
    for code in game.reasons:
        text = game._reason("a1", code)
        assert text and "{" not in text and "}" not in text
    assert game._reason("a1", 99) == "a1 cannot be played (core reason 99)"


def test_specs_tell_the_games_apart():
    specs = game_specs()
    assert specs["keil"]["balance"]["option"] == "komi" and specs["keil"]["balance"]["default"] == 6
    assert specs["droched"]["balance"]["option"] == "prison"
    assert specs["droched"]["balance"]["minimum"] == 0 and not specs["droched"]["has_score"]
    assert specs["droched"]["board_kind"] == "cells" and specs["dehil"]["board_kind"] == "points"


@pytest.mark.parametrize("name, options, words", [
    ("keil", {"komi": 2**63}, "from -1000000 to 1000000"),
    ("dehil", {"komi": -(2**63)}, "from -1000000 to 1000000"),
    ("keil", {"komi": float("inf")}, "whole number"),
    ("keil", {"komi": "6"}, "whole number"),
    ("droched", {"prison": 2**63 - 1}, "from 0 to 1000000"),
    ("droched", {"prison": -1}, "from 0 to 1000000"),
    ("keil", {"size": []}, "whole number"),
    ("keil", {"size": None}, "whole number"),
    ("dehil", {"size": 14}, "from 3 to 13"),
    ("droched", {"size": True}, "whole number"),
    ("keil", {"prison": 1}, "unknown option"),
    ("droched", {"komi": 1}, "unknown option"),
])
def test_options_are_checked_once_with_one_set_of_bounds(name, options, words):
    with pytest.raises(ValueError, match=words):
        hexstones.new_game(name, **options)
    with pytest.raises(ValueError, match=words):
        check_options(name, options)


def test_check_options_fills_in_defaults_and_keeps_the_bounds_inclusive():
    assert check_options("keil", {}) == {"size": 7, "komi": 6}
    assert check_options("keil", {"komi": BALANCE_LIMIT})["komi"] == BALANCE_LIMIT
    assert check_options("dehil", {"komi": -BALANCE_LIMIT, "size": 5.0}) == {"size": 5, "komi": -BALANCE_LIMIT}
    assert check_options("droched", {"prison": BALANCE_LIMIT, "size": 3})["prison"] == BALANCE_LIMIT
    with pytest.raises(ValueError, match="unknown game"):
        check_options(["keil"], {})


def test_a_full_prison_keeps_counting_without_wrapping():
    game = hexstones.new_game("droched", size=3, prison=BALANCE_LIMIT)
    for move in ("c5", "c4", "d4", "b4", "a2", "e5"):
        game.play(move)
    assert game.prison["black"] >= BALANCE_LIMIT and game.prison["white"] >= 0


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 40))
def test_move_codec_round_trips_and_matches_legal_moves(name, seed, moves):
    game = random_game(name, 4, seed, moves)
    legal = game.legal_moves()
    assert game.legal_actions() == [game.action_of(m) for m in legal]
    assert [game.move_of(a) for a in game.legal_actions()] == legal
    assert all(0 <= a < game.num_actions for a in game.legal_actions())
    assert game.action_of("  " + game.board.names[0].upper()) == 0


@pytest.mark.parametrize("bad", [-1, 10**9, 1.0, "3", None, True])
def test_move_of_refuses_what_is_no_action(bad):
    game = hexstones.new_game("keil", size=3)
    with pytest.raises(IllegalMove, match="action is a whole number"):
        game.move_of(bad)


def test_keils_special_action_is_the_button_then_pass():
    game = hexstones.new_game("keil", size=3)
    P = game.board.num_points
    assert game.move_of(P) == "button" and game.action_of("pass") == P
    game.play("button")
    assert game.move_of(P) == "pass"


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 30), k=st.integers(0, 11))
def test_symmetric_positions_give_symmetric_answers(name, seed, moves, k):
    game = random_game(name, 4, seed, moves)
    table = game.action_symmetries()
    assert sorted(table[k]) == list(range(game.num_actions))
    turned = hexstones.new_game(name, size=4)
    for move in game.moves:
        turned.play(turned.move_of(int(table[k][game.action_of(move)])))
    assert sorted(int(table[k][a]) for a in game.legal_actions()) == turned.legal_actions()
    assert turned.score() == game.score() and turned.result() == game.result()


def test_outcomes_say_how_the_game_ended():
    scored = Outcome("black", "score", {"black": 45.5, "white": 42})
    assert scored.text() == "Black wins by 3.5 (45.5 to 42)" and scored.margin == 3.5
    assert Outcome.resignation("black").text() == "White wins: Black resigned"
    assert Outcome.on_time("white").to_dict() == {"winner": "black", "reason": "time",
                                                  "text": "Black wins on time"}
    assert Outcome("white", "no legal action").text() == "White wins: Black has no legal action"
    with pytest.raises(ValueError, match="reason"):
        Outcome("black", "draw")
    with pytest.raises(ValueError, match="winner"):
        Outcome("nobody", "score")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_finished_games_have_an_outcome_that_agrees_with_result(name):
    game = hexstones.new_game(name, size=3)
    rng = random.Random(5)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    outcome = game.outcome()
    assert outcome.winner == game.result()["winner"]
    assert outcome.reason == ("score" if game.has_score else "no legal action")
    assert game.status() == outcome.text()
    game.undo()
    assert game.outcome() is None


def test_keil_links_follow_linking_and_the_others_adjacency():
    keil = hexstones.new_game("keil", size=3)
    for move in ("a1", "e5", "a2", "e4"):
        keil.play(move)
    # a1-a2 are adjacent; their common neighbours (b1? b2) are empty, so they are not linked.
    pairs = keil.links(["a1", "a2"])
    common = keil.board.common_neighbours(keil.board.index["a1"], keil.board.index["a2"])
    assert pairs == [] and all(keil.stone_at(keil.board.names[c]) is None for c in common)
    keil.play(keil.board.names[common[0]])
    linked = keil.links(["a1", "a2", keil.board.names[common[0]]])
    assert ("a1", "a2") in linked
    dehil = hexstones.new_game("dehil", size=3)
    assert dehil.links(["a1", "a2"]) == [("a1", "a2")]


def test_a_refused_huge_move_is_not_echoed_back_whole():
    game = hexstones.new_game("keil", size=3)
    with pytest.raises(IllegalMove) as refused:
        game.play("x" * 10_000_000)
    assert len(str(refused.value)) < 300 and "10000002 characters" in str(refused.value)
    assert game.moves == []


# -- properties every game has ------------------------------------------------------------
# Random positions: tests/positions.py (a random balance; Dehil passes rarely).

PROPERTIES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_undo_with_nothing_to_undo(name):
    game = hexstones.new_game(name, size=3)
    with pytest.raises(IllegalMove, match="no move"):
        game.undo()
    assert game.moves == []


@pytest.mark.parametrize("name", GAME_NAMES)
@PROPERTIES
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 60), back=st.integers(1, 40))
def test_undo_restores_the_exact_state(name, seed, size, length, back):
    game = varied_game(name, seed, size, length)
    rng = random.Random(seed + 1)
    seen = []
    for _ in range(back):
        legal = game.legal_moves()
        if not legal:
            break
        seen.append((snapshot(game), turn_ends(game)))
        game.play(rng.choice(legal))
    while seen:
        expected_move = game.moves[-1]
        assert game.undo() == expected_move
        assert (snapshot(game), turn_ends(game)) == seen.pop()


@pytest.mark.parametrize("name", GAME_NAMES)
@PROPERTIES
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 60),
       symmetry=st.integers(1, 11))
def test_a_mirrored_game_gives_mirrored_answers_move_by_move(name, seed, size, length, symmetry):
    game = varied_game(name, seed, size, length)
    replay = hexstones.new_game(name, **game.options)
    mirror = hexstones.new_game(name, **game.options)
    board = game.board

    def image(move):
        return board.transform(symmetry, move) if board.is_point(move) else move

    for move in [*game.moves, None]:
        assert sorted(mirror.legal_moves()) == sorted(image(m) for m in replay.legal_moves())
        assert mirror.stones() == {image(p): c for p, c in replay.stones().items()}
        assert mirror.score() == replay.score() and mirror.result() == replay.result()
        if move is not None:
            replay.play(move)
            mirror.play(image(move))


@pytest.mark.parametrize("name", GAME_NAMES)
@PROPERTIES
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 60), move=st.text(max_size=4),
       probe=st.integers(0, 10_000))
def test_an_illegal_move_changes_nothing(name, seed, size, length, move, probe):
    game = varied_game(name, seed, size, length)
    before = (snapshot(game), turn_ends(game))
    legal = game.legal_moves()
    # Any text, the first few points or special moves that are not legal now, and one drawn.
    illegal = [m for m in [*game.board.names, *game.special_moves] if m not in legal]
    candidates = [move, *illegal[:7], *([illegal[probe % len(illegal)]] if illegal else [])]
    for candidate in candidates:
        if game.is_legal(candidate):
            continue
        with pytest.raises(IllegalMove):
            game.play(candidate)
        assert (snapshot(game), turn_ends(game)) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_copy_is_independent(name):
    game = varied_game(name, 3, 4, 10)
    before = snapshot(game)
    twin = game.copy()
    move = twin.legal_moves()[0]  # a point: points come first
    mover = twin.to_move
    twin.play(move)
    assert len(twin.moves) == len(game.moves) + 1 and snapshot(game) == before
    assert twin.stone_at(move) == mover and game.stone_at(move) is None
    assert snapshot(twin) != before and game.legal_moves() != twin.legal_moves()
    twin.undo()
    assert snapshot(twin) == snapshot(game)
