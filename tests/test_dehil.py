"""Dehil: the definitions and examples of docs/rules.md section 3, the conformance records,
and its rule and scoring invariants (the properties every game has: tests/test_game_api.py)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import hexstones
from hexstones import IllegalMove
from hexstones.games.dehil import DehilGame
from positions import varied_game

CONFORMANCE = Path(__file__).parent / "conformance" / "dehil.jsonl"
RECORDS = [json.loads(line) for line in CONFORMANCE.read_text().splitlines() if line.strip()]


def setup(size: int, black=(), white=(), komi: int = 0, mover: str = "black"):
    """A Dehil game holding exactly the given stones, placed in the given order, with
    ``mover`` to move.

    The side with fewer stones passes while the other places, so two passes never
    follow each other (the first pass goes to whoever runs out first).
    """
    game = hexstones.new_game("dehil", size=size, komi=komi)
    queue = {"black": list(black), "white": list(white)}
    while queue["black"] or queue["white"]:
        game.play(queue[game.to_move].pop(0) if queue[game.to_move] else "pass")
    if game.to_move != mover:
        game.play("pass")  # the last move was a placement, so this does not end the game
    assert not game.is_over
    assert game.stones() == {**{p: "black" for p in black}, **{p: "white" for p in white}}
    return game


def groups_by_point(game):
    return {p: g for g in game.groups() for p in g["points"]}


# -- options and defaults --------------------------------------------------------------


def test_defaults_follow_the_rules():
    game = hexstones.new_game("dehil")
    assert isinstance(game, DehilGame)
    assert (game.name, game.size, game.komi) == ("dehil", 9, 0)
    assert game.options == {"size": 9, "komi": 0}
    assert game.board.num_points == 217
    assert game.to_move == "black"
    assert game.legal_moves() == list(game.board.names) + ["pass"]
    assert game.result() is None and game.first_pass is None


@pytest.mark.parametrize("size", [3, 7, 11, 13])
def test_every_side_from_3_to_13_starts_with_every_point_legal(size):
    game = DehilGame(size=size, komi=-4)
    assert game.komi == -4
    assert len(game.legal_moves()) == 3 * size * (size - 1) + 2


@pytest.mark.parametrize("options, words", [
    ({"size": 2}, "board size"), ({"size": 14}, "board size"), ({"size": "9"}, "board size"),
    ({"komi": 0.5}, "whole number"), ({"komi": "3"}, "whole number"), ({"komi": True}, "whole number"),
    ({"handicap": 2}, "unknown option"),
])
def test_bad_options_are_refused(options, words):
    with pytest.raises(ValueError, match=words):
        hexstones.new_game("dehil", **options)


def test_whole_float_komi_is_accepted():
    assert hexstones.new_game("dehil", komi=-2.0).komi == -2


# -- docs/rules.md 3.1 and 3.2: groups, values, partitions ----------------------------------


def test_groups_use_plain_adjacency_and_value_is_the_stone_count():
    game = setup(4, black=["d4", "e4", "a1"], white=["d5"])
    groups = groups_by_point(game)
    assert groups["d4"]["points"] == ["d4", "e4"] and groups["d4"]["value"] == 2
    assert groups["a1"]["value"] == 1
    assert groups["d5"]["color"] == "white"
    assert len(game.groups()) == 3


def test_corner_to_corner_chain_has_partitions_and_scores_plus_seven_lone_stone_minus_one():
    chain = ["a4", "b4", "c4", "d4", "e4", "f4", "g4"]
    game = setup(4, black=chain + ["b1"])
    groups = groups_by_point(game)
    assert groups["a4"] == {"color": "black", "points": chain, "value": 7, "partitions": 2,
                            "has_partitions": True}
    assert groups["b1"] == {"color": "black", "points": ["b1"], "value": 1, "partitions": 1,
                            "has_partitions": False}
    details = game.score_details()["black"]
    assert (details["plus"], details["minus"]) == (7, 1)
    assert game.score()["black"] == 6


def test_a_ring_partitions_whatever_it_encloses():
    ring = ["e4", "e5", "d5", "c4", "c3", "d3"]
    empty_inside = setup(4, black=ring)
    assert groups_by_point(empty_inside)["e4"]["partitions"] == 2
    # A white stone inside is an area too: stones of either colour count alike.
    white_inside = setup(4, black=ring, white=["d4"])
    groups = groups_by_point(white_inside)
    assert groups["e4"]["partitions"] == 2 and groups["e4"]["has_partitions"]
    assert groups["d4"]["partitions"] == 1  # the white stone is not cut off from anything
    # No captures: the enclosed white stone stays.
    assert white_inside.stone_at("d4") == "white"


def test_a_curve_cutting_off_a_corner_partitions_but_a_stone_on_the_edge_does_not():
    game = setup(4, black=["b1", "b2", "a2"], white=["a4"])
    groups = groups_by_point(game)
    assert groups["b1"]["partitions"] == 2
    assert groups["a4"]["partitions"] == 1 and not groups["a4"]["has_partitions"]


def test_a_wall_that_stops_short_of_the_edge_does_not_partition():
    game = setup(4, black=["b4", "c4", "d4", "e4", "f4"])
    assert game.groups()[0]["partitions"] == 1


def test_a_corner_curve_and_a_diagonal_wall_together_make_three_areas():
    # b1 b2 a2 cut off a1; the diagonal b2 .. g7 splits the rest into two halves.
    game = setup(4, black=["a2", "b1", "b2", "c3", "d4", "e5", "f6", "g7"])
    (group,) = game.groups()
    assert group["value"] == 8 and group["partitions"] == 3


# -- docs/rules.md 3.3 and 3.4: the triangle rule -------------------------------------------


@pytest.mark.parametrize("order", list(itertools.permutations(["b1", "c1", "c2"])))
def test_a_triangle_with_two_stones_on_the_edge_is_never_allowed(order):
    # d3 is a black stone in no triangle next to c2: support does not rescue it.
    game = setup(4, black=["d3", *order[:2]])
    last = order[2]
    assert last not in game.legal_moves()
    reason = game.forbidden_placements()[last]
    assert "triangle b1 c1 c2" in reason and "2 stones on the edge (b1, c1)" in reason
    before = game.stones()
    with pytest.raises(IllegalMove, match="triangle b1 c1 c2"):
        game.play(last)
    assert game.stones() == before and game.to_move == "black"


@pytest.mark.parametrize("order", list(itertools.permutations(["c2", "d2", "d3"])))
def test_an_unsupported_inner_triangle_is_not_allowed(order):
    game = setup(4, black=order[:2])
    reason = game.forbidden_placements()[order[2]]
    assert "triangle c2 d2 d3" in reason
    assert "stones c2, d2, d3 are not on the edge and lack a supporting stone" in reason
    with pytest.raises(IllegalMove, match="triangle rule"):
        game.play(order[2])


@pytest.mark.parametrize("order", list(itertools.permutations(["c2", "d2", "d3"])))
def test_the_same_triangle_is_allowed_when_each_stone_touches_a_stone_in_no_triangle(order):
    # setup() plays every stone, so reaching the position shows each placement was legal.
    game = setup(4, black=["b2", "e2", "e4", *order])
    assert groups_by_point(game)["c2"]["points"] == ["b2", "c2", "d2", "d3", "e2", "e4"]


def test_a_placement_that_pulls_a_supporting_stone_into_a_triangle_is_illegal():
    # e4 alone supports d3; f5 with e4 and f4 makes a triangle, so e4 no longer supports.
    game = setup(4, black=["b2", "e2", "e4", "c2", "d2", "d3", "f4"])
    assert "f5" not in game.legal_moves()
    assert "triangle c2 d2 d3, stone d3 is not on the edge" in game.forbidden_placements()["f5"]


def test_a_triangle_with_one_stone_on_the_edge_needs_support_only_for_the_other_two():
    # b1 on the edge; b2 supported by a2, c2 by d2 (both in no triangle).
    game = setup(4, black=["a2", "d2", "b1", "b2"])
    assert "c2" in game.legal_moves()
    without_a2 = setup(4, black=["d2", "b1", "b2"])
    assert "stone b2 is not on the edge" in without_a2.forbidden_placements()["c2"]


def test_two_adjacent_hourglass_centers_support_each_other():
    # Side 5. After g8, g8 is the center of the hourglass f7 f8 | h8 h9 and h8 the
    # center of g8 h9 | h7 i8. f7's only black neighbours are f8 and g8, both in the
    # triangle f7 f8 g8, so g8 is legal only because a center stone supports.
    game = setup(5, black=["h9", "i8", "f7", "f8", "h6", "h8", "h7"])
    assert "g8" in game.legal_moves()
    game.play("g8")
    f7_black_neighbours = sorted(
        game.board.names[q] for q in game.board.neighbours[game.board.index["f7"]]
        if game.stone_at(game.board.names[q]) == "black"
    )
    assert f7_black_neighbours == ["f8", "g8"]
    assert groups_by_point(game)["g8"]["value"] == 8


def test_white_triangles_follow_the_same_rule_and_ignore_black_stones():
    game = setup(4, black=["a4", "g4", "d7"], white=["c2", "d2"], mover="white")
    assert "triangle c2 d2 d3" in game.forbidden_placements()["d3"]
    assert "white" in game.forbidden_placements()["d3"]


# -- docs/rules.md 3.5 and 3.6: turns, end, score -------------------------------------------


def test_two_passes_in_a_row_end_the_game_and_the_first_passer_gets_half_a_point():
    game = hexstones.new_game("dehil", size=3, komi=2)
    game.play("pass")
    assert game.first_pass == "black" and not game.is_over
    game.play("c3")
    game.play("pass")
    assert not game.is_over  # a placement came between the passes
    game.play("pass")
    assert game.is_over and game.legal_moves() == [] and game.forbidden_placements() == {}
    assert game.first_pass == "black"
    details = game.score_details()
    assert details["black"] == {"plus": 0, "minus": 0, "komi": 0, "first_pass": 0.5}
    assert details["white"] == {"plus": 0, "minus": 1, "komi": 2, "first_pass": 0}
    assert game.result() == {"winner": "white", "score": {"black": 0.5, "white": 1.0}}
    with pytest.raises(IllegalMove, match="game is over"):
        game.play("a1")
    with pytest.raises(IllegalMove, match="game is over"):
        game.play("pass")


def test_negative_komi_counts_against_white():
    game = hexstones.new_game("dehil", size=3, komi=-3)
    game.play("pass")
    game.play("pass")
    assert game.result() == {"winner": "black", "score": {"black": 0.5, "white": -3.0}}


def test_messages_name_the_problem_and_change_nothing():
    game = setup(4, black=["d4"], white=["a1"])
    before = (game.stones(), game.to_move, list(game.moves))
    with pytest.raises(IllegalMove, match="d4 is occupied"):
        game.play("d4")
    with pytest.raises(IllegalMove, match="not a move in Dehil"):
        game.play("z9")
    with pytest.raises(IllegalMove, match="not a move in Dehil"):
        game.play("button")
    with pytest.raises(IllegalMove, match="not 3"):
        game.play(3)
    assert (game.stones(), game.to_move, list(game.moves)) == before


def test_moves_are_normalised():
    game = hexstones.new_game("dehil", size=4)
    game.play(" D4 ")
    game.play("PASS")
    assert game.moves == ["d4", "pass"]


def test_analysis_is_json_ready():
    game = setup(4, black=["c2", "d2", "a4", "b4"], white=["g7", "a1", "d7", "g4"])
    assert game.to_move == "black"
    data = json.loads(json.dumps(game.analysis()))
    assert set(data) >= {"groups", "forbidden", "score", "score_details"}
    assert "d3" in data["forbidden"]
    assert data["score"] == game.score()


# -- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize("record", RECORDS, ids=[f"record{i}" for i in range(len(RECORDS))])
def test_conformance_record(record):
    assert record["game"] == "dehil"
    game = hexstones.new_game("dehil", size=record["size"], **record["options"])
    for i, move in enumerate(record["moves"]):
        assert sorted(game.legal_moves()) == record["legal"][i], f"legal moves before move {i} ({move})"
        game.play(move)
    assert sorted(game.legal_moves()) == record["legal"][len(record["moves"])]
    assert game.result() == record.get("result")


# -- an independent statement of the triangle rule --------------------------------------


def rule_allows(game, color: str, cells: dict[str, str]) -> bool:
    """docs/rules.md 3.4 written out from scratch on coordinates, for one colour's stones."""
    board = game.board
    coords = {name: board.coords[i] for i, name in enumerate(board.names)}
    at = {cr: name for name, cr in coords.items()}
    mine = {p for p, c in cells.items() if c == color}

    def adjacent(p, q):
        (c1, r1), (c2, r2) = coords[p], coords[q]
        return (c2 - c1, r2 - r1) in {(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)}

    def near(p):
        c, r = coords[p]
        return [at[(c + dc, r + dr)] for dc in (-1, 0, 1) for dr in (-1, 0, 1)
                if (c + dc, r + dr) in at and (dc, dr) not in ((0, 0), (1, -1), (-1, 1))]

    triangles = {frozenset((p, q, s)) for p in mine for q in near(p) if q in mine
                 for s in near(q) if s in mine and s != p and adjacent(p, s)}
    in_triangle = {p for t in triangles for p in t}

    def is_center(p):
        c, r = coords[p]
        for t in triangles:
            if p not in t:
                continue
            others = [coords[q] for q in t if q != p]
            mirrored = {at.get((2 * c - x, 2 * r - y)) for x, y in others}
            if mirrored <= mine and frozenset(mirrored | {p}) in triangles:
                return True
        return False

    for t in triangles:
        if sum(board.on_edge[board.index[p]] for p in t) > 1:
            return False
        for p in t:
            if board.on_edge[board.index[p]]:
                continue
            if not any(q in mine and (q not in in_triangle or is_center(q)) for q in near(p)):
                return False
    return True


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 60))
def test_legal_points_are_exactly_what_the_rule_allows(seed, size, length):
    game = varied_game("dehil", seed, size, length)
    if game.is_over:
        return
    stones = game.stones()
    allowed = []
    for p in game.board.names:
        if p not in stones and rule_allows(game, game.to_move, {**stones, p: game.to_move}):
            allowed.append(p)
    assert game.legal_moves() == allowed + ["pass"]
    assert sorted(game.forbidden_placements()) == sorted(
        p for p in game.board.names if p not in stones and p not in allowed
    )


