"""The GTP engine and the match runner, driven as real subprocesses over real pipes."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import hexstones
from hexstones.protocol.gtp import clean_line
from hexstones.protocol.match import (
    EngineFailure,
    GameOutcome,
    GTPClient,
    MatchResult,
    Openings,
    play_match,
)
from hexstones.records import read_record, read_sgf
from hexstones.session import Adjudication

ENGINE = [sys.executable, "-m", "hexstones.cli", "gtp"]
# No wall-clock budget anywhere: answers never depend on timing.
FAST = ["--iterations", "3", "--seed", "7"]
# Engines and games against the AI run the compiled search: tests/conftest.py compiles
# the kernels once per run, so these processes load them from numba's cache. (Never
# NUMBA_DISABLE_JIT: uncompiled, the core's fixed-width arithmetic is not the same.)
PLAIN_AI = dict(os.environ)
AI_TIMEOUT = 400


@pytest.fixture(scope="module")
def keil_process():
    client = GTPClient(ENGINE + ["--game", "keil", "--size", "4", "--komi", "3"] + FAST,
                       timeout=AI_TIMEOUT, env=PLAIN_AI)
    yield client
    client.close()


@pytest.fixture
def keil(keil_process):
    """One engine process for the module (start-up is the slow part), reset for each test."""
    for command in ("boardsize 4", "komi 3", "clear_board"):
        keil_process.send(command)
    return keil_process


def test_standard_commands(keil):
    assert keil.send("protocol_version") == "2"
    assert keil.send("name") == "hexstones"
    assert keil.send("version") == hexstones.__version__
    listed = keil.send("list_commands").split("\n")
    for command in ("protocol_version", "name", "version", "known_command", "list_commands", "quit",
                    "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
                    "final_score", "loadsgf", "printsgf", "gogui-rules_game_id", "gogui-rules_board",
                    "gogui-rules_legal_moves", "gogui-rules_side_to_move", "gogui-rules_final_result",
                    "kata-analyze"):
        assert command in listed
        assert keil.send(f"known_command {command}") == "true"
    assert keil.send("known_command fly") == "false"


def test_play_undo_and_rules_commands_follow_the_game(keil):
    reference = hexstones.new_game("keil", size=4, komi=3)
    assert keil.send("gogui-rules_game_id") == "keil"
    assert keil.send("gogui-rules_board_size") == "4"
    for move in ("d4", "e5", "button", "c3"):
        color = reference.to_move
        assert keil.send(f"play {color[0]} {move}") == ""
        reference.play(move)
        assert keil.send("gogui-rules_side_to_move") == reference.to_move
        assert keil.send("gogui-rules_legal_moves").split() == reference.legal_moves()
    assert keil.send("gogui-rules_board") == reference.picture()
    assert keil.send("undo") == ""
    reference.undo()
    assert keil.send("gogui-rules_legal_moves").split() == reference.legal_moves()
    assert keil.send("gogui-rules_final_result") == "unknown"
    assert reference.picture() in keil.send("showboard")


def test_genmove_plays_a_legal_move_for_the_side_to_move(keil):
    reference = hexstones.new_game("keil", size=4, komi=3)
    for _ in range(3):
        legal = reference.legal_moves()
        move = keil.send(f"genmove {reference.to_move}")
        assert move in legal
        reference.play(move)
    assert keil.send("gogui-rules_legal_moves").split() == reference.legal_moves()


@pytest.mark.parametrize("command, words", [
    ("play b zz9", "not a move"),
    ("play w d4", "black's turn"),
    ("play purple d4", "invalid color"),
    ("play b", "usage"),
    ("genmove w", "black's turn"),
    ("boardsize 99", "unacceptable size"),
    ("boardsize seven", "whole number"),
    ("komi 6.5", "whole number"),
    ("komi abc", "number"),
    ("undo", "no move"),
    ("loadsgf /nonexistent/game.sgf", "cannot read"),
    ("fly to the moon", "unknown command"),
    ("kata-analyze ownership maybe", "bad kata-analyze option"),
    ("play b resign", "not a move"),
])
def test_malformed_commands_get_error_answers_and_the_engine_carries_on(keil, command, words):
    with pytest.raises(EngineFailure) as info:
        keil.send(command)
    assert words in str(info.value)
    assert keil.send("gogui-rules_side_to_move") == "black"
    assert keil.send("play b d4") == ""  # the game was not changed


def test_raw_protocol_framing_ids_comments_and_quit():
    script = "1 name\n# a comment line\n\n2 play b d4 # trailing comment\n\t3 showboard\n4 foo\n5 quit\nname\n"
    done = subprocess.run(ENGINE + ["--size", "4"], input=script, capture_output=True, text=True,
                          timeout=AI_TIMEOUT)
    assert done.returncode == 0
    answers = done.stdout.split("\n\n")
    assert answers[0] == "=1 hexstones"
    assert answers[1] == "=2"
    assert answers[2].startswith("=3\n") and " X " in answers[2]
    assert answers[3].startswith("?4 ")
    assert answers[4] == "=5"
    assert answers[5:] == [""]  # nothing after quit


@pytest.mark.slow  # an engine process of its own
def test_an_engine_whose_controller_closes_its_output_stops_quietly():
    process = subprocess.Popen(ENGINE + ["--size", "4", "--player", "random"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    process.stdin.write("name\n")
    assert process.stdout.readline() == "= hexstones\n"
    process.stdout.close()  # the controller goes away without quit, as `| head -1` does
    process.stdin.write("showboard\nname\n")
    process.stdin.close()
    assert process.wait(timeout=AI_TIMEOUT) == 0
    assert process.stderr.read() == ""


@pytest.mark.slow  # an engine process of its own
@pytest.mark.parametrize("environment", [
    {"PYTHONIOENCODING": "utf-8:strict"},
    {"PYTHONIOENCODING": "ascii:strict", "LC_ALL": "C"},
])
def test_a_line_that_is_not_text_gets_an_error_and_the_engine_carries_on(environment):
    # Issue #20: with a strict encoding, 'name \xff\xfe' killed the reader thread and the
    # engine never answered again (the timeout guards against a hang, it measures nothing).
    script = b"1 name\n2 name \xff\xfe\n3 version\n\xc3\n4 play b d4\n5 showboard\n6 quit\n"
    done = subprocess.run(ENGINE + ["--size", "4", "--player", "random"], input=script,
                          capture_output=True, timeout=120, env={**os.environ, **environment})
    assert done.returncode == 0, done.stderr
    answers = done.stdout.decode("utf-8").split("\n\n")
    assert answers[0] == "=1 hexstones"
    assert answers[1] == "?2 the command is not UTF-8 text (byte 8 is 0xff)"
    assert answers[2] == f"=3 {hexstones.__version__}"
    assert answers[3].startswith("? the command is not UTF-8 text")
    assert answers[4] == "=4"
    assert answers[5].startswith("=5\n") and " X " in answers[5]
    assert answers[6:] == ["=6", ""]


@pytest.mark.slow  # an engine process of its own
def test_a_line_past_the_limit_is_refused_unread():
    from hexstones.protocol.gtp import MAX_LINE_BYTES

    script = b"name " + b"x" * (3 * MAX_LINE_BYTES) + b"\n1 name\n"
    done = subprocess.run(ENGINE + ["--size", "4", "--player", "random"], input=script,
                          capture_output=True, timeout=120)
    assert done.stdout.decode() == f"? the command is longer than {MAX_LINE_BYTES} bytes\n\n=1 hexstones\n\n"


@pytest.mark.parametrize("value", ["1e19", "-1e19", "9223372036854775808", "1000001"])
def test_komi_past_the_games_bound_is_a_clear_error(keil, value):
    # Issue #20: 'komi 1e19' answered '? internal error' (an OverflowError in the core).
    with pytest.raises(EngineFailure) as info:
        keil.send(f"komi {value}")
    assert "internal error" not in str(info.value) and "komi" in str(info.value)
    assert read_sgf(keil.send("printsgf")).options["komi"] == 3  # nothing changed


def test_boardsize_komi_and_final_score(keil):
    assert keil.send("boardsize 3") == ""
    assert keil.send("gogui-rules_board_size") == "3"
    assert keil.send("komi 2") == ""
    keil.send("play b button")
    keil.send("play w pass")
    keil.send("play b pass")
    reference = hexstones.new_game("keil", size=3, komi=2)
    for move in ("button", "pass", "pass"):
        reference.play(move)
    score = reference.score()
    expected = ("B+" if score["black"] > score["white"] else "W+") + f"{abs(score['black'] - score['white']):g}"
    assert keil.send("final_score") == expected
    assert keil.send("gogui-rules_final_result") == reference.result()["winner"]
    assert keil.send("gogui-rules_legal_moves") == ""
    with pytest.raises(EngineFailure, match="over"):
        keil.send("genmove w")
    keil.send("clear_board")
    assert keil.send("gogui-rules_final_result") == "unknown"


def test_printsgf_and_loadsgf_round_trip(keil, tmp_path):
    for command in ("play b d4", "play w e5", "play b c3"):
        keil.send(command)
    text = keil.send("printsgf")
    game = read_sgf(text)
    assert game.moves == ["d4", "e5", "c3"] and game.options == {"size": 4, "komi": 3}
    path = tmp_path / "game.sgf"
    assert keil.send(f"printsgf {path}") == ""
    assert read_sgf(path.read_text()).moves == game.moves
    keil.send("clear_board")
    assert keil.send(f"loadsgf {path} 3") == ""  # the position before move 3
    assert keil.send("gogui-rules_side_to_move") == "black"
    keil.send("play b a1")
    assert read_sgf(keil.send("printsgf")).moves == ["d4", "e5", "a1"]
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;HG[keil]SZ[4];B[d4];W[d4])")
    with pytest.raises(EngineFailure, match="move 2"):
        keil.send(f"loadsgf {bad}")


def test_droched_engine_speaks_release_and_prison_komi():
    client = GTPClient(ENGINE + ["--game", "droched", "--size", "3", "--prison", "1"] + FAST,
                       timeout=AI_TIMEOUT, env=PLAIN_AI)
    try:
        assert client.send("gogui-rules_game_id") == "droched"
        assert "release" not in client.send("gogui-rules_legal_moves").split()
        client.send("play b b2")
        # The prison holds a black stone: White may release it.
        assert "release" in client.send("gogui-rules_legal_moves").split()
        client.send("play w release")
        with pytest.raises(EngineFailure, match="release"):
            client.send("play b release")  # no white stone in the prison: nothing to release
        # komi sets Droched's prison; with none, White's release could not have happened.
        with pytest.raises(EngineFailure, match="not legal with that setting"):
            client.send("komi 0")
        assert client.send("komi 2") == ""
        game = read_sgf(client.send("printsgf"))
        assert game.options["prison"] == 2 and game.moves == ["b2", "release"]
        with pytest.raises(EngineFailure, match="no score"):
            client.send("final_score")
    finally:
        client.close()


@pytest.mark.slow  # an engine process of its own
def test_kata_analyze_streams_until_the_next_command():
    process = subprocess.Popen(ENGINE + ["--game", "dehil", "--size", "3", "--seed", "1"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                               env=PLAIN_AI)
    try:
        process.stdin.write("play b b2\nkata-analyze 10 ownership true\n")
        process.stdin.flush()
        assert process.stdout.readline() == "=\n"
        assert process.stdout.readline() == "\n"  # the answer to play
        assert process.stdout.readline() == "=\n"  # analysis begins
        infos = [process.stdout.readline() for _ in range(2)]
        board = hexstones.get_board(3)
        legal = hexstones.new_game("dehil", size=3)
        legal.play("b2")
        for line in infos:
            assert line.startswith("info move ")
            head, ownership = line.split(" ownership ")
            values = [float(v) for v in ownership.split()]
            assert len(values) == board.num_points and all(-1 <= v <= 1 for v in values)
            for entry in head.split("info move ")[1:]:
                words = entry.split()
                assert words[0] in legal.legal_moves()
                assert words[1] == "visits" and int(words[2]) >= 1
                assert words[3] == "winrate" and 0 <= float(words[4]) <= 1
                assert "pv" in words
        process.stdin.write("name\n")
        process.stdin.flush()
        line = process.stdout.readline()
        while line.startswith("info"):
            line = process.stdout.readline()
        assert line == "\n"  # the analysis answer ends at the next command
        assert process.stdout.readline() == "= hexstones\n"
    finally:
        process.stdin.write("quit\n")
        process.stdin.close()
        process.wait(timeout=60)


def test_clean_line_drops_control_characters_and_comments():
    assert clean_line("\x01pl\x7fay\tb d4 # note\r\n") == "play b d4"


def test_bad_command_line_exits_2(capsys):
    from hexstones.cli import main

    for argv in (["--size", "99"], ["--game", "go"], ["--game", "droched", "--komi", "3"],
                 ["--level", "11"], ["--iterations", "0"], ["--player", "oracle"],
                 ["--resign", "0.5"], ["--resign", "0.1:0"], ["--resign", "x"],
                 ["--player", "random", "--resign", "0.1"]):
        try:
            code = main(["gtp"] + argv)  # returns before reading stdin: the arguments are bad
        except SystemExit as exc:
            code = exc.code
        assert code == 2, argv
        assert capsys.readouterr().err.strip()


@pytest.mark.slow  # an engine process of its own
def test_an_engine_with_resign_gives_up_a_lost_game_and_changes_nothing():
    """``--resign BELOW:TURNS``: genmove answers ``resign`` once its search has given it
    less than BELOW on TURNS of its genmoves in a row; the position stays as it was, the
    winning side never resigns, and a new game forgets the earlier win chances."""
    # Keil side 3 with 20 points of komi: Black cannot win, White cannot lose.
    args = ["--game", "keil", "--size", "3", "--komi", "20", "--iterations", "200", "--seed", "3"]
    client = GTPClient(ENGINE + args + ["--resign", "0.05:2"], timeout=AI_TIMEOUT, env=PLAIN_AI)
    try:
        first = client.send("genmove black")  # the first turn below the threshold: a move
        assert first not in ("resign", "pass")
        second = client.send("genmove white")
        assert second != "resign"
        board = client.send("showboard")
        assert client.send("genmove black") == "resign"  # the second turn in a row
        assert client.send("showboard") == board  # nothing was played
        assert client.send("gogui-rules_side_to_move") == "black"
        client.send("clear_board")
        assert client.send("genmove black") != "resign"  # counting starts again
        for _ in range(3):
            assert client.send("genmove white") != "resign"
            assert client.send("genmove black") == "resign"
            client.send("clear_board")
            client.send("genmove black")
    finally:
        client.close()
    # Without --resign the same engine plays on.
    plain = GTPClient(ENGINE + args, timeout=AI_TIMEOUT, env=PLAIN_AI)
    try:
        for _ in range(2):
            assert plain.send("genmove black") != "resign"
            plain.send("genmove white")
    finally:
        plain.close()


@pytest.mark.slow  # a match: engine processes
def test_a_resigning_engine_loses_the_match_game_by_resignation():
    engine = ENGINE + ["--game", "keil", "--size", "3", "--komi", "20", "--iterations", "200"]
    resigning = " ".join(engine + ["--seed", "1", "--resign", "0.05:1"])
    match = play_match((resigning, " ".join(engine + ["--seed", "2"])), game="keil", games=2,
                       options={"size": 3, "komi": 20}, timeout=AI_TIMEOUT)
    # Game 1: the resigning engine has Black, which cannot win, and gives up at once; game
    # 2: it has White, which cannot lose, and the game ends by the rules.
    first, second = match.games
    assert first.reason == "resignation" and first.winner == "white" and first.moves == []
    assert first.result == "W+R"
    assert second.reason == "rules" and second.winner == "white"
    assert match.wins(0) == 1 and match.wins(1) == 1


# -- adjudication ------------------------------------------------------------------------

# An engine like ours that does not know kata-analyze (a real subprocess, as any engine).
NO_ANALYSIS = """
import sys
import threading
import time
from hexstones.protocol.gtp import Engine, serve
engine = Engine("keil", size=3, komi=20, iterations=200, seed=5)
del engine.commands["kata-analyze"]
sys.exit(serve(engine, sys.stdin, sys.stdout))
"""


# A scripted engine that imports nothing (it answers at once however busy the machine is)
# and holds each genmove until the test releases it: move N waits for the file "go-N".
HELD_MOVES = """
import os, sys, time
folder = sys.argv[1]
moves = 0
for line in sys.stdin:
    command = line.split()
    if not command:
        continue
    if command[0] == "genmove":
        moves += 1
        while not os.path.exists(os.path.join(folder, f"go-{moves}")):
            time.sleep(0.01)
        print("= a1\\n", flush=True)
    elif command[0] == "quit":
        print("=\\n", flush=True)
        break
    else:
        print("= held\\n", flush=True)
