"""The value head's fair komi (studies/komi_net.py, ``hexstones komi --from-net``) and the
self-play study's records file (``hexstones komi --records``)."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from hexstones import new_game
from hexstones.ai import puct
from hexstones.ai.net import Network, geometry_of, load_network, random_network
from hexstones.cli import main
from hexstones.games import game_class
from hexstones.games.observation import BALANCE_SCALE, F_BALANCE, features_of
from hexstones.studies import komi_net
from records_file import continue_a_killed_run


def trained_game_and_size(game_name: str) -> int:
    sizes = load_network(game_name).meta["sizes"]
    return int(sizes[0])


def rows_are_the_network(curve, game_name, size, net):
    """Each row of ``curve`` is ``net``'s value (and margin) at the start of a game made
    with that row's balance."""
    option = game_class(game_name).balance.option
    for row in curve["rows"]:
        game = new_game(game_name, size=size, **{option: row["komi"]})
        features = features_of(game)
        # the balance reaches the network through its features...
        assert np.allclose(features[:, F_BALANCE], row["komi"] / BALANCE_SCALE)
        out = net.evaluate(features[None], geometry_of(game))
        sign = 1.0 if game.to_move == "black" else -1.0
        assert row["black_win_rate"] == pytest.approx((sign * float(out.value[0]) + 1) / 2, abs=1e-6)
        if out.score is None:
            assert "black_margin" not in row
        else:
            assert row["black_margin"] == pytest.approx(sign * float(out.score[0]), abs=1e-4)


@pytest.mark.parametrize("game_name", ["keil", "droched"])
def test_the_curve_is_the_network_on_games_created_at_each_balance(game_name):
    size = trained_game_and_size(game_name)
    komis = [0, 1, 2, 3]
    curve = komi_net.value_curve(game_name, size, komis)
    assert [r["komi"] for r in curve["rows"]] == komis
    rows_are_the_network(curve, game_name, size, puct.network_for(game_name, size))
    assert curve["network"]["trained_on_this_size"] is True
    # ...and the curve moves with it: one network, different answers per balance. A
    # trained value head may have learned that these balances hardly matter (Droched 7's
    # gives 50.2 % at every count), so random weights, which do answer to their balance
    # input, stand in for a trained network here.
    weights = random_network(game_name, seed=5)
    stand_in = Network(weights.config, weights.params, True, {"sizes": [size]})
    moving = komi_net.value_curve(game_name, size, komis, network=stand_in)
    rows_are_the_network(moving, game_name, size, stand_in)
    assert len({round(r["black_win_rate"], 6) for r in moving["rows"]}) == len(komis)


def test_black_view_turns_the_side_to_moves_value():
    game = new_game("keil", size=3, komi=0)
    assert komi_net.black_view(game, 0.5, 3.0) == (0.75, 3.0)
    game.play(game.legal_moves()[0])
    assert game.to_move == "white"
    assert komi_net.black_view(game, 0.5, 3.0) == (0.25, -3.0)
    assert komi_net.black_view(game, -1.0, None) == (1.0, None)


def test_the_start_is_its_own_image_under_the_symmetries_so_the_curve_needs_no_averaging():
    size = trained_game_and_size("keil")
    game = new_game("keil", size=size, komi=6)
    net = puct.network_for("keil")
    features = features_of(game)[None]
    plain = net.evaluate(features, geometry_of(game))
    averaged = net.evaluate_symmetrized(features, geometry_of(game), game.action_symmetries())
    assert float(averaged.value[0]) == pytest.approx(float(plain.value[0]), abs=1e-5)


def test_the_search_curve_is_reproducible_and_is_the_searchs_root_value():
    size = trained_game_and_size("keil")
    first = komi_net.value_curve("keil", size, [4, 8], simulations=24, seed=3)
    again = komi_net.value_curve("keil", size, [4, 8], simulations=24, seed=3)
    assert first["rows"] == again["rows"]
    result = puct.search(new_game("keil", size=size, komi=8), iterations=24, seed=3,
                         reuse=False, threads=1)
    assert first["rows"][1]["black_win_rate"] == pytest.approx(result.root_win_rate)
    assert first["rows"][1]["black_margin"] == pytest.approx(result.score_lead)
    assert first["simulations"] == 24 and "search" in first["method"]


