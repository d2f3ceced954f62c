"""The play, render, gtp and match subcommands as a user runs them: real processes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

import hexstones
from hexstones.records import read_record, write_sgf

CLI = [sys.executable, "-m", "hexstones.cli"]
# Engines and games against the AI run the compiled search: tests/conftest.py compiles
# the kernels once per run, so these processes load them from numba's cache. (Never
# NUMBA_DISABLE_JIT: uncompiled, the core's fixed-width arithmetic is not the same.)
PLAIN_AI = {**os.environ, "NO_COLOR": "1"}
AI_TIMEOUT = 400


def hexstones_cli(*argv: str, stdin: str = "", timeout: float = 120, env=None):
    return subprocess.run(CLI + list(argv), input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize("command", ["play", "render", "gtp", "match", "serve", "show",
                                     "tournament", "komi", "bot"])
def test_every_subcommand_has_help(command):
    done = hexstones_cli(command, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: hexstones " + command)
    assert "%%" not in done.stdout  # argparse prints descriptions as written


@pytest.mark.parametrize("argv", [
    ["play"],                                        # missing game
    ["play", "go"],                                  # unknown game
    ["play", "keil", "--size", "99"],
    ["play", "keil", "--size", "x"],
    ["play", "keil", "--level", "0"],
    ["play", "keil", "--prison", "2"],
    ["play", "droched", "--komi", "2"],
    ["play", "keil", "--komi", "even"],                 # a number or 'fair'
    ["play", "keil", "--color", "both", "--pie", "propose"],
    ["render"],
    ["render", "/nonexistent/record.sgf"],
    ["render", "RECORD", "-o", "board.gif"],
    ["render", "RECORD", "--move", "99"],
    ["render", "RECORD", "--overlay", "sparkles"],
    ["gtp", "--size", "2"],
    ["match", "a"],
    ["match", "a", "b", "--games", "0"],
    ["bot", "--server", "http://127.0.0.1:1", "--token", "t"],                 # no engine after --
    ["bot", "--server", "ftp://example.org", "--token", "t", "--", "engine"],
    ["bot", "--server", "http://127.0.0.1:1", "--token", "t", "--sizes", "7-3", "--", "engine"],
    ["bot", "--server", "http://127.0.0.1:1", "--token", "t", "--games", "chess", "--", "engine"],
])
def test_bad_arguments_exit_2_with_a_short_message(argv, tmp_path, capsys):
    record = tmp_path / "record.sgf"
    record.write_text("(;HG[keil]SZ[4];B[d4])")
    argv = [str(record) if a == "RECORD" else a for a in argv]
    # In-process (the same main() the console script runs): spawning 16 processes is slow.
    code = exit_code(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    message = err.strip().splitlines()
    assert message and len(message) <= 10  # at most the usage and one line of error
    assert message[-1].startswith("hexstones")


@pytest.mark.parametrize("argv, words", [
    # Issue #20: these were tracebacks (OverflowError) or an engine that played on.
    (["play", "keil", "--komi", "99999999999999999999"], "Keil's komi (komi for White) must be from -1000000"),
    (["play", "droched", "--prison", "9223372036854775807"], "Droched's prison (black stones in the prison) must be"),
    (["gtp", "--komi", "-99999999999999999999"], "must be from -1000000 to 1000000"),
    (["match", "a", "b", "--game", "dehil", "--komi", "1000001"], "must be from -1000000 to 1000000, not 1000001"),
    (["match", "a", "b", "--adjudicate", "0.5"], "threshold is a win chance between 0 and 0.5, not 0.5"),
    (["match", "a", "b", "--adjudicate", "0.05:0"], "at least 1 turn of each engine, not 0"),
    (["match", "a", "b", "--adjudicate", "x"], "--adjudicate takes BELOW or BELOW:TURNS"),
    (["match", "a", "b", "--adjudicate", "0.05", "--adjudicate-seconds", "0"], "more than 0 and at most 60"),
    (["play", "keil", "--seconds", "inf"], "--seconds must be a positive number, not inf"),
    (["gtp", "--seconds", "nan"], "--seconds must be a positive number, not nan"),
    (["play", "droched", "--komi", "2"], "Droched has no komi: its balance is --prison"),
    (["gtp", "--game", "keil", "--prison", "2"], "Keil has no prison: its balance is --komi"),
    (["play", "keil", "--pie", "choose", "--komi", "3"], "--pie decides the balance: leave out --komi"),
    (["gtp", "--game", "keil", "--komi", "fair"], "no fair komi is on record for Keil side 7"),
    (["match", "a", "b", "--game", "droched", "--size", "4", "--prison", "fair"],
     "no fair prison is on record for Droched side 4"),
])
def test_bad_game_options_say_what_and_why_in_one_line(argv, words, capsys):
    assert exit_code(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"hexstones {argv[0]}: ") and words in err[0]


def exit_code(argv: list[str]) -> int:
    from hexstones.cli import main

    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_render_reports_a_malformed_record_with_its_place(tmp_path):
    record = tmp_path / "bad.sgf"
    record.write_text("(;HG[keil]SZ[4]\n;B[d4];W[d4])")
    done = hexstones_cli("render", str(record))
    assert done.returncode == 2
    assert "line 2" in done.stderr and "move 2" in done.stderr


# -- play --------------------------------------------------------------------------------


def test_two_people_play_with_undo_illegal_moves_and_resign(tmp_path):
    save = tmp_path / "game.sgf"
    script = "help\nd4\nd4\nzz\ne5\nundo\ne5\nlegal\nbutton\nresign\n"
    done = hexstones_cli("play", "keil", "--size", "4", "--color", "both", "--save", str(save),
                         stdin=script, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "undo" in out and "resign" in out  # the help text
    assert "illegal: d4 is occupied" in out
    assert "illegal: 'zz' is not a move" in out
    assert "took back e5" in out
    assert "\x1b[" not in out  # no colour codes when colour is off
    reference = hexstones.new_game("keil", size=4)
    for move in ("d4", "e5", "button"):
        reference.play(move)
    assert " ".join(reference.legal_moves()) not in out  # 'legal' came before button
    before_button = hexstones.new_game("keil", size=4)
    for move in ("d4", "e5"):
        before_button.play(move)
    assert " ".join(before_button.legal_moves()) in out
    assert "Black wins: White resigned" in out  # the game API's one result text
    assert before_button.picture() in out  # the board as docs/rules.md draws it
    # Every column is labelled: a-d on the bottom row, e-g along the lower-right side.
    for line, letter in (("1    . . . . e", "e"), ("2   . . . . . f", "f"), ("3  . . . . . . g", "g")):
        assert line in out, letter
    record = read_record(save.read_text())
    assert record.game.moves == ["d4", "e5", "button"]
    assert record.info["result"] == "B+R"


def test_play_at_the_fair_komi_on_record_for_the_side(tmp_path):
    save = tmp_path / "game.sgf"
    done = hexstones_cli("play", "keil", "--size", "5", "--komi", "fair", "--color", "both",
                         "--save", str(save), stdin="resign\n", env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    fair = hexstones.game_class("keil").balance.fair_at(5)
    assert fair is not None and fair != hexstones.game_class("keil").balance.default
    assert read_record(save.read_text()).game.balance_value == fair


def test_two_people_play_a_dehil_game_to_the_end():
    done = hexstones_cli("play", "dehil", "--size", "3", "--komi", "2", "--color", "both",
                         stdin="a1\npass\npass\n", env={**os.environ, "NO_COLOR": "1"})
    reference = hexstones.new_game("dehil", size=3, komi=2)
    for move in ("a1", "pass", "pass"):
        reference.play(move)
    assert done.returncode == 0
    assert f"Game over: {reference.status()}" in done.stdout


def test_play_against_the_ai_shows_its_moves_and_undo_takes_back_both():
    script = "d4\nundo\nquit\n"
    done = hexstones_cli("play", "keil", "--size", "4", "--iterations", "2", "--seed", "3",
                         stdin=script, timeout=AI_TIMEOUT, env=PLAIN_AI)
    assert done.returncode == 0, done.stderr
    match = re.search(r"AI \(white\) plays (\S+)", done.stdout)
    assert match
    reference = hexstones.new_game("keil", size=4)
    reference.play("d4")
    assert match.group(1) in reference.legal_moves()
    assert f"took back d4 {match.group(1)}" in done.stdout
    assert "move 0;" in done.stdout.split("took back")[1]  # back at the start


def test_play_board_uses_ansi_colour_only_when_asked():
    from hexstones.commands.play import picture

    game = hexstones.new_game("keil", size=3)
    game.play("c3")
    plain = picture(game, colored=False)
    assert plain == game.picture()
    coloured = picture(game, colored=True)
    assert "\x1b[" in coloured and re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


# -- render ------------------------------------------------------------------------------


def _record(tmp_path):
    game = hexstones.new_game("keil", size=4)
    for move in ("d4", "e5", "c3", "d5"):
        game.play(move)
    path = tmp_path / "game.sgf"
    path.write_text(write_sgf(game))
    return game, path


def test_render_svg_is_the_apps_drawing(tmp_path):
    from hexstones.svg import board_svg

    game, path = _record(tmp_path)
    out = tmp_path / "board.svg"
    done = hexstones_cli("render", str(path), "--move", "2", "--overlay", "territory", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text().strip() == board_svg(game, overlays=("territory",), move_number=2)
    stdout = hexstones_cli("render", str(path), "--no-coordinates")
    assert stdout.stdout.strip() == board_svg(game, coordinates=False)


@pytest.mark.slow  # starts Chromium
@pytest.mark.skipif(shutil.which("chromium") is None, reason="PNG output needs Chromium (.ci/run installs it)")
def test_render_png(tmp_path):
    _, path = _record(tmp_path)
    out = tmp_path / "board.png"
    done = hexstones_cli("render", str(path), "-o", str(out), timeout=180)
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    svg = hexstones_cli("render", str(path)).stdout
    svg_width = float(re.search(r'width="([\d.]+)"', svg).group(1))
    assert width == int(-(-svg_width // 1)) and height > 100


def test_render_png_without_a_browser_fails_clearly(tmp_path):
    _, path = _record(tmp_path)
    done = hexstones_cli("render", str(path), "-o", str(tmp_path / "x.png"),
                         env={**os.environ, "HEXSTONES_CHROMIUM": str(tmp_path / "no-such-browser")})
    assert done.returncode == 1
    assert "no-such-browser" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.png").exists()


def test_komi_pie_you_propose_and_the_ai_picks_a_colour():
    done = hexstones_cli("play", "droched", "--size", "3", "--pie", "propose", "--iterations", "5",
                         "--seed", "1", stdin="lots\n-1\n2\nquit\n", timeout=AI_TIMEOUT,
                         env=PLAIN_AI)
    assert done.returncode == 0, done.stderr
    assert "not a balance: 'lots' is not a whole number" in done.stdout
    assert "not a balance: Droched's prison" in done.stdout  # -1 stones: the game says why
    match = re.search(r"the AI takes (black|white); you play (black|white)", done.stdout)
    assert match and match.group(1) != match.group(2)
    assert "prison: 2 black, 0 white" in done.stdout


def test_komi_pie_the_ai_proposes_and_you_pick_a_colour():
    done = hexstones_cli("play", "keil", "--size", "3", "--pie", "choose", "--iterations", "5",
                         "--seed", "1", stdin="green\nwhite\nquit\n", timeout=AI_TIMEOUT,
                         env=PLAIN_AI)
    assert done.returncode == 0, done.stderr
    komi = int(re.search(r"the AI proposes (-?\d+) \(komi for White\)", done.stdout).group(1))
    assert "type black or white" in done.stdout
    assert f"komi {komi}; black to move" in done.stdout
    assert "AI (black) plays" in done.stdout  # you took white, so the AI moves first


def test_undo_never_takes_back_only_the_ais_moves():
    done = hexstones_cli("play", "keil", "--size", "3", "--color", "white", "--iterations", "2",
                         "--seed", "1", stdin="undo\nquit\n", timeout=AI_TIMEOUT,
                         env=PLAIN_AI)
    assert done.returncode == 0, done.stderr
    assert "AI (black) plays" in done.stdout
    assert "nothing of yours to undo" in done.stdout and "took back" not in done.stdout


def test_serve_keeps_its_games_in_the_data_folder_not_the_current_one(tmp_path):
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    work, data = tmp_path / "checkout", tmp_path / "data"
    work.mkdir()
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen(CLI + ["serve", "--port", str(port)], cwd=work, env=env,
                                  stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + AI_TIMEOUT
        while "playing at" not in log.read_text():
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        db = data / "hexstones" / "games.db"
        assert f"games stored in {db}" in log.read_text()
        assert db.exists() and list(work.iterdir()) == []  # nothing lands in the checkout
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.parametrize("count", ["0", "65"])
def test_serve_refuses_a_number_of_ai_processes_out_of_range(tmp_path, count):
    run = subprocess.run([sys.executable, "-m", "hexstones.cli", "serve", "--db", str(tmp_path / "g.db"),
                          "--ai-processes", count], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip() == f"hexstones serve: --ai-processes must be from 1 to 64, not {count}"
    assert not (tmp_path / "g.db").exists()  # refused before the database is touched
