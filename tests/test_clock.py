"""Game clocks (hexstones.session.clock): the time controls' text forms, and the clock's
rules under each, driven by instants the tests choose (no wall clock anywhere).

Instants here are multiples of 1/8 s near a real Unix time, so every sum and difference
the clock computes is exact and the tests can compare with ``==``."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from hexstones.games import BLACK, WHITE
from hexstones.session import (
    BadStep,
    ByoYomi,
    Clock,
    Correspondence,
    Fischer,
    NotNow,
    TimeControl,
    TimeLeft,
    Untimed,
)

T0 = 1_700_000_000.0
DAY = 86400

fischers = st.builds(Fischer, st.integers(Fischer.MIN_BASE, Fischer.MAX_BASE),
                     st.integers(0, Fischer.MAX_INCREMENT))
byoyomis = st.builds(ByoYomi, st.integers(0, ByoYomi.MAX_MAIN),
                     st.integers(ByoYomi.MIN_PERIODS, ByoYomi.MAX_PERIODS),
                     st.integers(ByoYomi.MIN_PERIOD, ByoYomi.MAX_PERIOD))
correspondences = st.builds(Correspondence,
                            st.integers(Correspondence.MIN_DAYS, Correspondence.MAX_DAYS))
timed_controls = st.one_of(fischers, byoyomis, correspondences)
controls = st.one_of(st.just(Untimed()), timed_controls)

OPS = ["move", "move", "move", "move", "pause", "resume", "stop"]
# (what to do, after how many eighths of what the side to move has left: 8 and more is late)
steps = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 12)), max_size=30)


def eighths(seconds: float) -> float:
    """``seconds`` rounded down to a multiple of 1/8 (keeps the tests' arithmetic exact)."""
    return math.floor(seconds * 8) / 8


def deadline(clock: Clock) -> float | None:
    """When the running side's time ends: its flag, or its first move's deadline."""
    flag_at = clock.flag_at()
    return flag_at if flag_at is not None else clock.abort_at()


def history(control: TimeControl, plan: list[tuple[str, int]]) -> list[tuple[Clock, float]]:
    """Each clock of a game under ``control`` with an instant to look at it, as ``plan``
    plays out: each step waits k eighths of the time left to the running side (a minute
    when nothing runs out), then moves, pauses, resumes or stops when the clock allows it.
    A fallen flag or a passed abort deadline stops the clock: the game is over."""
    now = T0
    clock = Clock.new(control).start(now)
    seen = [(clock, now)]
    for op, k in plan:
        end = deadline(clock)
        span = end - now if end is not None and end > now else 60.0
        now += eighths(span * k / 8)
        seen.append((clock, now))
        runs = clock.running is not None
        if runs and (clock.fallen(now) is not None or clock.aborted(now)):
            clock = clock.stop(now)
        elif op == "move" and runs and not clock.paused:
            clock = clock.moved(clock.running, now)
        elif op == "pause" and runs and not clock.paused:
            clock = clock.pause(now)
        elif op == "resume" and clock.paused:
            clock = clock.resume(now)
        elif op == "stop" and runs:
            clock = clock.stop(now)
        seen.append((clock, now))
    return seen


def opened(control: TimeControl, now: float = T0) -> Clock:
    """A clock under ``control`` after both free first moves: Black's time runs from
    ``now`` + 2."""
    return Clock.new(control).start(now).moved(BLACK, now + 1).moved(WHITE, now + 2)


# -- time controls: text forms, descriptions, bounds -----------------------------------------

@settings(max_examples=200, deadline=None)
@given(control=controls)
def test_every_valid_control_reads_back_from_its_text(control):
    assert TimeControl.parse(control.text) == control
    assert TimeControl.parse(control.text).text == control.text == str(control)


@pytest.mark.parametrize("text, description", [
    ("none", "no time limit"),
    ("fischer:300:3", "5+3"),
    ("fischer:15:0", "0:15+0"),
    ("fischer:90:2", "1:30+2"),
    ("fischer:10800:180", "180+180"),
    ("byoyomi:600:5:30", "10 min + 5x30 s"),
    ("byoyomi:0:3:60", "3x1 min"),
    ("byoyomi:5400:1:90", "1 h 30 min + 1x1 min 30 s"),
    ("days:1", "1 day a move"),
    ("days:3", "3 days a move"),
])
def test_each_control_reads_and_describes(text, description):
    control = TimeControl.parse(text)
    assert control.text == text
    assert control.describe() == description


FORMS = "'none', 'fischer:BASE:INC', 'byoyomi:MAIN:PERIODS:SECONDS' or 'days:N'"


@pytest.mark.parametrize("text, message", [
    ("", f"a time control is written {FORMS}, not ''"),
    ("blitz", f"a time control is written {FORMS}, not 'blitz'"),
    ("Fischer:300:3", f"a time control is written {FORMS}, not 'Fischer:300:3'"),
    (300, f"a time control is written {FORMS}, not 300"),
    (None, f"a time control is written {FORMS}, not None"),
    ("none:0", "'none' takes no numbers: 'none:0'"),
    ("fischer:300", "fischer:BASE:INC has 2 numbers after 'fischer', not 1: 'fischer:300'"),
    ("fischer:300:3:1", "fischer:BASE:INC has 2 numbers after 'fischer', not 3: 'fischer:300:3:1'"),
    ("byoyomi:600:5", "byoyomi:MAIN:PERIODS:SECONDS has 3 numbers after 'byoyomi', not 2: "
                      "'byoyomi:600:5'"),
    ("days:", "the number of days per move must be a whole number of days, not '' (in 'days:')"),
    ("days:3:1", "days:N has 1 number after 'days', not 2: 'days:3:1'"),
    ("fischer:5m:3", "the base time must be a whole number of seconds, not '5m' (in 'fischer:5m:3')"),
    ("fischer:-1:3", "the base time must be a whole number of seconds, not '-1' (in 'fischer:-1:3')"),
    ("fischer:1.5:3", "the base time must be a whole number of seconds, not '1.5' (in 'fischer:1.5:3')"),
    ("fischer: 300:3", "the base time must be a whole number of seconds, not ' 300' "
                       "(in 'fischer: 300:3')"),
    ("fischer:३००:3", "the base time must be a whole number of seconds, not '३००' (in 'fischer:३००:3')"),
    ("fischer:0300:3", "write the base time without leading zeros, not '0300'"),
    ("fischer:14:0", "the base time must be from 15 s to 3 h, not 14 s"),
    ("fischer:10801:0", "the base time must be from 15 s to 3 h, not 10801 s"),
    ("fischer:300:181", "the increment must be from 0 s to 3 min, not 181 s"),
    ("fischer:300:" + "9" * 40, "the increment is far too large: a number of 40 digits"),
    ("byoyomi:10801:5:30", "the main time must be from 0 s to 3 h, not 10801 s"),
    ("byoyomi:600:0:30", "the number of periods must be from 1 to 30, not 0"),
    ("byoyomi:600:31:30", "the number of periods must be from 1 to 30, not 31"),
    ("byoyomi:600:5:4", "the period must be from 5 s to 10 min, not 4 s"),
    ("byoyomi:600:5:601", "the period must be from 5 s to 10 min, not 601 s"),
    ("byoyomi:600:x:30", "the number of periods must be a whole number, not 'x' "
                         "(in 'byoyomi:600:x:30')"),
    ("days:0", "the number of days per move must be from 1 to 14 days, not 0"),
    ("days:15", "the number of days per move must be from 1 to 14 days, not 15"),
    ("days:three", "the number of days per move must be a whole number of days, not 'three' "
                   "(in 'days:three')"),
])
def test_a_bad_control_is_refused_saying_what_is_wrong(text, message):
    with pytest.raises(BadStep) as refused:
        TimeControl.parse(text)
    assert refused.value.message == message


def test_the_bounds_are_inclusive_and_hold_for_controls_made_in_code():
    assert Fischer(Fischer.MIN_BASE, 0).base == 15
    assert Fischer(Fischer.MAX_BASE, Fischer.MAX_INCREMENT).increment == 180
    assert ByoYomi(0, ByoYomi.MAX_PERIODS, ByoYomi.MIN_PERIOD).periods == 30
    assert Correspondence(Correspondence.MAX_DAYS).days == 14
    for make in (lambda: Fischer(Fischer.MIN_BASE - 1, 0),
                 lambda: Fischer(300, Fischer.MAX_INCREMENT + 1),
                 lambda: ByoYomi(ByoYomi.MAX_MAIN + 1, 1, 30),
                 lambda: ByoYomi(0, 1, ByoYomi.MAX_PERIOD + 1),
                 lambda: Correspondence(Correspondence.MIN_DAYS - 1)):
        with pytest.raises(BadStep):
            make()
    for odd in (True, 300.0, "300"):
        with pytest.raises(BadStep, match="the base time must be a whole number"):
            Fischer(odd, 0)


# -- the clock under any control: invariants ---------------------------------------------

@settings(max_examples=150, deadline=None)
@given(control=controls, plan=steps)
def test_remaining_time_is_never_negative(control, plan):
    for clock, now in history(control, plan):
        for color in (BLACK, WHITE):
            shown = clock.remaining(color, now)
            if control.TIMED:
                assert shown is not None and shown >= 0
            else:
                assert shown is None
            assert clock.periods_left(color, now) >= 0


@settings(max_examples=150, deadline=None)
@given(control=controls, plan=steps)
def test_the_flag_falls_exactly_at_flag_at_and_not_a_moment_before(control, plan):
    for clock, _ in history(control, plan):
        flag_at = clock.flag_at()
        if flag_at is None:
            continue
        just_before = math.nextafter(flag_at, -math.inf)
        assert clock.fallen(just_before) is None
        assert clock.fallen(flag_at) == clock.running
        assert clock.remaining(clock.running, flag_at) == 0
        assert clock.moved(clock.running, just_before).fallen(just_before) is None
        with pytest.raises(NotNow, match="flag fell"):
            clock.moved(clock.running, flag_at)


@settings(max_examples=150, deadline=None)
@given(control=controls, plan=steps)
def test_every_clock_reads_back_equal_from_its_json(control, plan):
    for clock, now in history(control, plan):
        stored = json.loads(json.dumps(clock.to_dict()))
        again = Clock.from_dict(stored)
        assert again == clock
        assert again.to_dict() == clock.to_dict()
        assert again.fallen(now) == clock.fallen(now)


@settings(max_examples=150, deadline=None)
@given(control=timed_controls,
       thinking=st.lists(st.integers(0, 7), min_size=1, max_size=40))
def test_moves_made_in_time_never_flag(control, thinking):
    """Each move takes k/8 of what its side has left (k < 8): nobody ever loses on time."""
    clock, now = opened(control), T0 + 2
    for k in thinking:
        end = clock.flag_at()
        assert end is not None and clock.fallen(now) is None
        now += eighths((end - now) * k / 8)
        assert clock.fallen(now) is None
        clock = clock.moved(clock.running, now)
        for color in (BLACK, WHITE):
            assert clock.remaining(color, now) > 0
    assert clock.stop(now).fallen(now) is None


@settings(max_examples=100, deadline=None)
@given(control=timed_controls, plan=steps)
def test_a_step_leaves_the_clock_it_was_taken_on_as_it_was(control, plan):
    clocks = history(control, plan)
    stored = [c.to_dict() for c, _ in clocks]
    history(control, plan)
    assert [c.to_dict() for c, _ in clocks] == stored


# -- Fischer ----------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(control=fischers, moves=st.lists(st.integers(0, 7), min_size=1, max_size=20))
def test_fischer_charges_the_time_spent_and_adds_the_increment(control, moves):
    clock, now = opened(control), T0 + 2
    for k in moves:
        mover, waiting = clock.running, "white" if clock.running == BLACK else BLACK
        before, theirs = clock.remaining(mover, now), clock.remaining(waiting, now)
        spent = eighths(before * k / 8)
        now += spent
        assert clock.remaining(mover, now) == before - spent  # runs while it thinks
        clock = clock.moved(mover, now)
        assert clock.remaining(mover, now) == before - spent + control.increment
        assert clock.remaining(waiting, now) == theirs  # its clock only starts now
        assert clock.running == waiting and clock.running_since == now


def test_fischer_worked_example():
    clock = opened(Fischer(300, 3))  # 5+3, Black to move at T0 + 2
    assert clock.remaining(BLACK, T0 + 2) == clock.remaining(WHITE, T0 + 2) == 300
    clock = clock.moved(BLACK, T0 + 12)  # 10 s
    assert clock.remaining(BLACK, T0 + 12) == 293
    assert clock.flag_at() == T0 + 12 + 300
    clock = clock.moved(WHITE, T0 + 312 - 0.5)  # half a second to spare
    assert clock.remaining(WHITE, T0 + 400) == 3.5
    assert clock.flag_at() == T0 + 311.5 + 293
    assert clock.fallen(T0 + 604.5) == BLACK
    assert clock.remaining(BLACK, T0 + 700) == 0


# -- byo-yomi ---------------------------------------------------------------------------

def test_byoyomi_worked_example():
    """1 min main time, then 3 periods of 30 s."""
    clock = opened(ByoYomi(60, 3, 30))
    t = T0 + 2  # Black's time runs from here
    clock = clock.moved(BLACK, t + 50)  # in main time: 10 s of it left, all periods
    assert (clock.remaining(BLACK, t + 50), clock.periods_left(BLACK, t + 50)) == (10, 3)
    t += 50
    clock = clock.moved(WHITE, t + 1)
    t += 1
    # Black: 10 s of main time, then the periods; 15 s into the first period
    assert (clock.remaining(BLACK, t + 25), clock.periods_left(BLACK, t + 25)) == (15, 3)
    clock = clock.moved(BLACK, t + 25)  # made within the period: keeps it
    assert (clock.remaining(BLACK, t + 25), clock.periods_left(BLACK, t + 25)) == (30, 3)
    t += 25
    clock = clock.moved(WHITE, t + 1)
    t += 1
    # overrunning a period uses it up and the next one starts whole
    assert (clock.remaining(BLACK, t + 31), clock.periods_left(BLACK, t + 31)) == (29, 2)
    clock = clock.moved(BLACK, t + 31)
    assert clock.periods_left(BLACK, t + 31) == 2
    t += 31
    clock = clock.moved(WHITE, t + 1)
    t += 1
    # a period's very end uses it up: 30 s into 2 periods leaves 1
    assert (clock.remaining(BLACK, t + 30), clock.periods_left(BLACK, t + 30)) == (30, 1)
    clock = clock.moved(BLACK, t + 30)
    assert clock.periods_left(BLACK, t + 30) == 1
    t += 30
    clock = clock.moved(WHITE, t + 1)
    t += 1
    # the last period: its end is the flag
    assert clock.flag_at() == t + 30
    assert clock.fallen(t + 29.875) is None
    assert (clock.remaining(BLACK, t + 29.875), clock.periods_left(BLACK, t + 29.875)) == (0.125, 1)
    assert clock.fallen(t + 30) == BLACK
    assert (clock.remaining(BLACK, t + 30), clock.periods_left(BLACK, t + 30)) == (0, 0)
    with pytest.raises(NotNow, match="black's flag fell"):
        clock.moved(BLACK, t + 30)
    assert clock.moved(BLACK, t + 29.875).periods_left(BLACK, t + 40) == 1


def test_byoyomi_with_no_main_time_starts_in_the_periods():
    clock = opened(ByoYomi(0, 2, 10))
    t = T0 + 2
    assert clock.flag_at() == t + 20
    assert (clock.remaining(BLACK, t + 4), clock.periods_left(BLACK, t + 4)) == (6, 2)
    assert (clock.remaining(BLACK, t + 15), clock.periods_left(BLACK, t + 15)) == (5, 1)
    assert clock.moved(BLACK, t + 15).periods_left(BLACK, t + 15) == 1
    assert clock.stop(t + 25).fallen(t + 25) == BLACK  # both periods gone: lost on time


@settings(max_examples=200, deadline=None)
@given(control=byoyomis, k=st.integers(0, 7))
def test_byoyomi_a_move_keeps_the_period_it_was_made_in(control, k):
    clock = opened(control)
    spent_out = clock.moved(BLACK, T0 + 2 + control.main).moved(WHITE, T0 + 3 + control.main)
    t = T0 + 3 + control.main
    periods = spent_out.periods_left(BLACK, t)
    assert periods == control.periods
    thinking = eighths(control.period_seconds * k / 8)  # within the first period
    after = spent_out.moved(BLACK, t + thinking)
    assert after.periods_left(BLACK, t + thinking) == periods
    assert after.remaining(BLACK, t + thinking) == control.period_seconds


# -- correspondence ---------------------------------------------------------------------

def test_correspondence_worked_example():
    control = Correspondence(3)  # 3 days a move, a bank of at most 15 days
    assert control.cap == 15 * DAY
    clock = opened(control)
    t = T0 + 2
    assert clock.remaining(BLACK, t) == 3 * DAY
    clock = clock.moved(BLACK, t + DAY)  # 2 days left + 3 days
    assert clock.remaining(BLACK, t + DAY) == 5 * DAY
    clock = clock.moved(WHITE, t + 4 * DAY - 1)  # all of White's 3 days but a second
    assert clock.remaining(WHITE, t + 4 * DAY) == 3 * DAY + 1
    for _ in range(10):  # quick answers fill the bank up to the cap, no further
        clock = clock.moved(clock.running, clock.running_since + 60)
    since = clock.running_since  # Black's turn
    assert clock.remaining(WHITE, since) == clock.remaining(BLACK, since) == 15 * DAY
    assert clock.remaining(BLACK, since + 60) == 15 * DAY - 60


@settings(max_examples=150, deadline=None)
@given(control=correspondences, plan=steps)
def test_correspondence_bank_never_exceeds_the_cap(control, plan):
    for clock, now in history(control, plan):
        for color in (BLACK, WHITE):
            assert clock.left[color].seconds <= control.cap
            assert clock.remaining(color, now) <= control.cap


@settings(max_examples=100, deadline=None)
@given(control=correspondences, k=st.integers(0, 7))
def test_correspondence_a_move_in_time_leaves_at_least_its_days(control, k):
    clock, t = opened(control), T0 + 2
    spent = eighths(control.per_move * k / 8)
    assert clock.moved(BLACK, t + spent).remaining(BLACK, t + spent) >= control.per_move


# -- the first move: aborted, not lost --------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(control=timed_controls)
def test_first_moves_are_free_but_have_a_deadline(control):
    deadline_s = control.first_move_seconds
    assert deadline_s is not None
    clock = Clock.new(control).start(T0)
    start = control.start()
    assert clock.flag_at() is None and clock.abort_at() == T0 + deadline_s
    assert not clock.aborted(math.nextafter(T0 + deadline_s, -math.inf))
    assert clock.aborted(T0 + deadline_s) and clock.fallen(T0 + deadline_s) is None
    with pytest.raises(NotNow, match="aborted"):
        clock.moved(BLACK, T0 + deadline_s)
    late = T0 + deadline_s - 1
    clock = clock.moved(BLACK, late)  # spends nothing, earns nothing
    assert clock.left[BLACK] == start and clock.abort_at() == late + deadline_s
    clock = clock.moved(WHITE, late + deadline_s - 1)
    assert clock.left[WHITE] == start
    assert clock.abort_at() is None and clock.flag_at() == late + deadline_s - 1 + control.until_flag(start)


def test_the_first_move_deadlines_by_control():
    assert Fischer(300, 3).first_move_seconds == ByoYomi(0, 5, 30).first_move_seconds == 60
    assert Correspondence(3).first_move_seconds == 3 * DAY
    assert Untimed().first_move_seconds is None
    assert Clock.new(Fischer(300, 3), first_move_deadline=20).start(T0).abort_at() == T0 + 20
    untimed = Clock.new(Untimed()).start(T0)
    assert untimed.abort_at() is None and not untimed.aborted(T0 + 10 * 365 * DAY)
    assert untimed.moved(BLACK, T0 + 365 * DAY).flag_at() is None
    for bad in (0, -5, math.nan, "60"):
        with pytest.raises(BadStep):
            Clock.new(Fischer(300, 3), first_move_deadline=bad)


# -- pausing (vacations) ----------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(control=timed_controls, into=st.integers(0, 7), pause=st.integers(1, 10**7),
       opening=st.booleans())
