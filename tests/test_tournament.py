"""Tournaments, Elo, the komi study and their commands (small boards, tiny budgets)."""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from hexstones.cli import main
from hexstones.games import game_class, new_game
from hexstones.session import Resign
from hexstones.studies import komi as ks, tournament as t
from hexstones.studies.elo import fit_elo, wilson_interval
from records_file import continue_a_killed_run

# -- Elo and intervals ----------------------------------------------------------------


def test_wilson_interval_contains_rate_and_narrows_with_more_games():
    low, high = wilson_interval(7, 10)
    assert low < 0.7 < high
    low2, high2 = wilson_interval(70, 100)
    assert low < low2 < 0.7 < high2 < high
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_elo_recovers_the_rating_gap_of_simulated_players():
    # Player b is 200 Elo stronger than a: expected score 0.76. Simulate many games.
    rng = random.Random(3)
    p = 1 / (1 + 10 ** (-200 / 400))
    b_wins = sum(rng.random() < p for _ in range(2000))
    ratings = fit_elo(["a", "b"], {("b", "a"): b_wins, ("a", "b"): 2000 - b_wins})
    assert ratings["a"] == {"elo": 0.0, "ci95": 0.0}
    assert abs(ratings["b"]["elo"] - 200) < ratings["b"]["ci95"]
    # Delta method: the interval is 1.96 * (400 / ln 10) / sqrt(n p (1 - p)).
    rate = b_wins / 2000
    expected = 1.96 * 400 / math.log(10) / math.sqrt(2000 * rate * (1 - rate))
    assert ratings["b"]["ci95"] == pytest.approx(expected, rel=0.05)


def test_elo_is_finite_for_a_clean_sweep_and_orders_a_ladder():
    wins = {("b", "a"): 10, ("c", "b"): 10, ("c", "a"): 10}
    ratings = fit_elo(["a", "b", "c"], wins)
    assert 0 < ratings["b"]["elo"] < ratings["c"]["elo"] < math.inf
    assert all(math.isfinite(r["ci95"]) for r in ratings.values())


def test_elo_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown player"):
        fit_elo(["a", "b"], {("a", "z"): 1})
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(["a", "b"], {}, anchor="q")
    with pytest.raises(ValueError, match="distinct"):
        fit_elo(["a", "a"], {})


# -- players and schedules ----------------------------------------------------------


def test_parse_player_specs():
    assert t.parse_player("level:3") == t.PlayerSpec("level:3", "level", level=3)
    assert t.parse_player("UCT:500").iterations == 500
    assert t.parse_player("mcts:2s").seconds == 2.0
    assert t.parse_player("uct:0.25s").seconds == 0.25
    assert t.parse_player("random").kind == "random"
    for bad in ("level:11", "level:0", "uct", "mcts:0", "alpha:3", "", "uct:-5",
                "uct:1.5", "mcts:0s", "mcts:0.0s"):
        with pytest.raises(ValueError):
            t.parse_player(bad)


def test_schedule_is_a_balanced_round_robin():
    tasks = t.schedule(["random", "uct:5", "level:1"], ["keil", "droched"], games_per_pair=4,
                       options={"keil": {"size": 3}, "droched": {"size": 3}})
    assert len(tasks) == 2 * 3 * 4
    for name in ("keil", "droched"):
        for a, b in (("random", "uct:5"), ("random", "level:1"), ("uct:5", "level:1")):
            meet = [x for x in tasks if x["game"] == name and {x["black"], x["white"]} == {a, b}]
            assert len(meet) == 4
            assert sum(x["black"] == a for x in meet) == 2  # colours alternate
    assert len({x["seed"] for x in tasks}) == len(tasks)


def test_ladder_schedule_meets_only_neighbours():
    tasks = t.schedule(["level:1", "level:2", "level:3"], ["keil"], games_per_pair=2, ladder=True)
    pairs = {frozenset((x["black"], x["white"])) for x in tasks}
    assert pairs == {frozenset(("level:1", "level:2")), frozenset(("level:2", "level:3"))}
    assert len(tasks) == 4


