"""Hostile input to the SGF reader and the GTP engine (issue #20): whatever arrives, the
reader raises SGFError and nothing else, and the engine answers every line and carries on.

Sizes are bounded so that the module runs in the normal suite; the heavier cases are
marked ``slow``.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import hexstones
from hexstones.protocol.gtp import MAX_LINE_BYTES, Engine, Server, clean_line
from hexstones.records import SGFError, read_record, write_sgf
from hexstones.records.sgf import longest_game, longest_record

ENGINE = [sys.executable, "-m", "hexstones.cli", "gtp", "--player", "random", "--seed", "1"]


def _played(name: str, size: int, moves: int, seed: int) -> hexstones.Game:
    game, rng = hexstones.new_game(name, size=size), random.Random(seed)
    while not game.is_over and len(game.moves) < moves:
        game.play(rng.choice(game.legal_moves()))
    return game


# Records on large boards: mutations land among hundreds of nodes and long point names.
LARGE_RECORDS = [write_sgf(_played(name, size, 300, seed=size), players=("A", "B"), comments={0: "c", 5: "d"})
                 for name, size in (("keil", 13), ("dehil", 11), ("droched", 9))]
PIECES = list("();[]\\ \n\tBW01a9z") + [
    "pass", "button", "release", "KM[2]", "KM[1000001]", "KM[-1e19]", "SZ[13]", "SZ[14]", "SZ[\u0665]",
    "PR[1000000]", "PR[9223372036854775807]", "AB[b2]", "HA[1]", "PL[W]", "GM[903]", "HG[dehil]",
    "RE[B+R]", "RE[W+0.5]", ";B[m13]", ";W[]", "(;", ")(", "\ufeff", "\x00", "\udcff", "m25",
]


def _mutate(data, text: str) -> str:
    for _ in range(data.draw(st.integers(1, 6))):
        pos = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["delete", "insert", "replace", "repeat"]))
        piece = data.draw(st.sampled_from(PIECES))
        if kind == "delete":
            text = text[:pos] + text[pos + data.draw(st.integers(1, 50)):]
        elif kind == "insert":
            text = text[:pos] + piece + text[pos:]
        elif kind == "replace":
            text = text[:pos] + piece + text[pos + len(piece):]
        else:  # a stretch repeated: floods of nodes, values and variations
            end = pos + data.draw(st.integers(1, 20))
            text = text[:pos] + text[pos:end] * data.draw(st.integers(2, 400)) + text[end:]
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_large_records_raise_only_sgf_error_and_what_is_read_reads_back(data):
    text = _mutate(data, data.draw(st.sampled_from(LARGE_RECORDS)))
    try:
        record = read_record(text)
    except SGFError:
        return
    again = read_record(record.to_sgf())
    assert again.game.moves == record.game.moves and again.game.options == record.game.options


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["keil", "dehil", "droched"]), st.integers(3, 7),  # side 7: records of 16 MB
       st.sampled_from([";", "(;)", ";B[a1]", ";C[x]", ";XA[][]", "(;W[b2])", " "]),
       st.sampled_from(["", "C[x]", "XA[]", "AB[a1]"]))
def test_a_flood_past_the_bound_of_any_setup_is_refused_by_its_length(name, size, flood, root):
    game = hexstones.new_game(name, size=size)
    head = f"(;HG[{name}]SZ[{size}]{root if root != 'AB[a1]' or name == 'droched' else ''};"
    repeat = longest_record(game) // len(flood) + 1
    with pytest.raises(SGFError, match="characters"):
        read_record(head + flood * repeat + ")")
    assert longest_game(game) < longest_record(game)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["[]", "C[x]", "XA[]", "\\", " ", "A"]))
def test_a_flood_inside_the_root_node_is_refused(flood):
    with pytest.raises(SGFError):
        read_record("(;HG[keil]SZ[5]" + flood * ((1 << 20) // len(flood) + 1) + ")")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_decoded_any_way_raise_only_sgf_error(blob):
    for text in (blob.decode("utf-8", "replace"), blob.decode("latin-1"), "(;HG[keil]SZ[3]" + blob.decode("latin-1")):
        try:
            read_record(text)
        except SGFError:
            pass


def test_bytes_and_other_types_are_refused_as_sgf_errors():
    for value in (b"(;HG[keil])", None, 7, ["(;HG[keil])"]):
        with pytest.raises(SGFError, match="is text"):
            read_record(value)


# -- GTP: byte streams ---------------------------------------------------------------

GTP_WORDS = [b"name", b"version", b"play", b"genmove", b"komi", b"boardsize", b"undo", b"showboard",
             b"final_score", b"known_command", b"list_commands", b"clear_board", b"b", b"w", b"a1",
             b"c3", b"pass", b"release", b"button", b"1e19", b"-1e19", b"nan", b"inf", b"\xd9\xa5",
             b"9223372036854775808", b"6.5", b"17", b"#", b"\t", b"\x00", b"\x7f", b"\xff\xfe",
             b"\xc3", b"\xed\xa0\x80", b"\r", b"x" * 200]


def _lines(commands: list[list[bytes]]) -> list[bytes]:
    # loadsgf/printsgf with an argument would touch files: keep them out.
    return [b" ".join(words) for words in commands]


def _expected_answers(lines: list[bytes]) -> int:
    count = 0
    for line in lines:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            count += 1  # refused as not text
            continue
        count += bool(clean_line(text))
    return count


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(GTP_WORDS), min_size=1, max_size=4), max_size=30),
       st.sampled_from(["keil", "dehil", "droched"]))
def test_byte_streams_get_one_answer_a_line_in_process(commands, game):
    lines = _lines(commands)
    out = io.BytesIO()
    server = Server(Engine(game, size=3, seed=1, player="random"), io.BytesIO(b"\n".join(lines) + b"\n"), out)
    assert server.serve() == 0
    answers = [a for a in out.getvalue().decode("utf-8").split("\n\n") if a]
    assert len(answers) == _expected_answers(lines)
    assert all(a[0] in "=?" for a in answers)
    assert "internal error" not in out.getvalue().decode("utf-8")


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(st.lists(st.lists(st.sampled_from(GTP_WORDS), min_size=1, max_size=4), max_size=20),
       st.sampled_from(["utf-8:strict", "ascii:strict", "latin-1"]))
def test_byte_streams_get_one_answer_a_line_from_a_real_engine(commands, encoding):
    lines = _lines(commands) + [b"final_line_marker"]
    done = subprocess.run(ENGINE + ["--size", "3"], input=b"\n".join(lines) + b"\n", capture_output=True,
                          timeout=120, env={**__import__("os").environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8")
    answers = [a for a in out.split("\n\n") if a]
    assert len(answers) == _expected_answers(lines)
    assert answers[-1] == "? unknown command 'final_line_marker'"
    assert "internal error" not in out


def test_a_flood_without_newline_is_refused_and_the_next_line_answered():
    out = io.BytesIO()
    stream = io.BytesIO(b"\xff" * (5 * MAX_LINE_BYTES) + b"\nname\n" + b"x" * (MAX_LINE_BYTES + 1))
    assert Server(Engine("keil", size=3, player="random"), stream, out).serve() == 0
    assert out.getvalue().decode() == (f"? the command is longer than {MAX_LINE_BYTES} bytes\n\n= hexstones\n\n"
                                       f"? the command is longer than {MAX_LINE_BYTES} bytes\n\n")


@pytest.mark.parametrize("command", [b"komi 1e19", b"komi -1e400", b"komi 9223372036854775808",
                                     b"komi \xd9\xa5", b"boardsize \xd9\xa5", b"play b " + b"a" * 5000],
                         ids=["1e19", "-1e400", "2**63", "arabic-komi", "arabic-size", "long-move"])
def test_overflowing_or_foreign_numbers_get_a_clear_error(command):
    out = io.BytesIO()
    engine = Engine("keil", size=3, komi=2, player="random")
    Server(engine, io.BytesIO(command + b"\n"), out).serve()
    answer = out.getvalue().decode()
    assert answer.startswith("? ") and "internal error" not in answer and len(answer) < 310
    assert engine.game.options == {"size": 3, "komi": 2}  # nothing changed