def test_pausing_stops_all_time(control, into, pause, opening):
    clock = Clock.new(control).start(T0) if opening else opened(control)
    since = clock.running_since
    end = deadline(clock)
    at = since + eighths((end - since) * into / 8)
    shown = clock.remaining(BLACK, at), clock.remaining(WHITE, at)
    paused = clock.pause(at)
    assert paused.flag_at() is None and paused.abort_at() is None
    for later in (at, at + pause, at + 10**9):
        assert (paused.remaining(BLACK, later), paused.remaining(WHITE, later)) == shown
        assert paused.fallen(later) is None and not paused.aborted(later)
    with pytest.raises(NotNow, match="paused"):
        paused.moved(BLACK, at + 1)
    resumed = paused.resume(at + pause)
    assert deadline(resumed) == end + pause
    assert (resumed.remaining(BLACK, at + pause), resumed.remaining(WHITE, at + pause)) == shown


def test_pause_and_resume_refusals():
    clock = opened(Correspondence(3))
    with pytest.raises(NotNow, match="not paused"):
        clock.resume(T0 + 5)
    with pytest.raises(NotNow, match="already paused"):
        clock.pause(T0 + 5).pause(T0 + 6)
    with pytest.raises(NotNow, match="too late to pause"):
        clock.pause(T0 + 2 + 3 * DAY)
    with pytest.raises(NotNow, match="has not started"):
        Clock.new(Correspondence(3)).pause(T0)
    with pytest.raises(NotNow, match="stopped"):
        clock.stop(T0 + 5).pause(T0 + 6)