def test_schedule_rejects_bad_input_before_playing():
    with pytest.raises(ValueError, match="once"):
        t.schedule(["random", "random"], ["keil"], games_per_pair=1)
    with pytest.raises(ValueError, match="two players"):
        t.schedule(["random"], ["keil"], games_per_pair=1)
    with pytest.raises(ValueError, match="unknown game"):
        t.schedule(["random", "uct:3"], ["chess"], games_per_pair=1)
    with pytest.raises(ValueError, match="size"):
        t.schedule(["random", "uct:3"], ["keil"], games_per_pair=1, options={"keil": {"size": 99}})
    with pytest.raises(ValueError, match="games per pair"):
        t.schedule(["random", "uct:3"], ["keil"], games_per_pair=0)


def test_play_game_gives_a_finished_replayable_record():
    import hexstones

    for name in ("keil", "dehil", "droched"):
        rec = t.play_game({"game": name, "options": {"size": 3}, "black": "random",
                           "white": "random", "seed": 11})
        replay = hexstones.new_game(name, size=3)
        for move in rec["moves"]:
            replay.play(move)
        if not rec["adjudicated"]:
            assert replay.is_over or not replay.legal_moves()
            if replay.result() is not None:
                assert replay.result()["winner"] == rec["winner"]
        assert rec["winner"] in ("black", "white")
        # Same seed, same game.
        again = t.play_game({"game": name, "options": {"size": 3}, "black": "random",
                             "white": "random", "seed": 11})
        assert again["moves"] == rec["moves"]


def test_serial_and_process_pool_backends_agree():
    tasks = t.schedule(["random", "uct:4"], ["keil", "droched"], games_per_pair=2, seed=5,
                       options={"keil": {"size": 3}, "droched": {"size": 3}})
    seen = []
    serial = t.run_tasks(tasks, backend="serial", on_result=seen.append)
    pooled = t.run_tasks(tasks, backend="local", workers=2)
    assert [r["moves"] for r in serial] == [r["moves"] for r in pooled]
    assert len(seen) == len(tasks)
    with pytest.raises(ValueError, match="backend"):
        t.run_tasks(tasks, backend="cloud")
    with pytest.raises(ValueError, match="workers"):
        t.run_tasks(tasks, workers=0)


@pytest.mark.slow  # starts a local Ray instance
def test_ray_backend_on_a_local_instance():
    pytest.importorskip("ray")
    tasks = t.schedule(["random", "uct:3"], ["keil"], games_per_pair=2, seed=2,
                       options={"keil": {"size": 3}})
    serial = t.run_tasks(tasks, backend="serial")
    on_ray = t.run_tasks(tasks, backend="ray", workers=2)
    assert [r["moves"] for r in on_ray] == [r["moves"] for r in serial]


def _record(game, black, white, winner):
    return {"game": game, "black": black, "white": white, "winner": winner}


def test_standings_count_wins_by_player_not_colour():
    recs = [_record("keil", "a", "b", "black"), _record("keil", "b", "a", "black"),
            _record("keil", "b", "a", "white"), _record("dehil", "a", "b", "white")]
    s = t.standings(recs, ["a", "b"])
    rows = {r["player"]: r for r in s["overall"]["players"]}
    assert (rows["a"]["wins"], rows["b"]["wins"]) == (2, 2)
    keil = {r["player"]: r for r in s["by_game"]["keil"]["players"]}
    assert (keil["a"]["wins"], keil["b"]["wins"]) == (2, 1)
    assert s["by_game"]["keil"]["black_wins"] == 2
    pair = s["by_game"]["keil"]["pairs"][0]
    assert (pair["games"], pair["a_wins"]) == (3, 2)
    table = t.format_table(s)
    assert "keil: 3 games" in table and "dehil: 1 games" in table


def test_a_droched_game_stopped_by_the_move_limit_is_a_draw(monkeypatch):
    # Droched has no score to decide an unfinished game: half a point each.
    monkeypatch.setattr(t, "MAX_MOVES_PER_POINT", 0)
    rec = t.play_game({"game": "droched", "options": {"size": 3}, "black": "random",
                       "white": "random", "seed": 3})
    assert rec["adjudicated"] and rec["winner"] is None and rec["moves"] == []
    keil = t.play_game({"game": "keil", "options": {"size": 3}, "black": "random",
                        "white": "random", "seed": 3})
    assert keil["adjudicated"] and keil["winner"] == "white"  # komi 6 on an empty board
    s = t.standings([dict(rec, black="a", white="b"), _record("droched", "a", "b", "black")],
                    ["a", "b"])
    rows = {r["player"]: r for r in s["overall"]["players"]}
    assert (rows["a"]["wins"], rows["b"]["wins"]) == (1.5, 0.5)
    assert s["overall"]["black_wins"] == 1.5
    assert s["overall"]["pairs"][0]["a_wins"] == 1.5
    assert "Black won 1.5" in t.format_table(s)
    out = io.StringIO()
    bar = t.Progress(1, ["a", "b"], stream=out)
    bar.update(dict(rec, black="a", white="b"))
    assert out.getvalue().strip().endswith("a 0.5/1  b 0.5/1")
    study = ks.summarise("droched", 3, [dict(rec, komi=0), dict(rec, komi=0, winner="black")])
    assert study["rows"][0]["black_wins"] == 1.5


