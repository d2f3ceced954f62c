"""Replay the recorded games of ../shared/conformance (copied into tests/conformance):
every legal move set and every result must match exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hexstones

HERE = Path(__file__).parent / "conformance"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance"


def records():
    for path in sorted(HERE.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                yield pytest.param(json.loads(line), id=f"{path.stem}-{number}")


@pytest.mark.parametrize("record", list(records()))
def test_replay_matches_the_record(record):
    game = hexstones.new_game(record["game"], size=record["size"], **record["options"])
    for i, move in enumerate(record["moves"]):
        assert sorted(game.legal_moves()) == record["legal"][i], f"legal moves before move {i} ({move})"
        game.play(move)
    assert sorted(game.legal_moves()) == record["legal"][len(record["moves"])], "legal moves at the end"
    assert game.is_over == ("result" in record)
    assert game.result() == record.get("result")


def test_every_game_has_records():
    assert {p.stem for p in HERE.glob("*.jsonl")} == set(hexstones.GAME_NAMES)


@pytest.mark.skipif(not SHARED.is_dir(), reason="outside the workplace: no ../shared to compare with")
def test_copy_is_in_step_with_shared():
    shared = {p.name: p.read_bytes() for p in SHARED.glob("*.jsonl")}
    ours = {p.name: p.read_bytes() for p in HERE.glob("*.jsonl")}
    assert ours == shared, "tests/conformance differs from ../shared/conformance: copy it again"