# -- other steps and refusals -----------------------------------------------------------

def test_moves_alternate_and_the_clock_must_be_running():
    with pytest.raises(NotNow, match="has not started"):
        Clock.new(Fischer(60, 0)).moved(BLACK, T0)
    clock = Clock.new(Fischer(60, 0)).start(T0)
    with pytest.raises(NotNow, match="already started"):
        clock.start(T0 + 1)
    with pytest.raises(NotNow, match="it is black's turn on the clock, not white's"):
        clock.moved(WHITE, T0 + 1)
    assert Clock.new(Fischer(60, 0)).start(T0, first=WHITE).running == WHITE
    with pytest.raises(NotNow, match="stopped"):
        clock.stop(T0 + 1).moved(BLACK, T0 + 2)
    with pytest.raises(NotNow, match="stopped"):
        clock.stop(T0 + 1).stop(T0 + 2)
    for bad_color in ("red", None, 0):
        with pytest.raises(BadStep, match="a colour is 'black' or 'white'"):
            clock.moved(bad_color, T0 + 1)
    for bad_time in (math.nan, math.inf, "now", None, True):
        with pytest.raises(BadStep, match="a time is a finite number of seconds"):
            clock.moved(BLACK, bad_time)


def test_stopping_keeps_what_is_left():
    clock = opened(Fischer(300, 3)).moved(BLACK, T0 + 12)  # White to move, 300 s
    stopped = clock.stop(T0 + 112)  # the game ended 100 s into White's turn
    assert stopped.running is None and stopped.flag_at() is None
    assert stopped.remaining(WHITE, T0 + 10**6) == 200  # no increment for the unfinished turn
    assert stopped.remaining(BLACK, T0 + 10**6) == 293
    assert stopped.fallen(T0 + 10**6) is None
    assert clock.stop(T0 + 412).fallen(T0 + 412) == WHITE  # stopped once its flag fell
    assert clock.stop(T0 + 412).remaining(WHITE, T0 + 412) == 0