def _resigning_game(**fields):
    """A Keil side 3 game of two small searches that give up below a win chance of 0.45
    on two turns in a row (seed 7: White does, on its second turn)."""
    task = {"game": "keil", "options": {"size": 3, "komi": 0}, "black": "mcts:40",
            "white": "mcts:40", "seed": 7, "resign": [0.45, 2], **fields}
    return t.play_game(task)


def test_a_player_resigns_where_the_played_out_game_says_it_would_have():
    resigned = _resigning_game()
    played_out = _resigning_game(play_out=True)
    loser = resigned["resigned"]
    winner = "white" if loser == "black" else "black"
    assert resigned["winner"] == winner and "score" not in resigned
    assert not resigned["adjudicated"] and "would_resign" not in resigned
    # The same game up to the resignation, then played on to the rules' end.
    ply = len(resigned["moves"])
    assert played_out["would_resign"] == {"color": loser, "ply": ply}
    assert played_out["moves"][:ply] == resigned["moves"]
    assert len(played_out["moves"]) > ply and "resigned" not in played_out
    replay = new_game("keil", size=3, komi=0)
    for move in played_out["moves"]:
        replay.play(move)
    assert replay.is_over and replay.result()["winner"] == played_out["winner"]
    # Nobody resigns before the turns run out, or while the opening is sampled.
    assert len(_resigning_game(resign=[0.45, 50])["moves"]) >= len(played_out["moves"])
    assert len(_resigning_game(sample_plies=ply + 1).get("moves")) > ply


def test_a_droched_game_stopped_by_the_move_limit_goes_to_who_would_not_have_resigned(monkeypatch):
    monkeypatch.setattr(t, "MAX_MOVES_PER_POINT", 2)  # 38 moves on side 3
    task = {"game": "droched", "options": {"size": 3, "prison": 4}, "black": "mcts:30",
            "white": "mcts:30", "seed": 4, "resign": [0.45, 1], "play_out": True}
    rec = t.play_game(task)
    assert rec["adjudicated"] and len(rec["moves"]) == 38
    assert rec["winner"] == ("white" if rec["would_resign"]["color"] == "black" else "black")
    task.pop("resign")
    assert t.play_game(task)["winner"] is None  # without resigning: a draw, as before


def test_resignation_is_refused_for_players_without_a_win_chance_and_bad_values():
    good = Resign(0.05)
    with pytest.raises(ValueError, match="mcts:, uct: or net:"):
        t.schedule(["level:1", "mcts:10"], ["keil"], games_per_pair=1, resign=good)
    with pytest.raises(ValueError, match="mcts:, uct: or net:"):
        ks.study_tasks("keil", 3, [0], games_per_komi=1, player="random", resign=good)
    for bad, match in ((Resign(0.5), "between 0 and 0.5"), (Resign(0), "between 0 and 0.5"),
                       (Resign(0.1, 0), "turns below"), (Resign(0.1, 2, -1), "play-outs")):
        with pytest.raises(ValueError, match=match):
            ks.study_tasks("keil", 3, [0], games_per_komi=1, player="mcts:5", resign=bad)


