"""The compile-ahead of ``hexstones serve`` (hexstones.web.warmup) and what the AI's
workers answer while it lasts (hexstones.web.ai_pool): the order of its parts, its
progress, and the plain search's time budget. Clocks are injected: no test depends on the
machine's speed."""

from __future__ import annotations

import sys
import threading

import numba
import pytest
from numba.core.registry import CPUDispatcher

import hexstones
from hexstones import ai
from hexstones.ai import pysearch
from hexstones.web import ai_pool, warmup


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# -- the plain search's budget -----------------------------------------------------------

@pytest.mark.parametrize("name,size", [("keil", 7), ("dehil", 9), ("droched", 9)])
def test_the_plain_search_stops_within_a_move_of_its_time_budget(monkeypatch, name, size):
    # Every move costs a tenth of a second of the search's clock: a playout of a side-9
    # game is a hundred moves and more, so a search that finished its playout, or its
    # first iteration, before looking at the clock ran over by many seconds.
    clock = FakeClock()
    monkeypatch.setattr(pysearch, "_now", clock, raising=False)
    game = hexstones.new_game(name, size=size)
    game.play(game.legal_moves()[0])
    cls = type(game)
    play = cls.play

    def slow_play(self, move):
        clock.now += 0.1
        return play(self, move)

    monkeypatch.setattr(cls, "play", slow_play)
    result = pysearch.search(game, seconds=1.5, seed=1)
    assert clock.now <= 1.5 + 0.1 + 1e-9  # the move that crossed the deadline, no more
    assert sum(visits for _, visits, _ in result.children) == result.iterations  # an abandoned playout counts nowhere
    assert len(game.moves) == 1  # the position is as it was


def test_the_plain_search_with_room_plays_its_iterations(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(pysearch, "_now", clock)
    game = hexstones.new_game("dehil", size=5)
    result = pysearch.search(game, seconds=10.0, iterations=30, seed=3)  # the clock stands still
    assert result.iterations == 30 and result.children[0][0] in game.legal_moves()


# -- no kernel is compiled late ------------------------------------------------------------

class Recorder:
    """Stands for a compiled kernel in its module: records each call's signature."""

    def __init__(self, kernel, calls: set) -> None:
        self.kernel, self.calls = kernel, calls

    def __call__(self, *args):
        self.calls.add((self.kernel.py_func.__module__, self.kernel.__name__,
                        tuple(str(numba.typeof(a)) for a in args)))
        return self.kernel(*args)


def record_kernel_calls(monkeypatch) -> set:
    """The kernels called from Python from now on (each module's name for a compiled
    function is replaced), with their argument types: each is a compile where it is new."""
    calls: set = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("hexstones") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher):
                monkeypatch.setattr(module, attr, Recorder(value, calls))
    return calls