def test_crossing_interpolates_where_the_curve_falls_through_zero():
    assert komi_net.crossing([0, 1, 2, 3], [0.3, 0.1, -0.1, -0.3]) == pytest.approx(1.5)
    assert komi_net.crossing([4, 6, 8], [0.2, 0.05, -0.1]) == pytest.approx(6 + 2 * 0.05 / 0.15)
    assert komi_net.crossing([0, 1, 2], [0.0, -0.2, -0.4]) == 0.0  # exactly even at 0
    # the first fall through zero, not a later one nor a rise
    assert komi_net.crossing([0, 1, 2, 3, 4], [-0.1, 0.1, -0.1, 0.2, -0.2]) == pytest.approx(1.5)
    assert komi_net.crossing([0, 1, 2], [0.3, 0.2, 0.1]) is None
    with pytest.raises(ValueError):
        komi_net.crossing([0, 2, 1], [0.3, 0.1, -0.1])
    fields = komi_net.fair_fields(5.47)
    assert fields == {"fair_komi": 5.47, "between": [5, 6], "rounded": 5}
    assert komi_net.fair_fields(6.0)["between"] == [6, 6]
    assert komi_net.fair_fields(-0.6)["rounded"] == -1
    assert komi_net.fair_fields(None)["fair_komi"] is None


def test_the_fair_komi_of_a_curve_is_its_crossing():
    size = trained_game_and_size("keil")
    curve = komi_net.value_curve("keil", size, list(range(0, 11)))
    rates = [r["black_win_rate"] for r in curve["rows"]]
    expected = komi_net.crossing(list(range(0, 11)), [x - 0.5 for x in rates])
    assert curve["fair_komi"] == expected
    if expected is not None:
        low, high = curve["between"]
        assert low <= expected <= high and high - low <= 1
        assert rates[low] >= 0.5 > rates[low + 1]  # the komi values are 0..10: index = komi


def test_a_side_the_network_was_not_trained_on_is_refused_unless_forced():
    trained = load_network("keil").meta["sizes"]
    other = next(s for s in (3, 5, 7, 9) if s not in trained)
    with pytest.raises(komi_net.NotTrained, match=f"not side {other}"):
        komi_net.value_curve("keil", other, [5, 6])
    forced = komi_net.value_curve("keil", other, [5, 6], force=True)
    assert forced["network"]["trained_on_this_size"] is False
    assert len(forced["rows"]) == 2


def test_no_network_and_an_untrained_network_are_refused():
    puct.install_network("dehil", None)
    try:
        with pytest.raises(komi_net.NotTrained, match="no network"):
            komi_net.value_curve("dehil", 7, [0, 1], force=True)
    finally:
        puct.restore_shipped("dehil")
    with pytest.raises(komi_net.NotTrained, match="untrained"):
        komi_net.value_curve("keil", 5, [0, 1], network=random_network("keil"), force=True)
    with pytest.raises(ValueError):
        komi_net.value_curve("keil", 5, [])
    with pytest.raises(ValueError, match="whole number"):  # Keil takes whole komi
        komi_net.value_curve("keil", 5, [5.5])
    with pytest.raises(ValueError, match="prison"):  # Droched's balance is a count
        komi_net.value_curve("droched", 5, [-1, 0])


def test_command_refuses_a_side_without_trained_weights_and_writes_nothing(tmp_path, capsys):
    trained = load_network("keil").meta["sizes"]
    other = next(s for s in (3, 5, 7, 9) if s not in trained)
    js, svg = tmp_path / "k.json", tmp_path / "k.svg"
    rc = main(["komi", "keil", "--size", str(other), "--from-net", "--json", str(js),
               "--plot", str(svg)])
    assert rc == 2
    err = capsys.readouterr().err
    assert f"not side {other}" in err and "force" in err
    assert not js.exists() and not svg.exists()
    assert main(["komi", "keil", "--size", str(other), "--from-net", "--komi", "5,6",
                 "--force"]) == 0
    assert "forced" in capsys.readouterr().out
    assert main(["komi", "keil", "--size", "3", "--simulations", "8", "--games", "1"]) == 2
    assert "--from-net" in capsys.readouterr().err


