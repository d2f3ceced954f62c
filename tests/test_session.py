"""The game session: seats and turns, takebacks, resignation, the komi pie's steps, and
the rules of giving up, as every front door (web, terminal, protocol, matches) uses them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

import hexstones
from hexstones.games import BLACK, WHITE
from hexstones.session import (
    AI,
    PERSON,
    Adjudication,
    BadStep,
    Clock,
    KomiPie,
    NotNow,
    Resign,
    ResignWatch,
    Session,
    TakebackAsk,
    TimeControl,
    balanced,
    takeback,
    takebacks,
)


def played(name: str, moves: int, seed: int = 0, size: int = 3):
    """A game of ``name`` after ``moves`` random placements (fewer if it ends)."""
    game = hexstones.new_game(name, size=size)
    rng = random.Random(seed)
    for _ in range(moves):
        points = [m for m in game.legal_moves() if game.board.is_point(m)]
        if game.is_over or not points:
            break
        game.play(rng.choice(points))
    return game


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(hexstones.GAME_NAMES), moves=st.integers(0, 12),
       seed=st.integers(0, 1000), persons=st.sampled_from([{BLACK}, {WHITE}, {BLACK, WHITE}]))
def test_a_takeback_stops_at_a_persons_move_and_leaves_the_game_as_it_was(name, moves, seed, persons):
    game = played(name, moves, seed)
    before = list(game.moves)
    back = takeback(game, lambda color: color in persons)
    assert game.moves == before  # done on a copy
    assert back.game.moves == before[:len(before) - len(back.taken)]
    assert list(reversed(back.taken)) == before[len(back.game.moves):]
    if back.reached:
        assert back.game.to_move in persons and back.taken
        # nothing shorter would do: each position passed on the way was the AI's to move
        trial = game.copy()
        for _ in back.taken[:-1]:
            trial.undo()
            assert trial.to_move not in persons
    else:
        assert back.game.moves == []
    replayed = back.game.copy()
    for move in reversed(back.taken):
        replayed.play(move)
    assert replayed.moves == before and replayed.to_move == game.to_move


def test_against_the_ai_an_undo_takes_back_the_persons_move_and_the_ais_reply():
    game = played("keil", 4)
    session = Session.between(game, {BLACK})
    back = session.takeback()
    assert len(back.taken) == 2 and back.game.to_move == BLACK
    with pytest.raises(NotNow, match="no move of yours"):
        Session.between(played("keil", 1), {WHITE}).takeback()
    with pytest.raises(NotNow, match="no move to take back"):
        Session.between(played("keil", 0), {BLACK}).takeback()


def test_between_people_an_undo_takes_back_one_move_or_back_to_a_colour():
    game = played("dehil", 5)
    session = Session.between(game, {BLACK, WHITE})
    assert session.takeback().taken == [game.moves[-1]]
    back = session.takeback(until=WHITE)
    assert back.game.to_move == WHITE and len(back.taken) == 2


def test_a_takeback_meant_for_an_earlier_position_is_refused_once_a_person_played_since():
    game = played("keil", 4)  # black (a person) moved at plies 0 and 2, the AI at 1 and 3
    session = Session.between(game, {BLACK})
    session.takeback(ply=4)
    session.takeback(ply=3)  # only the AI's reply came since
    with pytest.raises(NotNow, match="meant for the position at move 2"):
        session.takeback(ply=2)
    with pytest.raises(NotNow, match="meant for the position at move 9"):
        session.takeback(ply=9)


def test_moves_resignation_and_the_outcome():
    game = played("keil", 2)
    session = Session.between(game, {BLACK})
    session.check_person_moves()
    assert session.ai_task() is None and session.outcome() is None
    with pytest.raises(NotNow, match="the AI's turn"):
        Session.between(played("keil", 1), {BLACK}).check_person_moves()
    assert session.resigner(None) == BLACK  # against the AI: the person
    with pytest.raises(NotNow, match="only a person resigns"):
        session.resigner(WHITE)
    with pytest.raises(BadStep, match="color must be"):
        session.resigner("green")
    resigned = Session(game, session.players, resigned=BLACK, against_ai=True)
    assert resigned.over and resigned.outcome().text() == "White wins: Black resigned"
    for step in (resigned.check_can_play, lambda: resigned.resigner(None), resigned.takeback):
        with pytest.raises(NotNow, match="over|resigned"):
            step()
    between_people = Session.between(played("keil", 3), {BLACK, WHITE})
    assert between_people.resigner(None) == between_people.game.to_move == WHITE



def test_a_flag_that_fell_ends_the_game_on_time_and_nothing_more_is_played():
    game = played("dehil", 4)
    clock = Clock.new(TimeControl.parse("fischer:15:0")).start(0.0)
    for t, mover in ((1.0, BLACK), (2.0, WHITE), (3.0, BLACK)):  # first moves are free
        clock = clock.moved(mover, t)
    fallen = clock.fallen(clock.flag_at())
    assert fallen == WHITE and clock.fallen(clock.flag_at() - 0.5) is None
    people = Session.between(game, {BLACK, WHITE})
    flagged = Session(game, people.players, flagged=fallen)
    assert flagged.over and flagged.outcome().text() == "Black wins on time"
    assert flagged.ai_task() is None and not people.over
    for step in (flagged.check_can_play, lambda: flagged.resigner(None), flagged.takeback,
                 lambda: takebacks.ask(flagged, [BLACK], None),
                 lambda: takebacks.answer(flagged, [WHITE], TakebackAsk(BLACK, 4), "accept")):
        with pytest.raises(NotNow, match="over"):
            step()
    against_ai = Session(game, {BLACK: PERSON, WHITE: AI}, against_ai=True, flagged=BLACK)
    assert against_ai.ai_task() is None and against_ai.outcome().winner == WHITE


def test_the_komi_pie_steps_once_each_in_order():
    pie = KomiPie(PERSON)
    game = hexstones.new_game("keil", size=3)
    waiting = Session(game, None, pie, against_ai=True)
    assert waiting.pie_for_person() is pie and waiting.ai_task() is None
    with pytest.raises(NotNow, match="komi pie comes first"):
        waiting.check_can_play()
    with pytest.raises(NotNow, match="not decided yet"):
        waiting.resigner(None)
    with pytest.raises(BadStep, match="proposed first"):
        pie.choose(BLACK)
    proposed = pie.propose(2)
    assert pie.stage == "propose" and proposed.stage == "choose"  # a value: the old one stays
    with pytest.raises(NotNow, match="already proposed"):
        proposed.propose(3)
    assert Session(game, None, proposed, against_ai=True).ai_task() == "choose"
    with pytest.raises(NotNow, match="AI chooses"):
        Session(game, None, proposed, against_ai=True).pie_for_person()
    with pytest.raises(BadStep, match="choose a colour"):
        proposed.choose("red")
    done = proposed.choose(WHITE)
    assert done.players(against_ai=True) == {WHITE: AI, BLACK: PERSON}
    assert KomiPie.from_dict(done.to_dict()) == done
    with pytest.raises(NotNow, match="no komi pie pending"):
        Session(game, done.players(True), done, against_ai=True).pie_for_person()
    assert Session(game, None, KomiPie(AI), against_ai=True).ai_task() == "propose"


def test_a_balance_is_checked_by_the_game_api():
    assert balanced("keil", {"size": 5}, 3) == {"size": 5, "komi": 3}
    with pytest.raises(ValueError):
        balanced("keil", {"size": 5}, 10**9)


def test_resignation_by_a_players_own_win_chance():
    with pytest.raises(ValueError, match="between 0 and 0.5"):
        Resign(0.6).checked()
    watch = ResignWatch([0.1, 2])
    assert not watch.resigns(BLACK, 0, 0.05)
    assert not watch.resigns(WHITE, 1, 0.05)
    assert not watch.resigns(BLACK, 2, 0.5)  # the run of low turns starts again
    assert not watch.resigns(BLACK, 4, 0.05)
    assert watch.resigns(BLACK, 6, 0.01)
    assert watch.winner(None) == WHITE
    played_out = ResignWatch([0.1, 1], play_out=True)
    assert not played_out.resigns(WHITE, 3, 0.0) and played_out.would_resign == {"color": WHITE, "ply": 3}
    assert played_out.winner(None) == BLACK and played_out.winner(WHITE) == WHITE


def test_adjudication_needs_both_engines_to_agree():
    rule = Adjudication(0.1, turns=1)
    assert rule.loser([(BLACK, 0.05)]) is None  # one opinion is not both engines'
    # black moved and judged white (to move) at 5%; white moved and judged black at 95%
    assert rule.loser([(BLACK, 0.05), (WHITE, 0.95)]) == WHITE
    assert rule.loser([(BLACK, 0.05), (WHITE, 0.5)]) is None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 3))
def test_conditional_lines_answer_exactly_the_moves_they_expect(seed, count, pairs):
    """Random legal lines, checked: following any one of them move by move gives its
    answers, and a move no line expects cancels them all."""
    from hexstones.session import Conditional
    from hexstones.session.conditional import checked

    rng = random.Random(seed)
    game = hexstones.new_game("keil", size=5)
    game.play("a1")  # white is to move; black leaves its lines
    lines, answers = [], {}
    for _ in range(count):
        trial, line = game.copy(), []
        for _ in range(2 * pairs):
            if trial.is_over:
                break
            move = rng.choice(trial.legal_moves())
            if len(line) % 2 == 1:  # black answers as an earlier line did, where it has one
                move = answers.get(tuple(line), move)
                answers[tuple(line)] = move
            trial.play(move)
            line.append(trial.moves[-1])
        if len(line) % 2:
            line.pop()
        if line:
            lines.append(line)
    found = checked(game, BLACK, lines)
    for line in found.lines:
        left = found
        for ply in range(0, len(line), 2):
            answer, left = left.after(line[ply])
            assert answer == line[ply + 1]
    unexpected = next(m for m in game.legal_moves() if all(line[0] != m for line in found.lines))
    assert found.after(unexpected) == (None, Conditional())