def test_a_study_with_resignation_plays_every_nth_game_out_and_counts_wrong_resignations(
        tmp_path, capsys):
    tasks = ks.study_tasks("keil", 3, [0, 4], games_per_komi=4, player="mcts:40",
                           resign=Resign(0.45, 2, 2))
    by_komi = {k: [x.get("play_out", False) for x in tasks if x["komi"] == k] for k in (0, 4)}
    assert by_komi == {0: [True, False, True, False], 4: [True, False, True, False]}
    records = t.run_tasks(tasks, backend="serial")
    check = ks.summarise("keil", 3, records)["resignations"]
    out = [r for r in records if r.get("play_out")]
    checked = [r for r in out if "would_resign" in r and not r["adjudicated"]]
    assert check["games"] == 8 and check["played_out"] == 4
    assert check["resigned"] == sum("resigned" in r for r in records) > 0
    assert check["checked"] == len(checked) > 0
    assert check["wrong"] == sum(r["winner"] == r["would_resign"]["color"] for r in checked)
    assert ks.summarise("keil", 3, [dict(r, resign=None) for r in records])["resignations"] is None
    # The command: the table says it, and games with another threshold are another player's.
    path = tmp_path / "games.jsonl"

    def study(resign):
        return main(["komi", "keil", "--size", "3", "--komi", "0", "--games", "2",
                     "--player", "mcts:40", "--resign", resign, "--resign-check", "2",
                     "--workers", "1", "--no-progress", "--records", str(path)])

    assert study("0.45:2") == 0
    assert "resignations (win chance below 0.45 on 2 turns in a row)" in capsys.readouterr().out
    assert [json.loads(line)["resign"] for line in path.read_text().splitlines()] == [[0.45, 2]] * 2
    assert study("0.4") == 0
    assert main(["komi", "keil", "--size", "3", "--report", "--records", str(path)]) == 2
    assert "--resign 0.4:3" in capsys.readouterr().err
    before = path.read_text()
    for bad, says in (("abc", "--resign takes BELOW"), ("0.1:x", "--resign takes BELOW"),
                      ("0.7", "between 0 and 0.5")):
        assert study(bad) == 2
        assert says in capsys.readouterr().err
    assert path.read_text() == before


def test_progress_bar_shows_games_done_and_leaders():
    out = io.StringIO()
    bar = t.Progress(4, ["a", "b"], stream=out)
    for rec in [_record("keil", "a", "b", "black")] * 3 + [_record("keil", "a", "b", "white")]:
        bar.update(rec)
    text = out.getvalue()
    assert "1/4 games" in text and "4/4 games" in text
    assert text.strip().splitlines()[-1].endswith("a 3/4  b 1/4")


# -- the komi study --------------------------------------------------------------------


def test_komi_study_tasks_and_summary():
    tasks = ks.study_tasks("droched", 3, [0, 1], games_per_komi=3, player="random")
    # played in turns across the komi values, each game with a seed of its own
    assert [x["options"] for x in tasks[:2]] == [{"size": 3, "prison": 0}, {"size": 3, "prison": 1}]
    assert [x["komi"] for x in tasks] == [0, 1, 0, 1, 0, 1]
    assert len({x["seed"] for x in tasks}) == 6
    winners = {0: ["black"] * 3, 1: ["black", "white", "white"]}
    recs = [dict(x, winner=winners[x["komi"]].pop()) for x in tasks]
    summary = ks.summarise("droched", 3, recs)
    assert [r["black_wins"] for r in summary["rows"]] == [3, 1]
    assert summary["fair_komi"] == 1  # 33% is nearer 50% than 100%
    low, high = summary["rows"][1]["ci95"]
    assert low < 1 / 3 < high
    with pytest.raises(ValueError):
        ks.study_tasks("keil", 3, [0], games_per_komi=0, player="random")
    with pytest.raises(ValueError):
        ks.study_tasks("droched", 3, [-1], games_per_komi=1, player="random")