# -- properties (those every game has: tests/test_game_api.py) ----------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 80))
def test_score_adds_up_to_plus_and_minus_groups(seed, size, length):
    game = varied_game("dehil", seed, size, length)
    details = game.score_details()
    score = game.score()
    stones = game.stones()
    for color in ("black", "white"):
        d = details[color]
        # Every stone is in exactly one group, counted once as plus or minus.
        assert d["plus"] + d["minus"] == sum(1 for c in stones.values() if c == color)
        signed = sum(g["value"] * (1 if g["has_partitions"] else -1)
                     for g in game.groups() if g["color"] == color)
        assert score[color] == signed + d["komi"] + d["first_pass"]
    assert sorted(p for g in game.groups() for p in g["points"]) == sorted(stones)
    assert score["black"] + score["white"] == (
        sum(g["value"] * (1 if g["has_partitions"] else -1) for g in game.groups())
        + game.komi + (0.5 if game.first_pass else 0)
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(3, 5), length=st.integers(0, 60))
def test_a_placement_that_forms_no_triangle_is_always_legal(seed, size, length):
    game = varied_game("dehil", seed, size, length)
    if game.is_over:
        return
    board, mover = game.board, game.to_move
    legal = set(game.legal_moves())
    for i, name in enumerate(board.names):
        if game.stone_at(name) is not None:
            continue
        friends = [q for q in board.neighbours[i] if game.stone_at(board.names[q]) == mover]
        if not any(board.are_adjacent(a, b) for a, b in itertools.combinations(friends, 2)):
            assert name in legal, f"{name} forms no triangle yet is refused"
