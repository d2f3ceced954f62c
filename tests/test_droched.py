"""Droched (docs/rules.md section 4): the examples, the conformance records, rule properties.

A plain set-based reading of section 4 (``Reference`` below, written from the rules, not
from the engine) cross-checks the engine (the compiled core) on random games.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hexstones
from hexstones.board import get_board
from hexstones.games.base import BLACK, WHITE, IllegalMove, other
from positions import snapshot, turn_ends

RECORDS = [
    json.loads(line)
    for line in (Path(__file__).parent / "conformance" / "droched.jsonl").read_text().splitlines()
    if line.strip()
]


def play_all(game, moves):
    for move in moves:
        game.play(move)
    return game


def group_of(game, point):
    (found,) = [g for g in game.groups() if point in g["points"]]
    return found


def replay_reference(size, moves, prison=0, handicap=()):
    ref = Reference(size, prison, handicap)
    for move in moves:
        ref.play(move)
    return ref


# -- docs/rules.md section 4 examples (side 4) --------------------------------------------


def test_lone_stone_on_open_board_is_on_a_bridge():
    for point in ("d4", "a1", "b1", "g7"):
        game = play_all(hexstones.new_game("droched", size=4), [point])
        group = group_of(game, point)
        assert group["on_bridge"] and group["points"] == [point]
        # Its empty paths reach the whole rest of the board: every feature but a corner
        # the stone itself occupies (its own stones never count).
        own_corner = [f"corner {point}"] if point in ("a1", "g7") else []
        expected = [f for f in game.board.feature_names if f not in own_corner]
        assert sorted(group["features"]) == sorted(expected)
        assert game.stone_at(point) == BLACK and game.prison == {BLACK: 0, WHITE: 0}


def test_corner_stone_hemmed_in_by_two_white_stones_lives_through_its_open_neighbour():
    game = play_all(hexstones.new_game("droched", size=4), ["a1", "b1", "g7", "a2"])
    assert game.stone_at("a1") == BLACK
    assert game.last_imprisoned == []
    group = group_of(game, "a1")
    # b2 leads to the open board; a1 itself, a corner, does not count.
    assert group["on_bridge"]
    assert "corner a1" not in group["features"]
    assert len(group["features"]) >= 2


def test_ring_around_an_eye_inside_an_enemy_ring_goes_to_prison():
    black_ring = ["e4", "e5", "d5", "c4", "c3", "d3"]
    game = hexstones.new_game("droched", size=4, handicap=black_ring)
    board = game.board
    ring = {board.index[p] for p in black_ring}
    white_ring = sorted({q for p in ring for q in board.neighbours[p]} - ring - {board.index["d4"]})
    assert len(white_ring) == 12
    border = [board.names[i] for i in range(board.num_points) if board.on_edge[i]]
    # White builds its ring; Black spends its turns on the border, outside it.
    for k, point in enumerate(white_ring[:-1]):
        game.play(board.names[point])
        game.play(border[k])
    assert group_of(game, "d5")["on_bridge"]  # one gap left: still a path out
    game.play(board.names[white_ring[-1]])
    assert sorted(game.last_imprisoned) == sorted(black_ring)
    assert game.prison == {BLACK: 6, WHITE: 0}
    assert game.stone_at("d4") is None and all(game.stone_at(p) is None for p in black_ring)
    closed = group_of(game, board.names[white_ring[0]])
    assert closed["color"] == WHITE and closed["on_bridge"]
    assert len(closed["points"]) == 12


# -- the placement rule, step by step (side 3) ---------------------------------------

# Side 3, after these moves (White to move):
#   5   . X .          Black: a2 c1 c4 d2 d5
#   4  . X O .         White: b3 c2 c3 d4
#   3 . O O . .
#   2  X . O X
#   1   . . X
STEPS_SETUP = ["d2", "d4", "a2", "c3", "c4", "c2", "c1", "b3", "d5"]


def test_placed_stone_that_is_the_only_prisoner_is_illegal():
    game = play_all(hexstones.new_game("droched", size=3), STEPS_SETUP)
    # White a1 reaches only b1 and b2 (one edge, b2 is inner) and breaks no black bridge.
    assert "a1" not in game.legal_moves()
    before = snapshot(game)
    with pytest.raises(IllegalMove, match="only stone"):
        game.play("a1")
    assert snapshot(game) == before


def test_enemy_groups_go_to_prison_before_friendly_groups_are_judged():
    game = play_all(hexstones.new_game("droched", size=3), STEPS_SETUP + ["d3", "b2", "e3", "a3"])
    # White a1 alone reaches only b1. It breaks the bridge of black c1-d2 (left with b1
    # only); once c1 and d2 are gone, a1 reaches b1 c1 d2: an edge and a corner.
    game.play("a1")
    assert game.last_imprisoned == ["c1", "d2"]
    assert game.prison == {BLACK: 2, WHITE: 0}
    assert game.stone_at("a1") == WHITE
    assert group_of(game, "a1")["on_bridge"]
    assert group_of(game, "a2")["points"] == ["a2", "a3", "b2"]  # still reaches b4, c5


def test_placed_stone_going_to_prison_with_its_group_is_legal():
    game = play_all(hexstones.new_game("droched", size=3), STEPS_SETUP + ["d3", "b2", "e3", "a3", "b4"])
    # Black a1 fills the last empty cells of its own groups' paths: every black stone
    # touching b1 loses its bridge, the placed stone among them, so the move is legal.
    game.play("a1")
    assert game.last_imprisoned == ["a1", "a2", "a3", "b2", "c1", "d2"]
    assert game.prison == {BLACK: 6, WHITE: 0}
    assert {p for p, c in game.stones().items() if c == BLACK} == {"c4", "d5"}


def test_release_board_counts_for_the_repetition_rule():
    game = hexstones.new_game("droched", size=3, handicap=["b2", "b3"])
    assert game.to_move == WHITE  # handicap: White moves first
    play_all(game, ["c1", "d5", "d3", "b4", "c5", "a1", "c2", "e4"])
    assert game.last_imprisoned == ["c5"] and game.prison == {BLACK: 0, WHITE: 1}
    game.play("c3")
    released_on = game.stones()
    game.play("release")  # Black's turn ends on this board
    assert game.prison == {BLACK: 0, WHITE: 0} and game.released == {BLACK: 0, WHITE: 1}
    assert game.stones() == released_on
    game.play("e5")
    assert game.last_imprisoned == ["d5"]
    # Black d5 would send e5 to prison and bring back the board of Black's release turn:
    # the same move without the repetition rule (the plain reading, its record cleared).
    trial = replay_reference(3, game.moves, handicap=("b2", "b3"))
    assert {trial.board.names[p]: c for p, c in sorted(trial.cells.items())} == game.stones()
    assert trial.place(trial.board.index["d5"]) is None  # the plain reading refuses it too
    trial.ends[BLACK].clear()
    cells, n_enemy, n_own = trial.place(trial.board.index["d5"])
    assert (n_enemy, n_own) == (1, 0)
    assert {trial.board.names[p]: c for p, c in sorted(cells.items())} == released_on
    before = snapshot(game)
    with pytest.raises(IllegalMove, match="repetition"):
        game.play("d5")
    assert snapshot(game) == before


def test_release_needs_an_enemy_stone_in_prison():
    game = hexstones.new_game("droched", size=3, prison=2)
    assert "release" not in game.legal_moves()  # Black: the prison holds no white stone
    with pytest.raises(IllegalMove, match="no white stone"):
        game.play("release")
    game.play("c3")
    assert game.legal_moves()[-1] == "release"  # White may release a black stone
    game.play("release")
    game.play("d3")
    game.play("release")
    assert game.prison == {BLACK: 0, WHITE: 0} and game.released == {BLACK: 2, WHITE: 0}
    assert "release" not in game.legal_moves()
    assert game.stones() == {"c3": BLACK, "d3": BLACK}


def test_handicap_start_is_no_turn_of_either_player():
    game = hexstones.new_game("droched", size=4, handicap=["d4", "b2"])
    assert game.to_move == WHITE and game.moves == []
    assert game.stones() == {"b2": BLACK, "d4": BLACK}
    # No board is forbidden yet: every empty cell is a legal first move for White.
    empty = [p for p in game.board.names if game.stone_at(p) is None]
    assert game.legal_moves() == empty
    assert turn_ends(game) == {BLACK: {}, WHITE: {}}


def test_player_without_action_loses():
    record = next(r for r in RECORDS if r.get("result") and r["size"] == 3)
    game = hexstones.new_game("droched", size=3, **record["options"])
    play_all(game, record["moves"][:-1])
    assert not game.is_over and game.result() is None
    winner = game.to_move
    game.play(record["moves"][-1])
    assert game.is_over and game.legal_moves() == []
    assert game.result() == {"winner": winner} == record["result"]
    assert game.score() is None
    with pytest.raises(IllegalMove, match="game is over"):
        game.play(game.board.names[0])
    with pytest.raises(IllegalMove, match="game is over"):
        game.play("release")


# -- options ---------------------------------------------------------------------------


def test_defaults_and_options():
    game = hexstones.new_game("droched")
    assert game.size == 9 and game.board.num_points == 217
    assert game.options == {"size": 9, "prison": 0, "handicap": []}
    assert game.to_move == BLACK and game.prison == {BLACK: 0, WHITE: 0}
    assert game.name == "droched" and game.special_moves == ("release",)
    game = hexstones.new_game("droched", size=5, prison=3, handicap="E5, c3")
    assert game.options == {"size": 5, "prison": 3, "handicap": ["c3", "e5"]}
    assert game.prison == {BLACK: 3, WHITE: 0}
    again = hexstones.new_game("droched", **game.options)
    assert snapshot(again) == snapshot(game)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"prison": -1}, "prison"),
        ({"prison": True}, "prison"),
        ({"prison": "2"}, "prison"),
        ({"prison": 1.5}, "prison"),
        ({"handicap": ["z9"]}, "handicap point"),
        ({"handicap": ["d4", "D4"]}, "given twice"),
        ({"handicap": 5}, "list of points"),
        ({"size": 2}, "board size"),
        ({"komi": 3}, "unknown option"),
        # A ring of black stones around the empty centre of side 3 with nothing else:
        # fine (it reaches the border); but a full board leaves no path at all.
        ({"size": 3, "handicap": list(get_board(3).names)}, "broken bridge"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        hexstones.new_game("droched", **options)


def test_bad_moves_are_refused_without_change():
    game = play_all(hexstones.new_game("droched", size=4), ["d4"])
    before = snapshot(game)
    for move, message in [("d4", "occupied"), ("z1", "not a move"), ("pass", "not a move"),
                          (7, "a move is a point"), ("release", "no black stone")]:
        with pytest.raises(IllegalMove, match=message):
            game.play(move)
        assert snapshot(game) == before
    with pytest.raises(IllegalMove, match="no move"):
        hexstones.new_game("droched", size=3).undo()


# -- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize("record", RECORDS, ids=[f"record{i}-side{r['size']}" for i, r in enumerate(RECORDS)])
def test_conformance_record(record):
    game = hexstones.new_game("droched", size=record["size"], **record["options"])
    assert len(record["legal"]) == len(record["moves"]) + 1
    for i, move in enumerate(record["moves"]):
        assert sorted(game.legal_moves()) == record["legal"][i], f"legal moves before move {i} ({move})"
        assert game.result() is None
        game.play(move)
    assert sorted(game.legal_moves()) == record["legal"][-1]
    assert game.result() == record.get("result")
    assert game.is_over == ("result" in record)


# -- an independent reading of section 4, for cross-checks -----------------------------


class Reference:
    """Section 4 with sets and breadth-first searches: slow, plain, obviously the rules."""

    def __init__(self, size, prison=0, handicap=()):
        self.board = get_board(size)
        self.cells = {self.board.index[p]: BLACK for p in handicap}
        self.to_move = WHITE if handicap else BLACK
        self.prison = {BLACK: prison, WHITE: 0}
        self.ends = {BLACK: set(), WHITE: set()}  # boards at the end of each player's turns

    def _component(self, cells, start, member):
        seen, todo = {start}, [start]
        while todo:
            for q in self.board.neighbours[todo.pop()]:
                if q not in seen and member(cells.get(q)):
                    seen.add(q)
                    todo.append(q)
        return seen

    def _broken(self, cells, color):
        broken, seen = set(), set()
        for p, c in cells.items():
            if c != color or p in seen:
                continue
            group = self._component(cells, p, lambda x: x == color)
            seen |= group
            reached = set()
            for s in group:
                for e in self.board.neighbours[s]:
                    if e not in cells and e not in reached:
                        reached |= self._component(cells, e, lambda x: x is None)
            features = {self.board.feature_of[e] for e in reached} - {-1}
            if len(features) < 2:
                broken |= group
        return broken

    def place(self, p):
        """(new cells, enemy prisoners, own prisoners) or None if illegal."""
        if p in self.cells:
            return None
        mover = self.to_move
        cells = dict(self.cells)
        cells[p] = mover
        enemy = self._broken(cells, other(mover))
        for q in enemy:
            del cells[q]
        own = self._broken(cells, mover)
        for q in own:
            del cells[q]
        if own == {p} and not enemy:
            return None
        if frozenset(cells.items()) in self.ends[mover]:
            return None
        return cells, len(enemy), len(own)

    def legal(self):
        moves = [self.board.names[p] for p in range(self.board.num_points) if self.place(p)]
        if self.prison[other(self.to_move)]:
            moves.append("release")
        return moves

    def play(self, move):
        mover = self.to_move
        if move == "release":
            self.prison[other(mover)] -= 1
        else:
            self.cells, n_enemy, n_own = self.place(self.board.index[move])
            self.prison[other(mover)] += n_enemy
            self.prison[mover] += n_own
        self.ends[mover].add(frozenset(self.cells.items()))
        self.to_move = other(mover)


FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
choices = st.lists(st.integers(0, 10_000), min_size=1, max_size=40)
handicaps = st.sampled_from([(), ("c3",), ("a1", "b1"), ("b2", "d4", "e3")])


@FAST
@given(size=st.integers(3, 5), prison=st.integers(0, 2), handicap=handicaps, picks=choices)
def test_matches_plain_reading_of_the_rules(size, prison, handicap, picks):
    game = hexstones.new_game("droched", size=size, prison=prison, handicap=handicap)
    ref = Reference(size, prison, handicap)
    for pick in picks:
        legal = game.legal_moves()
        assert legal == ref.legal()
        assert game.prison == ref.prison
        assert game.stones() == {ref.board.names[p]: c for p, c in sorted(ref.cells.items())}
        if not legal:
            assert game.result() == {"winner": other(game.to_move)}
            break
        move = legal[pick % len(legal)]
        game.play(move)
        ref.play(move)


@FAST
@given(size=st.integers(3, 5), prison=st.integers(0, 3), handicap=handicaps, picks=choices)
def test_stones_are_conserved(size, prison, handicap, picks):
    game = hexstones.new_game("droched", size=size, prison=prison, handicap=handicap)
    placed = {BLACK: prison + len(handicap), WHITE: 0}
    for pick in picks:
        legal = game.legal_moves()
        if not legal:
            break
        move = legal[pick % len(legal)]
        if move != "release":
            placed[game.to_move] += 1
        game.play(move)
        on_board = {BLACK: 0, WHITE: 0}
        for color in game.stones().values():
            on_board[color] += 1
        for color in (BLACK, WHITE):
            assert on_board[color] + game.prison[color] + game.released[color] == placed[color]


def test_placement_may_bring_back_the_handicap_board():
    # Side 3, handicap c1: after these moves Black c1 sends all 13 white stones to the
    # prison and leaves exactly the handicap board. The start was nobody's turn, and no
    # earlier black turn ended on that board, so the placement is legal.
    moves = ["e4", "a1", "e5", "b1", "d2", "d5", "c4", "a2", "c2", "e3", "a3", "d3", "b4", "c3",
             "b2", "c1", "e3", "b1", "release", "d4", "a2", "b1", "d5", "c1", "c5", "c1", "b1"]
    game = hexstones.new_game("droched", size=3, handicap=["c1"])
    start = game.stones()
    play_all(game, moves)
    assert game.to_move == BLACK and "c1" in game.legal_moves()
    # What counting the start would change: the same game where the start board ended a
    # turn of Black's (Black plays c1 instead of getting it as handicap).
    counted = play_all(hexstones.new_game("droched", size=3), ["c1"] + moves)
    assert counted.stones() == game.stones() and counted.to_move == BLACK
    assert "c1" not in counted.legal_moves()
    with pytest.raises(IllegalMove, match="repetition"):
        counted.play("c1")
    game.play("c1")
    assert game.stones() == start
    assert len(game.last_imprisoned) == 13 and game.prison[WHITE] == 13