def test_komi_study_fits_a_logistic_curve_and_places_its_crossing():
    import math

    # Black's wins at each komi as a logistic curve crossing 50% at 4.5 would give them.
    komis, black = [], []
    for komi in range(0, 10):
        share = 1 / (1 + math.exp(0.4 * (komi - 4.5)))
        wins = round(400 * share)
        komis += [komi] * 400
        black += [1] * wins + [0] * (400 - wins)
    fit = ks.logistic_fit(komis, black)
    assert abs(fit["crossing"] - 4.5) < 0.05 and fit["ci95"][0] < 4.5 < fit["ci95"][1]
    assert abs(fit["slope"] + 0.4) < 0.02
    assert fit["ci95"][1] - fit["ci95"][0] < 0.5  # 4 000 games place it closely
    # The same games seen from the other side of the board: the crossing mirrors.
    mirrored = ks.logistic_fit([9 - k for k in komis], black)
    assert abs(mirrored["crossing"] - 4.5) < 0.05 and mirrored["slope"] > 0
    # No crossing to place: one komi value, or outcomes separated by komi (no maximum).
    assert ks.logistic_fit([3] * 10, [1, 0] * 5) is None
    assert ks.logistic_fit([0, 0, 1, 1, 2, 2], [1, 1, 1, 0, 0, 0]) is None
    records = [{"komi": k, "winner": "black" if b else "white", "black": "random"}
               for k, b in zip(komis, black)]
    table = ks.format_table(ks.summarise("keil", 5, records))
    assert "logistic fit over the 4000 games: 50% at 4.50" in table
    assert fit["resolved"] and mirrored["resolved"] is False  # rising: no crossing of a balance
    # A win rate that komi does not move (games decided by whole groups): no crossing placed.
    flat = [k for k in (-1, 0, 1) for _ in range(100)]
    wins = [int(i % 2 == 0) for i in range(300)]
    wins[:20] = [0] * 20  # a little lower at komi -1 than elsewhere: a rising slope, weak
    fit = ks.logistic_fit(flat, wins)
    assert fit is not None and not fit["resolved"] and fit["slope_ci95"][0] < 0 < fit["slope_ci95"][1]
    records = [{"komi": k, "winner": "black" if b else "white", "black": "random"}
               for k, b in zip(flat, wins)]
    table = ks.format_table(ks.summarise("keil", 7, records))
    assert "no crossing, Black's win rate is not seen to fall with the komi for White" in table


def test_komi_study_reads_the_fair_komi_from_the_margins_before_komi():
    import numpy as np

    rng = np.random.default_rng(4)
    # Black's margins on the board (half points: no ties), spread wide as in Keil 7's games.
    board = np.round(rng.normal(-6.0, 30.0, 400)) + 0.5
    records = []
    for margin in board:
        komi = int(rng.integers(-2, 3))
        black, white = 50.0 + margin, 50.0 + komi  # White's score holds the komi
        records.append({"komi": komi, "black": "net:1", "winner": "black" if black > white else "white",
                        "score": {"black": black, "white": white}})
    assert [ks.board_margin(r) for r in records] == list(board)
    found = ks.margin_estimate("keil", records)
    assert found["games"] == 400 and found["median"] == float(np.median(board))
    low, high = found["ci95"]
    assert low < found["median"] < high and high - low < 12  # the median of 400 games
    assert abs(found["median"] + 6) < high - low
    # At the median half the games are Black's: those whose margin exceeds it.
    assert (board > found["median"]).mean() <= 0.5 <= (board >= found["median"]).mean()
    assert found["within_10"] == round(float(np.mean(np.abs(board - found["median"]) <= 10)), 3)
    # Fewer games give a wider interval; games without a result do not count.
    few = ks.margin_estimate("keil", records[:40] + [dict(records[0], winner=None, score=None)])
    assert few["games"] == 40 and few["ci95"][1] - few["ci95"][0] > high - low
    assert ks.margin_estimate("keil", records[:9]) is None
    # Droched's balance is no komi: nothing to read.
    assert ks.margin_estimate("droched", records) is None
    summary = ks.summarise("keil", 7, records)
    assert summary["margins"] == found
    assert "Black's margin before komi over the 400 finished games: median" in ks.format_table(summary)


def test_komi_plot_is_valid_svg_with_a_point_per_komi():
    rows = [{"komi": k, "games": 4, "black_wins": w, "black_win_rate": w / 4,
             "ci95": list(wilson_interval(w, 4))} for k, w in ((0, 4), (2, 2), (4, 1))]
    summary = {"game": "keil", "size": 3, "balance": "komi", "rows": rows}
    root = ET.fromstring(ks.plot(summary))
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    assert len(circles) == 3
    ys = [float(c.get("cy")) for c in circles]
    assert ys[0] < ys[1] < ys[2]  # higher win rate is drawn higher


# -- the commands -----------------------------------------------------------------------