"""


@pytest.mark.slow  # engine processes of its own
def test_an_engines_first_move_may_take_longer_than_the_limit_and_later_ones_may_not(tmp_path):
    """The referee's limits against an engine whose delays the test sets: its first move is
    let go only after the limit has passed (answered: a first move may compile), its second
    never (refused at the limit); nothing here rests on how fast the machine is."""
    script = tmp_path / "engine.py"
    script.write_text(HELD_MOVES)
    limit = 2.0
    client = GTPClient([sys.executable, str(script), str(tmp_path)], timeout=limit)
    try:
        assert client.send("name") == "held"  # other commands keep the limit
        release = threading.Timer(limit + 0.5, (tmp_path / "go-1").touch)
        started = time.monotonic()
        release.start()
        assert client.send("genmove black") == "a1"  # the first move: past the limit, allowed
        assert time.monotonic() - started > limit
        with pytest.raises(EngineFailure, match=f"no answer within {limit:g} s"):
            client.send("genmove white")
    finally:
        (tmp_path / "go-2").touch()
        client.close()


@pytest.mark.slow  # an engine process of its own
def test_the_analysis_asked_for_adjudication_gives_the_win_chance_and_leaves_the_engine_ready():
    args = ["--game", "keil", "--size", "3", "--komi", "20", "--iterations", "200", "--seed", "3"]
    client = GTPClient(ENGINE + args, timeout=AI_TIMEOUT, env=PLAIN_AI)
    try:
        black = client.win_rate(0.1)  # Black, to move, cannot win
        assert black is not None and black < 0.05
        assert client.send("name")  # the stream is over: answers come in order again
        client.send("play black b2")
        white = client.win_rate(0.1)
        assert white is not None and white > 0.95
        assert client.send("gogui-rules_side_to_move") == "white"
        for color, move in (("white", "button"), ("black", "pass"), ("white", "pass")):
            client.send(f"play {color} {move}")
        assert client.send("gogui-rules_final_result") == "white"  # over: nothing to analyse
        assert client.win_rate(0.1) is None
        assert client.send("name")
    finally:
        client.close()


@pytest.mark.slow  # matches: engine processes
def test_both_engines_giving_up_on_a_side_end_the_game_by_adjudication(tmp_path):
    engine = ENGINE + ["--game", "keil", "--size", "3", "--komi", "20", "--iterations", "200"]
    one, two = " ".join(engine + ["--seed", "1"]), " ".join(engine + ["--seed", "2"])
    rule = Adjudication(0.05, turns=2, seconds=0.1)
    match = play_match((one, two), game="keil", games=2, options={"size": 3, "komi": 20},
                       timeout=AI_TIMEOUT, adjudicate=rule)
    assert match.adjudicated_by == rule and match.analysts == (True, True)
    for outcome in match.games:
        # Black cannot win: after two moves of each engine, both agree, and White wins.
        assert outcome.reason == "adjudication" and outcome.winner == "white"
        assert outcome.result == "W+" and len(outcome.moves) == 4
        assert "by adjudication" in outcome.text
        record = read_sgf(outcome.sgf)
        assert record.moves == outcome.moves and "RE[W+]" in outcome.sgf
    assert match.wins(0) == match.wins(1) == 1
    assert match.to_json()["adjudication"] == {"below": 0.05, "turns": 2, "seconds": 0.1}
    assert "adjudicated: 2" in match.summary()
    # An engine that cannot be asked: no adjudication, the game is played out.
    script = tmp_path / "engine.py"
    script.write_text(NO_ANALYSIS)
    match = play_match((one, f"{sys.executable} {script}"), game="keil", games=1,
                       options={"size": 3, "komi": 20}, timeout=AI_TIMEOUT, adjudicate=rule)
    assert match.adjudicated_by is None and match.analysts == (True, False)
    (outcome,) = match.games
    assert outcome.reason == "rules" and outcome.winner == "white"
    done = subprocess.run(
        [sys.executable, "-m", "hexstones.cli", "match", one, f"{sys.executable} {script}",
         "--size", "3", "--komi", "20", "--games", "1", "--adjudicate", "0.05:2"],
        capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "engine 2 does not know kata-analyze" in done.stderr


def test_adjudication_needs_both_engines_to_agree_for_their_last_turns():
    rule = Adjudication(0.1, turns=2)
    # (the colour that moved, its engine's win chance for the other side, now to move)
    white_wins = [("black", 0.95), ("white", 0.05), ("black", 0.92), ("white", 0.08)]
    assert rule.loser(white_wins) == "black"
    assert rule.loser(white_wins[1:]) is None  # only one turn of Black's engine
    assert rule.loser(white_wins[:3] + [("white", 0.2)]) is None  # White's engine not sure
    assert rule.loser(white_wins[:3] + [("white", None)]) is None  # no opinion: no verdict
    black_wins = [("white", 0.99), ("black", 0.0), ("white", 0.9), ("black", 0.1)]
    assert rule.loser(black_wins) == "white"
    assert rule.loser(white_wins + black_wins) == "white"  # only the last turns count
    assert rule.loser([("black", 0.95), ("white", 0.05)]) is None
    assert Adjudication(0.1, turns=1).loser([("black", 0.95), ("white", 0.05)]) == "black"
    from hexstones.protocol.match import _root_win_rate

    line = ("info move a1 visits 30 winrate 0.1000 order 0 pv a1 b2 "
            "info move c3 visits 10 winrate 0.5000 order 1 pv c3")
    assert _root_win_rate(line) == pytest.approx(0.2)  # (30 * 0.1 + 10 * 0.5) / 40
    for nothing in ("", "info move a1 visits 0 winrate 0.3 order 0", "info move a1 visits 3 winrate x",
                    "info move a1 visits 3 winrate 1.5"):
        assert _root_win_rate(nothing) is None
    for bad in (Adjudication(0.0), Adjudication(0.5), Adjudication(0.1, turns=0),
                Adjudication(0.1, seconds=0), Adjudication(0.1, turns=True)):
        with pytest.raises(ValueError):
            bad.check()


# -- the match runner ----------------------------------------------------------------


@pytest.mark.slow  # a match: engine processes
def test_match_between_two_of_our_engines(tmp_path):
    engine = ENGINE + ["--game", "keil", "--size", "3"]
    ai = " ".join(engine + ["--iterations", "2", "--seed", "1"])
    randomly = " ".join(engine + ["--player", "random", "--seed", "2"])
    match = play_match((ai, randomly), game="keil", games=2, options={"size": 3}, timeout=AI_TIMEOUT)
    assert len(match.games) == 2
    assert [g.black for g in match.games] == [0, 1]  # colours alternate
    for outcome in match.games:
        assert outcome.reason == "rules"
        record = read_record(outcome.sgf)
        assert record.game.is_over and record.game.moves == outcome.moves
        assert record.game.result()["winner"] == outcome.winner
    assert match.wins(0) + match.wins(1) == 2


@pytest.mark.slow  # a match command: a referee and engine processes
def test_match_command_reports_and_writes_records(tmp_path):
    engine = " ".join(ENGINE + ["--game", "dehil", "--size", "3", "--player", "random"])
    done = subprocess.run(
        [sys.executable, "-m", "hexstones.cli", "match", engine + " --seed 3", engine + " --seed 4",
         "--game", "dehil", "--size", "3", "--games", "2", "--json", "--sgf-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sum(report["wins"]) + report["unfinished"] == 2
    progress = done.stderr.splitlines()
    assert [line.split(":")[0] for line in progress] == ["game 1", "game 2"]
    assert progress[-1].endswith(f"; engine 1 has {report['score']['points']:g} of 2")
    records = sorted(pathlib.Path(tmp_path).glob("*.sgf"))
    assert len(records) == 2
    for path, game in zip(records, report["games"]):
        assert read_sgf(path.read_text()).moves == game["moves"]


def test_a_match_reports_the_first_engines_score_with_its_interval_and_elo():
    def match_of(winners: str) -> MatchResult:
        match = MatchResult(("engine 1", "engine 2"))
        for k, who in enumerate(winners):  # "1", "2" or "-" (the move limit)
            black = k % 2
            winner = None if who == "-" else ("black" if int(who) - 1 == black else "white")
            match.games.append(GameOutcome(k + 1, black, 1 - black, winner, "rules", ""))
        return match

    eight = match_of("1111111122")
    assert eight.score() == {"points": 8, "games": 10, "share": 0.8, "ci95": [0.49, 0.943],
                             "elo": 241, "elo_ci95": [-7, 488]}
    assert eight.summary().splitlines()[-1] == (
        "engine 1 scored 8 of 10 (80%, 95% interval 49-94%): Elo difference +241 (-7 to +488)")
    sweep = match_of("1111")  # no finite Elo for a clean sweep, only its interval's lower end
    assert sweep.score()["elo"] is None and sweep.score()["elo_ci95"] == [7, None]
    assert sweep.summary().splitlines()[-1].endswith("Elo difference unbounded (+7 to +inf)")
    assert match_of("1-").score()["points"] == 1.5  # a game at the move limit: half each
    assert json.loads(json.dumps(sweep.to_json()))["score"]["elo"] is None  # JSON, no Infinity
    assert MatchResult(("a", "b")).score() is None


@pytest.mark.slow  # match commands: a referee and engine processes
def test_match_command_continues_a_stopped_match_from_a_later_game(tmp_path):
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    done = subprocess.run(
        [sys.executable, "-m", "hexstones.cli", "match", engine, engine, "--size", "3",
         "--games", "4", "--first-game", "3", "--json", "--sgf-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(g["number"], g["black"]) for g in report["games"]] == [(3, "engine 1"), (4, "engine 2")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-003.sgf", "game-004.sgf"]
    bad = subprocess.run(
        [sys.executable, "-m", "hexstones.cli", "match", engine, engine, "--size", "3",
         "--games", "4", "--first-game", "5"], capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert bad.returncode == 2 and "first game must be a whole number from 1 to 4" in bad.stderr


@pytest.mark.slow  # a match command: a referee and engine processes
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_match_command_reports_the_games_that_ended(signum):
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    referee = subprocess.Popen(
        [sys.executable, "-m", "hexstones.cli", "match", engine, engine, "--size", "3",
         "--games", "100000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    progress = [referee.stderr.readline()]  # wait for a game to end (a random game: moments)
    assert progress[0].startswith("game 1: "), progress
    referee.send_signal(signum)
    out, err = referee.communicate(timeout=AI_TIMEOUT)
    progress += err.splitlines()
    assert referee.returncode == 130
    report = json.loads(out)
    played = [g["number"] for g in report["games"]]
    assert report["stopped"] and played == list(range(1, len(played) + 1))
    # Each ended game's progress line (the last one's may have been cut off by the signal).
    shown = [int(line.split(":")[0].split()[1]) for line in progress if line.startswith("game ")]
    assert shown in (played, played[:-1])
    assert progress[-1] == (f"hexstones match: stopped after game {len(played)} of 100000; "
                            f"--first-game {len(played) + 1} plays the rest")
    assert report["score"]["games"] == len(played)


@pytest.mark.slow  # match commands: a referee and engine processes
def test_a_killed_match_keeps_its_ended_games_and_resume_plays_the_rest(tmp_path):
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    kept = tmp_path / "match.json"
    match = [sys.executable, "-m", "hexstones.cli", "match", engine + " --seed 1",
             engine + " --seed 2", "--size", "3", "--games", "6", "--out", str(kept)]
    referee = subprocess.Popen(match, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = referee.stderr.readline()
    assert first.startswith("game 1: "), first
    referee.kill()  # no chance to report: only the kept file survives
    referee.wait(timeout=AI_TIMEOUT)
    before = json.loads(kept.read_text())
    ended = [g["number"] for g in before["games"]]
    assert 1 <= len(ended) < 6 and ended == list(range(1, len(ended) + 1))
    assert (before["game"], before["options"], before["scheduled_games"]) == ("keil", {"size": 3}, 6)

    # Without --resume an existing record is refused, and left as it was.
    again = subprocess.run(match, capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert again.returncode == 2 and "--resume continues the match kept there" in again.stderr
    assert json.loads(kept.read_text()) == before

    done = subprocess.run(match + ["--resume", "--json"], capture_output=True, text=True,
                          timeout=AI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [g["number"] for g in report["games"]] == [1, 2, 3, 4, 5, 6]
    assert [g["black"] for g in report["games"]] == ["engine 1", "engine 2"] * 3
    assert report["games"][:len(ended)] == before["games"]  # the kept games, untouched
    assert report["score"]["games"] == 6
    assert sum(report["wins"]) + report["unfinished"] == 6
    progress = [line for line in done.stderr.splitlines() if line.startswith("game ")]
    assert [int(line.split(":")[0].split()[1]) for line in progress] == list(range(len(ended) + 1, 7))
    assert progress[-1].endswith(f"; engine 1 has {report['score']['points']:g} of 6")
    assert json.loads(kept.read_text()) == report

    # A match kept whole: --resume reports it and plays nothing.
    over = subprocess.run(match + ["--resume"], capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert over.returncode == 0 and "has all its 6 games" in over.stderr
    assert "engine 1 scored" in over.stdout


@pytest.mark.slow  # a match command: a referee and engine processes
def test_on_a_terminal_the_match_shows_each_move_of_the_game_under_way():
    import pty

    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    terminal, their_end = pty.openpty()
    referee = subprocess.Popen(
        [sys.executable, "-m", "hexstones.cli", "match", engine + " --seed 1", engine + " --seed 2",
         "--size", "3", "--games", "1", "--json"],
        stdout=subprocess.PIPE, stderr=their_end, text=True)
    os.close(their_end)
    out, _ = referee.communicate(timeout=AI_TIMEOUT)
    shown = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the referee has gone: the terminal's other end is closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(terminal)
    assert referee.returncode == 0
    moves = json.loads(out)["games"][0]["moves"]
    lines = shown.decode().replace("\r\n", "\n").split("\r\x1b[K")
    assert lines[0] == ""
    # One redrawn line after each move, then the ended game's line over the last of them.
    assert lines[1:-1] == [f"game 1, move {k}: {move}" for k, move in enumerate(moves, 1)]
    assert lines[-1].startswith("game 1: ") and lines[-1].endswith("engine 1 has "
                                                                   f"{json.loads(out)['score']['points']:g} of 1\n")


@pytest.mark.slow  # match commands: a referee and engine processes
def test_resume_refuses_a_record_of_another_match_and_changes_nothing(tmp_path):
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    kept = tmp_path / "match.json"
    base = [sys.executable, "-m", "hexstones.cli", "match", engine, engine, "--size", "3"]
    done = subprocess.run(base + ["--games", "2", "--first-game", "2", "--out", str(kept)],
                          capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    before = kept.read_text()
    for change, why in (
            (["--games", "3", "--komi", "5"], "its options are {'size': 3}, not {'size': 3, 'komi': 5}"),
            (["--games", "4"], "its number of games is 2, not 4"),
            (["--games", "2", "--first-game", "2"], "leave out --first-game")):
        refused = subprocess.run(base + change + ["--out", str(kept), "--resume"],
                                 capture_output=True, text=True, timeout=AI_TIMEOUT)
        assert refused.returncode == 2 and why in refused.stderr, (change, refused.stderr)
        assert kept.read_text() == before
    other = [sys.executable, "-m", "hexstones.cli", "match", engine + " --seed 9", engine,
             "--size", "3", "--games", "2", "--out", str(kept), "--resume"]
    refused = subprocess.run(other, capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert refused.returncode == 2 and "its engine 1 is" in refused.stderr
    for text in ("{", "[]", '{"engines": []}'):
        broken = tmp_path / "broken.json"
        broken.write_text(text)
        refused = subprocess.run(base + ["--games", "2", "--out", str(broken), "--resume"],
                                 capture_output=True, text=True, timeout=AI_TIMEOUT)
        assert refused.returncode == 2 and "cannot continue the match in" in refused.stderr
        assert broken.read_text() == text
    nowhere = subprocess.run(base + ["--out", str(tmp_path / "no" / "match.json")],
                             capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert nowhere.returncode == 2 and "no folder" in nowhere.stderr
    alone = subprocess.run(base + ["--resume"], capture_output=True, text=True, timeout=AI_TIMEOUT)
    assert alone.returncode == 2 and "name the file" in alone.stderr


@pytest.mark.slow  # matches: engine processes
def test_openings_start_each_pair_of_games_from_its_own_random_placements(tmp_path):
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    openings = Openings(3, seed=5)
    match = play_match((engine + " --seed 1", engine + " --seed 2"), game="keil", games=4,
                       options={"size": 3}, timeout=AI_TIMEOUT, openings=openings)
    drawn = [openings.opening(hexstones.new_game("keil", size=3), n) for n in (1, 2, 3, 4)]
    assert drawn[0] == drawn[1] and drawn[2] == drawn[3] and drawn[0] != drawn[2]
    assert openings.opening(hexstones.new_game("keil", size=3), 1) == drawn[0]  # same seed, same
    assert Openings(3, seed=6).opening(hexstones.new_game("keil", size=3), 1) != drawn[0]
    for outcome, opening in zip(match.games, drawn):
        assert outcome.opening == 3 and outcome.moves[:3] == opening
        assert all(hexstones.new_game("keil", size=3).board.is_point(m) for m in opening)
        # Both engines were told the opening: they played on from it, legally, to the end.
        assert outcome.reason == "rules" and len(outcome.moves) > 3
        assert read_record(outcome.sgf).game.moves == outcome.moves
    assert [g.black for g in match.games] == [0, 1, 0, 1]  # each engine Black once a pair
    assert "openings: 3 random placements" in match.summary()
    assert "the first 3 the opening" in match.summary()
    back = MatchResult.from_json(json.loads(json.dumps(match.to_json())))
    assert back.openings == openings and [g.opening for g in back.games] == [3] * 4
    # A match continued from its record must draw the same openings.
    with pytest.raises(ValueError, match="its openings are"):
        play_match((engine + " --seed 1", engine + " --seed 2"), game="keil", games=4,
                   options={"size": 3}, earlier=back, openings=Openings(3, seed=6))
    # An opening stops short of a move that would end the game (a long one on a small board).
    for name in ("keil", "dehil", "droched"):
        game = hexstones.new_game(name, size=3)
        long = Openings(60, seed=1).opening(game, 1)
        for move in long:
            assert game.board.is_point(move)
            game.play(move)
        assert not game.is_over and game.moves == long
    for bad in (Openings(0), Openings(2, seed=-1), Openings(True), Openings(2, seed=1.5)):
        with pytest.raises(ValueError):
            bad.check()
    refused = subprocess.run([sys.executable, "-m", "hexstones.cli", "match", engine, engine,
                              "--size", "3", "--openings", "2:x"], capture_output=True, text=True,
                             timeout=AI_TIMEOUT)
    assert refused.returncode == 2 and "--openings takes MOVES or MOVES:SEED" in refused.stderr


def test_a_match_record_reads_back_as_it_was_written():
    match = MatchResult(("candidate", "baseline"), ("a --x", "b"), ("A 1", "B 2"),
                        adjudicated_by=Adjudication(0.05, 3, 0.2), analysts=(True, True),
                        game="dehil", options={"size": 5, "komi": 1}, scheduled=4)
    match.games = [GameOutcome(1, 0, 1, "black", "rules", "B+2.5", ["a1", "pass"], text="B wins"),
                   GameOutcome(2, 1, 0, None, "move limit", "", ["b2"])]
    back = MatchResult.from_json(json.loads(json.dumps(match.to_json())))
    assert back == match
    with pytest.raises(ValueError, match="not a game of a match record"):
        MatchResult.from_json({**match.to_json(), "games": [{**match.to_json()["games"][0],
                                                             "winner": "red"}]})
    with pytest.raises(ValueError, match="numbered"):
        MatchResult.from_json({**match.to_json(), "games": match.to_json()["games"][::-1]})


@pytest.mark.slow  # a match: engine processes
def test_an_engine_that_breaks_the_protocol_forfeits():
    # `cat` echoes commands back: not GTP answers, so it loses every game by forfeit.
    good = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    match = play_match((good, "cat"), game="keil", games=2, options={"size": 3}, timeout=30)
    assert match.wins(0) == 2
    assert all(g.reason.startswith("forfeit") and g.result.endswith("+F") for g in match.games)


@pytest.mark.slow  # a match: engine processes
def test_a_match_continued_from_a_later_game_keeps_the_colours_alternating():
    engine = " ".join(ENGINE + ["--game", "keil", "--size", "3", "--player", "random"])
    match = play_match((engine + " --seed 1", engine + " --seed 2"), game="keil", games=4,
                       options={"size": 3}, timeout=AI_TIMEOUT, first_game=2)
    assert [g.number for g in match.games] == [2, 3, 4]
    assert [g.black for g in match.games] == [1, 0, 1]  # engine 1 took black in game 1
    for bad in (0, 5, True):
        with pytest.raises(ValueError, match="first game"):
            play_match((engine, engine), game="keil", games=4, options={"size": 3}, first_game=bad)


@pytest.mark.slow  # engine processes
def test_match_refuses_an_engine_for_another_game():
    keil = " ".join(ENGINE + ["--game", "keil", "--size", "3"])
    dehil = " ".join(ENGINE + ["--game", "dehil", "--size", "3"])
    with pytest.raises(ValueError, match="plays keil, not dehil"):
        play_match((dehil, keil), game="dehil", games=1, options={"size": 3}, timeout=60)


# -- fuzzing: every line gets exactly one answer, and the engine never stops -------------

from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)

COMMAND_WORDS = ["protocol_version", "name", "known_command", "list_commands", "boardsize",
                 "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score",
                 "loadsgf", "printsgf", "gogui-rules_legal_moves", "gogui-rules_side_to_move",
                 "gogui-rules_final_result", "gogui-rules_board", "nonsense", "17"]
ARGUMENT_WORDS = ["b", "w", "black", "white", "x", "a1", "b2", "c3", "d4", "e5", "pass", "button",
                  "release", "resign", "3", "4", "-2", "6.5", "1e309", "nan", "", "#", "\t", "\x00"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(COMMAND_WORDS),
                          st.lists(st.sampled_from(ARGUMENT_WORDS), max_size=3)), max_size=25),
       st.sampled_from(["keil", "dehil", "droched"]))
def test_fuzz_command_lines_each_get_one_answer(commands, game):
    import io

    from hexstones.protocol.gtp import Engine, Server, clean_line

    lines = [" ".join([name] + args) for name, args in commands]
    # printsgf/loadsgf with an argument would touch files: keep them bare.
    lines = [line.split()[0] if line.split()[0] in ("printsgf", "loadsgf") else line for line in lines]
    out = io.StringIO()
    engine = Engine(game, size=3, seed=1, player="random")
    assert Server(engine, io.StringIO("\n".join(lines) + "\n"), out).serve() == 0
    expected = sum(1 for line in lines if clean_line(line))
    answers = [a for a in out.getvalue().split("\n\n") if a]
    assert len(answers) == expected
    assert all(a[0] in "=?" for a in answers)
    assert "internal error" not in out.getvalue()