def test_a_clock_stepped_back_spends_nothing():
    clock = opened(Fischer(300, 0))  # Black's turn from T0 + 2
    back = clock.moved(BLACK, T0 - 100)  # the caller's wall clock jumped back
    assert back.remaining(BLACK, T0) == 300 and back.running_since == T0 + 2
    assert clock.remaining(BLACK, T0 - 100) == 300


# -- damaged storage --------------------------------------------------------------------

def stored_clock() -> dict:
    return opened(ByoYomi(60, 3, 30)).moved(BLACK, T0 + 100).pause(T0 + 110).to_dict()


@pytest.mark.parametrize("damage, message", [
    (lambda d: [], "a clock is an object, not []"),
    (lambda d: {k: v for k, v in d.items() if k != "moves"}, "missing ['moves'], unknown []"),
    (lambda d: dict(d, extra=1), "missing [], unknown ['extra']"),
    (lambda d: dict(d, control=5), "'control' must be text, not 5"),
    (lambda d: dict(d, control="fischer:5:0"),
     "'control': the base time must be from 15 s to 3 h, not 5 s"),
    (lambda d: dict(d, seconds={"black": 1.0}),
     "'seconds' must map 'black' and 'white' to their values, not {'black': 1.0}"),
    (lambda d: dict(d, seconds={"black": -1.0, "white": 0.0}),
     "black's seconds must be a number, 0 or more, not -1.0"),
    (lambda d: dict(d, seconds={"black": "1", "white": 0.0}),
     "black's seconds must be a number, 0 or more, not '1'"),
    (lambda d: dict(d, periods={"black": 3, "white": 1.5}),
     "white's periods must be a whole number, 0 or more, not 1.5"),
    (lambda d: dict(d, periods={"black": 3, "white": 4}),
     "white's time under byoyomi:60:3:30: periods must be from 0 to 3"),
    (lambda d: dict(d, seconds={"black": 61.0, "white": 60.0}),
     "black's time under byoyomi:60:3:30: more main time than the control gives (60 s)"),
    (lambda d: dict(d, running="red"), "'running' must be 'black', 'white' or null, not 'red'"),
    (lambda d: dict(d, running=None), "'running' and 'running_since' go together"),
    (lambda d: dict(d, running_since=d["started_at"] - 1), "'running_since' is before the start"),
    (lambda d: dict(d, paused_at=d["running_since"] - 1), "'paused_at' is before 'running_since'"),
    (lambda d: dict(d, started_at=None), "a clock not started has nothing running and no moves"),
    (lambda d: dict(d, started_at=math.inf), "'started_at' must be a finite number or null, not inf"),
    (lambda d: dict(d, moves=-1), "'moves' must be a whole number, 0 or more, not -1"),
    (lambda d: dict(d, moves=True), "'moves' must be a whole number, 0 or more, not True"),
    (lambda d: dict(d, moves=1), "time was spent before both sides made their free first move"),
    (lambda d: dict(d, first_move_deadline=0), "'first_move_deadline' must be positive, not 0.0"),
])
def test_damaged_clock_data_is_refused_saying_what_is_damaged(damage, message):
    assert Clock.from_dict(stored_clock()) is not None  # undamaged, it reads
    with pytest.raises(ValueError) as refused:
        Clock.from_dict(damage(stored_clock()))
    assert str(refused.value) == f"damaged clock data: {message}"


def test_controls_refuse_a_side_time_they_cannot_have():
    assert Untimed().damage(TimeLeft(5.0)) == "an untimed game keeps no time"
    assert Fischer(60, 0).damage(TimeLeft(500.0)) is None  # increments pile up: no cap
    assert Fischer(60, 0).damage(TimeLeft(5.0, 1)) == "Fischer time has no periods"
    assert ByoYomi(60, 3, 30).damage(TimeLeft(5.0, 2)) == \
        "periods are used only once the main time is spent"
    assert Correspondence(1).damage(TimeLeft(5.0 * DAY + 1)) == "a bank over the cap of 432000 s"
    stopped = replace(opened(Fischer(60, 0)).stop(T0 + 3), left={BLACK: TimeLeft(0.0),
                                                                 WHITE: TimeLeft(60.0)})
    assert Clock.from_dict(stopped.to_dict()).fallen(T0) == BLACK
