"""A check shared by the commands that keep their games in a records file (JSON lines)."""

from __future__ import annotations

import json
import pathlib


def continue_a_killed_run(run, whole: pathlib.Path, records: pathlib.Path, capsys) -> list[str]:
    """``whole`` holds the games of a complete run; ``records`` is made to hold its first two
    and a torn third line, as a run killed while writing it leaves the file. ``run(records)``
    runs the same command on it again (exit status 0), which must read the two, drop the
    torn line and add each missing game once, the same games (by seed) as the complete run.
    Returns the file's lines."""
    games = [json.loads(line) for line in whole.read_text().splitlines()]
    records.write_text("".join(line + "\n" for line in whole.read_text().splitlines()[:2])
                       + '{"game": "keil", "opt')
    capsys.readouterr()
    assert run(records) == 0
    assert "2 games read" in capsys.readouterr().err
    lines = records.read_text().splitlines()
    resumed = [json.loads(line) for line in lines]  # the torn line is gone
    assert len(resumed) == len(games)  # no game played twice, none lost
    assert {r["seed"]: r["moves"] for r in resumed} == {r["seed"]: r["moves"] for r in games}
    return lines