def test_tournament_command_prints_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "t.json"
    rc = main(["tournament", "random", "uct:3", "--game", "keil", "--size", "3", "--games", "2",
               "--workers", "1", "--json", str(out)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "keil: 2 games" in captured.out
    assert "2/2 games" in captured.err
    data = json.loads(out.read_text())
    assert len(data["games"]) == 2
    assert {r["player"] for r in data["standings"]["overall"]["players"]} == {"random", "uct:3"}


def test_tournament_command_plays_at_the_given_balance(tmp_path, capsys):
    out = tmp_path / "t.json"
    rc = main(["tournament", "random", "uct:3", "--game", "keil", "--game", "droched",
               "--size", "3", "--komi", "2", "--games", "2", "--workers", "1", "--no-progress",
               "--json", str(out)])
    assert rc == 0
    games = json.loads(out.read_text())["games"]
    assert {g["game"]: g["options"] for g in games} == {
        "keil": {"size": 3, "komi": 2}, "droched": {"size": 3, "prison": 2}}
    for record in games:  # each game was played under its recorded options
        replay = new_game(record["game"], **record["options"])
        for move in record["moves"]:
            replay.play(move)
        if record["adjudicated"]:  # stopped at the move limit, decided by the score
            assert not replay.is_over
        else:
            assert replay.result()["winner"] == record["winner"]


@pytest.mark.slow  # tournaments of searches
def test_tournament_command_plays_each_game_at_its_fair_balance(tmp_path, capsys):
    out = tmp_path / "t.json"
    rc = main(["tournament", "random", "uct:3", "--game", "dehil", "--game", "droched",
               "--size", "7", "--komi", "fair", "--games", "1", "--workers", "1",
               "--no-progress", "--json", str(out)])
    assert rc == 0
    games = json.loads(out.read_text())["games"]
    assert {g["game"]: g["options"] for g in games} == {
        "dehil": {"size": 7, "komi": game_class("dehil").balance.fair_at(7)},
        "droched": {"size": 7, "prison": game_class("droched").balance.fair_at(7)}}
    # Where no study placed a fair value, nothing is played.
    rc = main(["tournament", "random", "uct:3", "--game", "keil", "--komi", "fair",
               "--json", str(tmp_path / "none.json")])
    assert rc == 2
    assert "no fair komi is on record for Keil side 7" in capsys.readouterr().err
    assert not (tmp_path / "none.json").exists()


def test_tournament_command_refuses_a_bad_balance_before_playing(tmp_path, capsys):
    out = tmp_path / "t.json"
    rc = main(["tournament", "random", "uct:3", "--game", "droched", "--size", "3",
               "--komi=-1", "--json", str(out)])
    assert rc == 2
    assert "prison" in capsys.readouterr().err
    assert not out.exists()


COMMANDS_OF_100_GAMES = {
    "tournament": ["tournament", "random", "uct:0.05s", "--game", "keil", "--size", "3",
                   "--games", "100"],
    "komi": ["komi", "keil", "--size", "3", "--komi", "0:1", "--games", "50",
             "--player", "uct:0.05s"],
}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow  # process pools in a subprocess: 25-60 s each on a loaded machine
@pytest.mark.parametrize("command, workers", [("tournament", "1"), ("tournament", "2"),
                                              ("komi", "2")])
def test_an_interrupted_study_reports_and_saves_the_games_it_finished(tmp_path, command,
                                                                      workers):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) after the first
    games: the command stops its workers, prints its table for the finished games and
    writes them as JSON, marked as interrupted, with exit status 130."""
    out = tmp_path / "t.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "hexstones.cli", *COMMANDS_OF_100_GAMES[command],
         "--workers", workers, "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        # As a terminal's command has it: a suite run in the background of a shell
        # without job control inherits SIGINT ignored, and Python then ignores Ctrl-C.
        preexec_fn=_default_sigint)
    try:
        seen = []
        for line in process.stderr:  # the progress bar, a line per update off a terminal
            seen.append(line)
            if re.search(r"\] [1-9]\d*/100 games", line):
                break
        else:
            pytest.fail(f"no game finished: {''.join(seen)}")
        os.killpg(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    finished = int(re.search(r"interrupted after (\d+) of 100 games", stderr).group(1))
    assert 1 <= finished < 100
    data = json.loads(out.read_text())
    assert data["interrupted"] == {"games_finished": finished, "games_scheduled": 100}
    if command == "komi":
        assert "fair komi:" in stdout
        assert sum(row["games"] for row in data["rows"]) == finished
        return
    assert f"keil: {finished} games" in stdout
    assert len(data["games"]) == finished
    for record in data["games"]:  # whole games only, each as it was played
        replay = new_game(record["game"], **record["options"])
        for move in record["moves"]:
            replay.play(move)
        assert replay.is_over != record["adjudicated"]


def test_a_tournament_keeps_each_game_in_its_records_file_and_a_rerun_plays_the_rest(tmp_path,
                                                                                     capsys):
    base = ["tournament", "random", "uct:3", "mcts:3", "--game", "keil", "--size", "3",
            "--games", "2", "--workers", "1", "--no-progress", "--seed", "6", "--records"]
    whole = tmp_path / "whole.jsonl"
    assert main([*base, str(whole)]) == 0
    games = [json.loads(line) for line in whole.read_text().splitlines()]
    assert len(games) == 6 and len({r["seed"] for r in games}) == 6
    # A tournament stopped after two games, killed while writing the third.
    records, js = tmp_path / "games.jsonl", tmp_path / "t.json"
    lines = continue_a_killed_run(lambda path: main([*base, str(path), "--json", str(js)]),
                                  whole, records, capsys)
    data = json.loads(js.read_text())
    assert len(data["games"]) == 6 and "interrupted" not in data
    assert data["standings"] == t.standings(games, ["random", "uct:3", "mcts:3"])
    # Run again: every game is there, nothing is played or written.
    assert main([*base, str(records)]) == 0
    assert "6 games read" in capsys.readouterr().err
    assert records.read_text().splitlines() == lines
    # Another tournament (another seed) counts none of them, and adds its own.
    assert main([*base[:-2], "7", "--records", str(records)]) == 0
    assert "games read" not in capsys.readouterr().err
    assert len(records.read_text().splitlines()) == 12
    # A file that is not a records file is refused, and left as it was.
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n{}\n")
    assert main([*base, str(broken)]) == 2
    assert "is not a game record of hexstones tournament" in capsys.readouterr().err
    assert broken.read_text() == "not json\n{}\n"


def test_tournament_command_rejects_bad_players(capsys):
    assert main(["tournament", "random", "level:12", "--game", "keil"]) == 2
    assert "level" in capsys.readouterr().err


def test_komi_command_writes_table_and_plot(tmp_path, capsys):
    svg, js = tmp_path / "k.svg", tmp_path / "k.json"
    rc = main(["komi", "droched", "--size", "3", "--komi", "0:1", "--games", "2",
               "--player", "random", "--workers", "1", "--no-progress",
               "--plot", str(svg), "--json", str(js)])
    assert rc == 0
    assert "fair komi:" in capsys.readouterr().out
    data = json.loads(js.read_text())
    assert [r["komi"] for r in data["rows"]] == [0, 1]
    assert sum(r["games"] for r in data["rows"]) == 4
    ET.fromstring(svg.read_text())
    with pytest.raises(SystemExit):
        main(["komi", "keil", "--komi", "x:y"])


def test_a_tournament_can_sample_its_opening_plies(tmp_path, capsys):
    # net:N draws no random numbers: without sampled plies every game of a pairing with the
    # same colours is the same game; with them, the seeds vary the openings.
    from hexstones.cli import main

    plain = t.schedule(["net:8", "net:9"], ["keil"], games_per_pair=4, options={"keil": {"size": 3}})
    sampled = t.schedule(["net:8", "net:9"], ["keil"], games_per_pair=4, options={"keil": {"size": 3}},
                         sample_plies=2)
    assert all("sample_plies" not in task for task in plain)
    assert [t.play_game(task)["moves"] for task in plain[0::2]] == [t.play_game(plain[0])["moves"]] * 2
    games = [tuple(t.play_game(task)["moves"]) for task in sampled]
    assert games == [tuple(t.play_game(task)["moves"]) for task in sampled]  # the seed fixes them
    assert len(set(games)) > 2
    out = tmp_path / "t.json"
    assert main(["tournament", "net:8", "net:9", "--game", "keil", "--size", "3", "--games", "2",
                 "--sample-plies", "2", "--workers", "1", "--no-progress", "--json", str(out)]) == 0
    assert len(json.loads(out.read_text())["games"]) == 2
    assert main(["tournament", "level:2", "net:9", "--game", "keil", "--size", "3",
                 "--sample-plies", "2"]) == 2
    assert "not a level" in capsys.readouterr().err
    with pytest.raises(ValueError, match="whole number"):
        t.schedule(["net:8", "net:9"], ["keil"], games_per_pair=1, sample_plies=-1)


def test_a_tournament_can_let_its_players_resign(tmp_path, capsys):
    out = tmp_path / "t.json"
    argv = ["tournament", "mcts:20", "mcts:40", "--game", "keil", "--size", "3", "--komi", "0",
            "--games", "4", "--resign", "0.45:2", "--resign-check", "2", "--workers", "1",
            "--no-progress", "--json", str(out)]
    assert main(argv) == 0
    games = json.loads(out.read_text())["games"]
    assert [g["resign"] for g in games] == [[0.45, 2]] * 4
    assert [bool(g.get("play_out")) for g in games] == [True, False, True, False]
    for g in games:  # a resigned game goes to the other player; a played-out one has none
        if "resigned" in g:
            assert not g.get("play_out") and g["winner"] != g["resigned"]
        assert "resigned" not in g or "would_resign" not in g
    assert any("resigned" in g for g in games)
    assert main(["tournament", "level:1", "mcts:40", "--game", "keil", "--size", "3",
                 "--resign", "0.05"]) == 2
    assert "not a level or random" in capsys.readouterr().err


def test_two_networks_meet_through_their_weights_files(tmp_path, capsys):
    """``net:N@FILE`` plays the weights in FILE: two training runs' networks compared in
    one tournament, each game's record naming each colour's network."""
    from hexstones.ai.net import random_network

    paths = []
    for seed, name in ((1, "First.npz"), (2, "second.npz")):
        path = tmp_path / name  # capitals kept: only the player's kind is case-blind
        random_network("keil", seed=seed, channels=8, blocks=1).save(path)
        paths.append(str(path))
    one, two = (f"NET:8@{p}" for p in paths)
    parsed = t.parse_player(one)
    assert (parsed.kind, parsed.iterations, parsed.weights) == ("net", 8, paths[0])
    assert parsed.spec == f"net:8@{paths[0]}"
    assert t.parse_player(f"net:0.5s@{paths[1]}").seconds == 0.5
    prints = [t.weights_network(p).fingerprint for p in paths]
    assert prints[0] != prints[1]
    out = tmp_path / "two.json"
    assert main(["tournament", one, two, "--game", "keil", "--size", "3", "--games", "2",
                 "--backend", "serial", "--sample-plies", "2", "--json", str(out)]) == 0
    games = json.loads(out.read_text())["games"]
    assert len(games) == 2
    for record in games:
        black, white = record["black"], record["white"]
        expected = {c: prints[paths.index(spec.partition("@")[2])]
                    for c, spec in (("black", black), ("white", white))}
        assert record["networks"] == expected and "network" not in record
        game = new_game("keil", size=3)
        for move in record["moves"]:
            game.play(move)
        assert game.is_over and game.result()["winner"] == record["winner"]
    # The tasks name the same weights (a records file tells one network's games from another's).
    tasks = t.schedule([one, two], ["keil"], games_per_pair=2, options={"keil": {"size": 3}},
                       sample_plies=2)
    assert [task["networks"] for task in tasks] == [g["networks"] for g in games]
    # A searched move with the file's weights is that network's, not the shipped one's.
    from hexstones.ai import puct

    game = new_game("keil", size=3)
    mine = puct.search(game, iterations=8, network=t.weights_network(paths[0]), reuse=False,
                       analysis=False)
    move, rate = t.player_turn(t.parse_player(one), game, seed=0)
    assert (move, rate) == (mine.children[0][0], mine.root_win_rate)
    # Refused before any game: a missing file, a file that is not a network's, weights
    # of another game, @ on a player that is not net:.
    (tmp_path / "junk.npz").write_text("not weights")
    droched = tmp_path / "droched.npz"
    random_network("droched", seed=1, channels=8, blocks=1).save(droched)
    for bad, says in ((f"net:8@{tmp_path / 'none.npz'}", "no weights file"),
                      (f"net:8@{tmp_path / 'junk.npz'}", "no network's weights"),
                      (f"net:8@{droched}", "droched's, not keil's"),
                      (f"mcts:8@{paths[0]}", "only a net: player")):
        capsys.readouterr()
        assert main(["tournament", bad, one, "--game", "keil", "--size", "3", "--games", "1",
                     "--backend", "serial"]) == 2, bad
        assert says in capsys.readouterr().err, bad