def test_command_writes_the_curve_as_json_and_svg(tmp_path, capsys):
    size = trained_game_and_size("keil")
    js, svg = tmp_path / "k.json", tmp_path / "k.svg"
    rc = main(["komi", "keil", "--size", str(size), "--from-net", "--komi", "2:8",
               "--json", str(js), "--plot", str(svg)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "fair komi:" in out
    data = json.loads(js.read_text())
    assert [r["komi"] for r in data["rows"]] == list(range(2, 9))
    direct = komi_net.value_curve("keil", size, list(range(2, 9)))
    for got, want in zip(data["rows"], direct["rows"]):
        assert got["black_win_rate"] == pytest.approx(want["black_win_rate"])
    assert data["fair_komi"] == direct["fair_komi"]
    assert data["between"] == direct["between"]
    assert data["size"] == size and data["network"]["trained_sizes"]
    root = ET.fromstring(svg.read_text())
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    assert len(circles) == 7


# -- the self-play study's records file ---------------------------------------------------


def test_records_file_keeps_each_game_and_a_rerun_plays_only_the_rest(tmp_path, capsys):
    base = ["komi", "droched", "--size", "3", "--komi", "0:1", "--games", "2", "--player",
            "random", "--workers", "1", "--no-progress", "--seed", "4", "--records"]
    whole = tmp_path / "whole.jsonl"
    assert main([*base, str(whole)]) == 0
    games = [json.loads(line) for line in whole.read_text().splitlines()]
    assert len(games) == 4 and len({r["seed"] for r in games}) == 4
    assert sorted(r["komi"] for r in games[:2]) == [0, 1]  # in turns across the values
    # a study stopped after two games, killed while writing the third
    records, js = tmp_path / "games.jsonl", tmp_path / "k.json"
    lines = continue_a_killed_run(lambda path: main([*base, str(path), "--json", str(js)]),
                                  whole, records, capsys)
    data = json.loads(js.read_text())
    assert sum(r["games"] for r in data["rows"]) == 4
    assert "interrupted" not in data
    # run again: every game is there, nothing is played
    assert main([*base, str(records)]) == 0
    assert "4 games read" in capsys.readouterr().err
    assert records.read_text().splitlines() == lines


def test_a_study_run_again_with_more_or_fewer_games_counts_the_games_it_has(tmp_path, capsys):
    # The seeds of a komi's games depend on the games per komi: a study extended from 2 to
    # 3 games (or cut to 1) still counts the games of the same configuration it has.
    base = ["komi", "droched", "--size", "3", "--komi", "0:1", "--player", "random",
            "--workers", "1", "--no-progress", "--seed", "4"]
    records, other, js = tmp_path / "games.jsonl", tmp_path / "other.jsonl", tmp_path / "k.json"
    assert main([*base, "--games", "2", "--records", str(records)]) == 0
    assert main([*base, "--games", "1", "--records", str(other), "--player", "mcts:2"]) == 0
    with records.open("a") as f:
        f.write(other.read_text())  # games of another player: not counted
    capsys.readouterr()
    assert main([*base, "--games", "3", "--records", str(records), "--json", str(js)]) == 0
    assert "4 games read" in capsys.readouterr().err
    played = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(played) == 8  # one more at each komi
    mine = [r for r in played if r["black"] == "random"]
    assert sorted(r["komi"] for r in mine) == [0, 0, 0, 1, 1, 1]
    assert len({(r["komi"], r["seed"]) for r in mine}) == 6  # no game played twice
    assert [r["games"] for r in json.loads(js.read_text())["rows"]] == [3, 3]
    assert main([*base, "--games", "1", "--records", str(records), "--json", str(js)]) == 0
    assert "2 games read" in capsys.readouterr().err
    assert [r["games"] for r in json.loads(js.read_text())["rows"]] == [1, 1]
    assert len(records.read_text().splitlines()) == 8


def test_sampled_opening_plies_vary_a_search_that_draws_no_random_numbers(tmp_path):
    from hexstones.studies import komi as ks, tournament as t

    plain = ks.study_tasks("keil", 3, [0], games_per_komi=2, player="net:8")
    sampled = ks.study_tasks("keil", 3, [0], games_per_komi=4, player="net:8", sample_plies=2)
    assert all("sample_plies" not in task for task in plain)
    a, b = (t.play_game(task)["moves"] for task in plain)
    assert a == b  # the same game whatever the seed
    games = [t.play_game(task)["moves"] for task in sampled]
    again = [t.play_game(task)["moves"] for task in sampled]
    assert games == again  # the seed fixes the draw
    assert len({tuple(g) for g in games}) > 1
    with pytest.raises(ValueError, match="level"):
        ks.study_tasks("keil", 3, [0], games_per_komi=1, player="level:3", sample_plies=2)
    with pytest.raises(ValueError):
        ks.study_tasks("keil", 3, [0], games_per_komi=1, player="net:8", sample_plies=-1)


def test_records_file_that_is_not_one_is_refused(tmp_path, capsys):
    records = tmp_path / "games.jsonl"
    records.write_text("not json\n{}\n")
    rc = main(["komi", "droched", "--size", "3", "--komi", "0", "--player", "random",
               "--games", "1", "--workers", "1", "--records", str(records)])
    assert rc == 2
    assert "not a game record" in capsys.readouterr().err
    assert records.read_text() == "not json\n{}\n"


def test_value_curve_rates_are_probabilities():
    size = trained_game_and_size("keil")
    curve = komi_net.value_curve("keil", size, [-2, 6, 14])
    assert all(0.0 <= r["black_win_rate"] <= 1.0 and math.isfinite(r["black_margin"])
               for r in curve["rows"])


def test_command_shows_a_records_files_games_beside_the_curve(tmp_path, capsys):
    size = trained_game_and_size("keil")
    records, js, svg = tmp_path / "g.jsonl", tmp_path / "k.json", tmp_path / "k.svg"
    assert main(["komi", "keil", "--size", str(size), "--komi", "5,6", "--games", "1",
                 "--player", "random", "--workers", "1", "--no-progress",
                 "--records", str(records)]) == 0
    capsys.readouterr()
    assert main(["komi", "keil", "--size", str(size), "--from-net", "--komi", "3:8",
                 "--records", str(records), "--json", str(js), "--plot", str(svg)]) == 0
    assert "random self-play" in capsys.readouterr().out
    data = json.loads(js.read_text())
    assert [(r["komi"], r["games"]) for r in data["selfplay"]["rows"]] == [(5, 1), (6, 1)]
    played = {json.loads(line)["komi"]: json.loads(line)["winner"]
              for line in records.read_text().splitlines()}
    assert [r["black_wins"] for r in data["selfplay"]["rows"]] == [
        1.0 if played[k] == "black" else 0.0 for k in (5, 6)]
    root = ET.fromstring(svg.read_text())
    assert len([e for e in root.iter() if e.tag.endswith("circle")]) == 6  # the curve
    squares = [e for e in root.iter() if e.tag.endswith("rect") and e.get("width") == "8"]
    assert len(squares) == 2 + 2  # the games' two komi values, and the legend's two keys
    # a records file without games of this game and side is an error, nothing written
    js.unlink()
    assert main(["komi", "keil", "--size", "3", "--from-net", "--force", "--records",
                 str(records), "--json", str(js)]) == 2
    assert "no keil game of side 3" in capsys.readouterr().err
    assert not js.exists()


def test_report_shows_a_records_files_study_and_plays_nothing(tmp_path, capsys):
    base = ["komi", "droched", "--size", "3", "--workers", "1", "--no-progress", "--seed", "4"]
    records, study, js, svg = (tmp_path / name for name in ("g.jsonl", "s.json", "r.json", "r.svg"))
    assert main([*base, "--komi", "0:1", "--games", "2", "--player", "random",
                 "--records", str(records), "--json", str(study)]) == 0
    assert main([*base, "--komi", "0", "--games", "1", "--player", "mcts:2",
                 "--records", str(records)]) == 0
    kept = records.read_text()
    capsys.readouterr()
    report = ["komi", "droched", "--size", "3", "--report", "--records", str(records)]
    # two players' games: which one's study is meant?
    assert main(report) == 2
    assert "choose one with --player" in capsys.readouterr().err
    assert main([*report, "--player", "random", "--json", str(js), "--plot", str(svg)]) == 0
    assert "random self-play" in capsys.readouterr().out
    assert json.loads(js.read_text())["rows"] == json.loads(study.read_text())["rows"]
    assert ET.fromstring(svg.read_text()).tag.endswith("svg")
    assert main([*report, "--player", "random", "--komi", "1", "--json", str(js)]) == 0
    assert [(r["komi"], r["games"]) for r in json.loads(js.read_text())["rows"]] == [(1, 2)]
    assert records.read_text() == kept  # nothing played, nothing written
    # a game without a result counts half, and the table says how many there are
    games = [json.loads(line) for line in kept.splitlines()]
    first = next(r for r in games if r["black"] == "random" and r["komi"] == 0)
    first.update(winner=None, adjudicated=True)
    records.write_text("".join(json.dumps(r) + "\n" for r in games))
    capsys.readouterr()
    assert main([*report, "--player", "random", "--json", str(js)]) == 0
    assert "without a result (each counted half): 1 at 0" in capsys.readouterr().out
    row = json.loads(js.read_text())["rows"][0]
    assert row["unfinished"] == 1 and row["black_wins"] % 1 == 0.5
    # no file named, or no games of this side: a clear error, nothing written
    js.unlink()
    assert main(["komi", "droched", "--size", "3", "--report", "--json", str(js)]) == 2
    assert "name the file" in capsys.readouterr().err
    assert main(["komi", "droched", "--size", "4", "--report", "--records", str(records),
                 "--json", str(js)]) == 2
    assert "no droched game of side 4" in capsys.readouterr().err
    assert not js.exists()


def test_a_study_counts_only_the_games_of_the_weights_it_plays_with(tmp_path, capsys):
    """A net: player's records name its weights: after the network changed, a study run
    again plays its games anew instead of counting the other weights' games as its own."""
    base = ["komi", "keil", "--size", "3", "--komi", "0", "--games", "2", "--player", "net:4",
            "--workers", "1", "--no-progress", "--seed", "6"]
    records = tmp_path / "g.jsonl"
    first, second = (random_network("keil", seed=s, channels=8, blocks=1) for s in (1, 2))
    assert first.fingerprint != second.fingerprint
    try:
        puct.install_network("keil", first)
        assert main([*base, "--records", str(records)]) == 0
        assert main([*base, "--records", str(records)]) == 0  # all there: nothing played
        assert len(records.read_text().splitlines()) == 2
        puct.install_network("keil", second)
        assert main([*base, "--records", str(records)]) == 0
    finally:
        puct.restore_shipped("keil")
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert [g["network"] for g in games] == [first.fingerprint] * 2 + [second.fingerprint] * 2
    capsys.readouterr()
    assert main(["komi", "keil", "--size", "3", "--report", "--records", str(records)]) == 2
    err = capsys.readouterr().err
    assert first.fingerprint in err and second.fingerprint in err


def test_a_networks_fingerprint_names_its_weights_and_playout_share():
    net = random_network("keil", seed=1, channels=8, blocks=1)
    same = random_network("keil", seed=1, channels=8, blocks=1)
    assert net.fingerprint == same.fingerprint and len(net.fingerprint) == 12
    same.params["stem_b"][0] += 1e-3
    changed = type(net)(net.config, same.params, trained=True)
    assert changed.fingerprint != net.fingerprint
    mixed = type(net)(net.config, net.params, trained=True, meta={"playout_mix": 0.5})
    assert mixed.fingerprint != net.fingerprint