def plain_search_and_refused_clicks(name: str, size: int) -> None:
    """What a worker's plain search and the server's pages ask of the rules: a game of a
    real side with a refused placement (Dehil's triangle rule), the plain search's move."""
    game = hexstones.new_game(name, size=size)
    if name == "dehil":
        for move in ("b1", "pass", "c1", "pass", "d3", "pass"):
            game.play(move)
        with pytest.raises(hexstones.IllegalMove, match="triangle b1 c1 c2"):
            game.play("c2")
    else:
        game.play(game.legal_moves()[len(game.legal_moves()) // 2])
    for move in [*game.board.names, *game.special_moves]:
        if move not in game.legal_moves():
            with pytest.raises(hexstones.IllegalMove):
                game.play(move)
    legal = game.legal_moves()
    ai.pass_wins(game, legal)
    result = pysearch.search(game, iterations=20, seed=2)
    ai.best_move(game, result.children, legal)
    game.copy().undo()


@pytest.mark.slow  # the plain (Python) search twice on a full-size board: seconds a game
@pytest.mark.parametrize("name,size", [("keil", 7), ("dehil", 9), ("droched", 9)])
def test_the_rules_part_holds_every_kernel_the_plain_search_and_a_page_call(monkeypatch, name, size):
    # In a worker a kernel that is not loaded yet waits for numba's lock, which the
    # search's compile used to hold for minutes: Dehil's first reply waited for all of it
    # for the kernel that words a refused placement (tried by the plain search's playouts).
    warmup.exercise_rules(name)  # compiled here first: no compile while recording
    plain_search_and_refused_clicks(name, size)
    calls = record_kernel_calls(monkeypatch)
    warmup.exercise_rules(name)
    warmed = set(calls)
    calls.clear()
    plain_search_and_refused_clicks(name, size)
    assert calls - warmed == set()


# -- the order of the parts and the progress --------------------------------------------------

def run_plan(plan: warmup.Plan, helpers: int = 2) -> list[str]:
    """Hand out every part to ``helpers`` processes that finish in the order they started;
    the order they were started in, checking that each started after what it needs."""
    started: list[str] = []
    running: list[str] = []
    while not plan.finished:
        while len(running) < helpers and (part := plan.take()) is not None:
            assert all(plan.is_done(need) for need in part.needs), part.name
            started.append(part.name)
            running.append(part.name)
        assert running, "nothing can start and nothing runs"
        plan.done(running.pop(0))
    return started


def test_every_part_is_compiled_once_after_what_it_builds_on():
    order = run_plan(warmup.Plan())
    names = [part.name for part in warmup.parts()]
    assert sorted(order) == sorted(names) and len(set(order)) == len(order)
    # Every game's rules come before any search part: the plain search needs them.
    last_rules = max(order.index(f"{name} rules") for name in hexstones.GAME_NAMES)
    assert all(order.index(name) > last_rules for name in names if not name.endswith(" rules"))
    by_name = {part.name: part for part in warmup.parts()}
    assert {name for name in names if by_name[name].loaded} == {
        *(f"{name} rules" for name in hexstones.GAME_NAMES), "search", "network search"}


@pytest.mark.parametrize("name", hexstones.GAME_NAMES)
def test_the_rules_of_the_game_asked_for_compile_first(name):
    plan = warmup.Plan()
    plan.prefer(name)
    assert plan.take().name == f"{name} rules"


def test_a_game_asked_for_while_the_first_parts_compile_is_next():
    plan = warmup.Plan()
    first, second = plan.take(), plan.take()
    waiting = [n for n in hexstones.GAME_NAMES if f"{n} rules" not in (first.name, second.name)]
    assert len(waiting) == 1
    plan.prefer("keil")  # already started: changes nothing
    plan.prefer(waiting[0])
    plan.done(first.name)
    assert plan.take().name == f"{waiting[0]} rules"


def test_the_progress_names_what_compiles_and_moves_while_it_does():
    clock = FakeClock()
    plan = warmup.Plan(clock=clock)
    plan.prefer("dehil")
    dehil = plan.take()
    seen = []
    for now in (0.0, 1.0, 2.0, 3.0):
        clock.now = now
        seen.append(plan.progress())
    assert all(p["compiling"] == ["Dehil rules"] and p["done"] == 0 for p in seen)
    assert [p["total"] for p in seen] == [len(warmup.parts())] * 4
    fractions = [p["fraction"] for p in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0 < fractions[-1]
    total = sum(part.cost for part in plan.parts)
    clock.now = 1000.0  # far longer than the part should take: it never looks done
    assert plan.progress()["fraction"] < dehil.cost / total
    plan.done(dehil.name)
    after = plan.progress()
    assert after["done"] == 1 and after["compiling"] == [] and after["fraction"] == round(dehil.cost / total, 3)


def test_a_part_compiling_is_judged_at_the_pace_of_the_parts_done():
    clock = FakeClock()
    plan = warmup.Plan(clock=clock)
    total = sum(part.cost for part in plan.parts)
    first = plan.take()
    clock.now = 10 * first.cost  # a machine 10 times slower than the costs say
    plan.done(first.name)
    second = plan.take()
    clock.now += 10 * second.cost / 2
    assert plan.progress()["fraction"] == pytest.approx((first.cost + second.cost / 2) / total, abs=0.002)


def test_the_playout_foretold_to_take_longest_starts_first():
    # A game's playout compiles in about the time its rules did: the longest is started
    # first, the one of a game whose rules still compile before all.
    clock = FakeClock()
    plan = warmup.Plan(clock=clock)
    games = hexstones.GAME_NAMES
    first, second = plan.take(), plan.take()
    assert (first.name, second.name) == (f"{games[0]} rules", f"{games[1]} rules")
    clock.now = 5.0
    plan.done(second.name)
    assert plan.take().name == f"{games[2]} rules"
    clock.now = 15.0
    plan.done(first.name)  # 15 s, against 5 s for the second game's rules
    assert plan.take().name == f"{games[2]} playouts"  # its rules still compile
    clock.now = 40.0
    plan.done(f"{games[2]} rules")
    assert plan.take().name == "search moves"
    assert [plan.take().name for _ in range(2)] == [f"{games[0]} playouts", f"{games[1]} playouts"]


def test_a_part_whose_process_died_starts_again():
    plan = warmup.Plan()
    first = plan.take()
    plan.give_back(first.name)
    assert plan.take().name == first.name


# -- what a worker answers while the compile-ahead lasts ---------------------------------------

@pytest.fixture
def warming_worker(monkeypatch):
    """This process as a worker of a compile-ahead: every part compiled, the rules loaded,
    not the searches (those are set per test)."""
    names = [part.name for part in warmup.parts()]
    monkeypatch.setattr(ai_pool, "_PARTS", [(part.name, part.loaded) for part in warmup.parts()])
    monkeypatch.setattr(ai_pool, "_FLAGS", [1] * len(names))
    monkeypatch.setattr(ai_pool, "_LOADED", {f"{n} rules" for n in hexstones.GAME_NAMES})
    answers = []
    monkeypatch.setattr(ai_pool, "_move_while_warming", lambda game: answers.append("plain") or "plain")
    monkeypatch.setattr(ai, "choose_move", lambda game, level: answers.append("compiled") or "compiled")
    return answers


def test_a_worker_plays_the_plain_search_until_it_has_the_search_the_level_plays(warming_worker):
    keil = ("move", "keil", {"size": 7}, ["d4"])
    net = ai.engine_for(hexstones.new_game("keil", size=7), 10) == "net"
    assert ai_pool.think(*keil, 3, None) == "plain"
    ai_pool._LOADED.add("search")
    assert ai_pool.think(*keil, 3, None) == "compiled"
    assert ai_pool.think(*keil, 10, None) == ("plain" if net else "compiled")
    ai_pool._LOADED.add("network search")
    assert ai_pool.think(*keil, 10, None) == "compiled"


def test_a_worker_answers_the_komi_pie_without_the_compiled_search(warming_worker, monkeypatch):
    def compiled(*args, **kwargs):
        raise AssertionError("the compiled search is not loaded")

    monkeypatch.setattr(ai, "propose_komi", compiled)
    monkeypatch.setattr(ai, "choose_side", compiled)
    monkeypatch.setattr(ai_pool, "WARMING_SECONDS", 0.2)
    droched = hexstones.game_class("droched").balance
    proposal = ai_pool.think("propose", "droched", {"size": 9}, [], 5, None)
    assert proposal == (droched.fair_at(9) if droched.fair_at(9) is not None else droched.default)
    keil = hexstones.game_class("keil").balance
    proposal = ai_pool.think("propose", "keil", {"size": 5}, [], 5, None)
    assert isinstance(proposal, int) and keil.minimum <= proposal <= keil.maximum
    assert ai_pool.think("choose", "keil", {"size": 5}, [], 5, 6) in ("black", "white")


def test_a_worker_waits_for_the_rules_from_the_compile_processes(warming_worker, monkeypatch):
    loads = []
    index = [name for name, _ in ai_pool._PARTS].index("dehil rules")
    ai_pool._LOADED.discard("dehil rules")
    ai_pool._FLAGS[index] = 0
    monkeypatch.setattr(ai_pool, "_load", lambda name: loads.append((name, ai_pool._FLAGS[index])))
    compiled = threading.Timer(0.3, lambda: ai_pool._FLAGS.__setitem__(index, 1))
    compiled.start()  # the compile processes finish Dehil's rules while it waits
    ai_pool._rules_for("dehil")
    compiled.join()
    assert loads == [("dehil rules", 1)]
