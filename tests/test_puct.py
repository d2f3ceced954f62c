"""The network-guided search (PUCT with leaf batching, :mod:`hexstones.ai.puct`).

Budgets are simulations (never seconds), boards small, networks real (random weights from
:func:`hexstones.ai.net.random_network`, and the shipped weights where a game has them),
so that no result depends on timing.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import hexstones
from hexstones import ai
from hexstones.ai import levels, puct
from hexstones.ai.net import load_network, random_network, shipped_sides
from hexstones.ai.puct_tree import C_ROOT, DEFAULT_PARAMS, P_MIX, PENDING
from hexstones.studies.tournament import parse_player, player_move

GAMES = ("keil", "dehil", "droched")


@pytest.fixture(autouse=True)
def shipped_networks():
    """Each test may install networks; the shipped ones come back after it."""
    yield
    for name in GAMES:
        puct.restore_shipped(name)


def random_position(name, size, rng, max_moves):
    """A position reached by random legal moves (not over)."""
    game = hexstones.new_game(name, size=size)
    for _ in range(rng.randrange(max_moves + 1)):
        legal = game.legal_moves()
        if not legal:
            break
        trial = game.copy()
        trial.play(rng.choice(legal))
        if trial.is_over:
            break
        game = trial
    return game


def networks(name):
    found = [random_network(name, seed=1)]
    for side in [None, *shipped_sides(name)]:
        shipped = load_network(name, side)
        if shipped is not None:
            found.append(shipped)
    return found


@pytest.mark.parametrize("name", GAMES)
def test_only_legal_moves_across_random_positions(name):
    rng = random.Random(7)
    for net in networks(name):
        for i in range(12):
            size = (3, 4, 5)[i % 3]
            game = random_position(name, size, rng, 3 * game_points(size))
            if game.is_over:
                continue
            result = puct.search(game, iterations=24 + i, network=net, reuse=False, batch=8)
            legal = set(game.legal_moves())
            assert result.children, "the search visits at least one move"
            assert {m for m, _, _ in result.children} <= legal
            assert result.engine == "net"


def game_points(size):
    return 3 * size * (size - 1) + 1


@pytest.mark.parametrize("name", GAMES)
def test_a_whole_game_of_net_moves_is_legal_with_tree_reuse(name):
    puct.install_network(name, random_network(name, seed=2))
    game = hexstones.new_game(name, size=4)
    moves = 0
    while not game.is_over and moves < 200:
        move = ai.choose_move(game, iterations=16, seed=moves)
        assert move in game.legal_moves()
        game.play(move)
        moves += 1
    assert game.is_over or moves == 200


@pytest.mark.parametrize("mix", [0.0, 0.5])
def test_same_seed_and_budget_same_search(mix):
    game = hexstones.new_game("keil", size=5)
    game.play("c3")
    net = random_network("keil", seed=3)
    params = DEFAULT_PARAMS.copy()
    params[P_MIX] = mix
    a = puct.search(game, iterations=300, seed=5, network=net, reuse=False, params=params)
    b = puct.search(game, iterations=300, seed=5, network=net, reuse=False, params=params)
    assert a.children == b.children and a.pv == b.pv
    assert a.iterations == b.iterations == 300


@pytest.mark.parametrize("name", GAMES)
def test_playouts_mixed_into_the_values_move_them_toward_the_result(name):
    """With the values half from policy playouts, a position the playouts judge won
    scores higher than by the network's value alone; the moves stay legal."""
    rng = random.Random(3)
    game = random_position(name, 4, rng, 20)
    net = random_network(name, seed=9)
    plain = puct.search(game, iterations=120, network=net, reuse=False, seed=2)
    params = DEFAULT_PARAMS.copy()
    params[P_MIX] = 1.0
    mixed = puct.search(game, iterations=120, network=net, reuse=False, seed=2, params=params)
    assert {m for m, _, _ in mixed.children} <= set(game.legal_moves())
    # A random network's values sit near 0 (win rate 0.5); playout results are +-1.
    spread_plain = max(abs(w - 0.5) for _, _, w in plain.children)
    spread_mixed = max(abs(w - 0.5) for _, _, w in mixed.children)
    assert spread_mixed > spread_plain


def immediate_wins(game):
    """The moves after which the game is over and won by the side to move."""
    wins = []
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        outcome = trial.outcome()
        if trial.is_over and outcome is not None and outcome.winner == game.to_move:
            wins.append(move)
    return wins


def deciding_position(name, seed):
    """A position (random play, seeded) where some moves win at once and others do not."""
    rng = random.Random(seed)
    for _ in range(400):
        game = hexstones.new_game(name, size=3)
        while not game.is_over:
            legal = game.legal_moves()
            wins = immediate_wins(game)
            if wins and len(wins) < len(legal) and len(legal) >= 3:
                return game, wins
            game.play(rng.choice(legal))
    raise AssertionError(f"no deciding position found in {name}")


@pytest.mark.parametrize("name", GAMES)
def test_a_move_that_wins_at_once_is_found(name):
    game, wins = deciding_position(name, seed=11)
    net = random_network(name, seed=4)
    result = puct.search(game, iterations=40 * len(game.legal_moves()), network=net,
                         reuse=False)
    best, _, win_rate = result.children[0]
    assert best in wins
    assert win_rate > 0.9  # the exact result backed up from the finished game


def check_tree(tree):
    """Every expanded node under the root: its visits are its own evaluation plus its
    children's visits, its priors sum to 1; no virtual loss or pending leaf is left."""
    assert not tree.virtual.any()
    used = int(tree.counters[0])
    assert not (tree.flags[:used] & PENDING).any()
    first, count, visits = tree.first_child, tree.num_children, tree.visits
    expanded = 0
    stack = [int(tree.counters[C_ROOT])]
    while stack:
        node = stack.pop()
        if first[node] >= 0:
            kids = range(first[node], first[node] + count[node])
            assert visits[node] == 1 + visits[first[node]: first[node] + count[node]].sum(), node
            assert abs(tree.prior[first[node]: first[node] + count[node]].sum() - 1) < 1e-4
            expanded += 1
            stack.extend(kids)
    return expanded


@pytest.mark.parametrize("threads", [1, 2])
def test_virtual_loss_leaves_visit_counts_consistent(threads):
    game = hexstones.new_game("dehil", size=4)
    net = random_network("dehil", seed=5)
    key = ("virtual loss", threads)
    result = puct.search(game, iterations=500, network=net, reuse=True, reuse_key=key,
                         batch=12, threads=threads)
    tree = puct.kept_tree(game, key)
    root = int(tree.counters[C_ROOT])
    assert check_tree(tree) > 10
    assert tree.visits[root] == sum(v for _, v, _ in result.children) + 1
    assert result.iterations >= 500
    # The tree moves on with the game, and stays consistent.
    game.play(result.children[0][0])
    puct.search(game, iterations=200, network=net, reuse=True, reuse_key=key, batch=12,
                threads=threads)
    assert puct.kept_tree(game, key) is tree
    check_tree(tree)
    assert int(tree.counters[C_ROOT]) != root


def test_a_tree_grows_as_its_search_needs_and_a_full_one_at_its_limit_ends_the_search(monkeypatch):
    game = hexstones.new_game("dehil", size=4)
    net = random_network("dehil", seed=5)
    roomy = puct.search(game, iterations=400, seed=2, network=net, reuse=False)
    monkeypatch.setattr(puct, "START_NODES", 100)  # room for not even one batch's leaves
    grown = puct.search(game, iterations=400, seed=2, network=net, reuse_key="grows")
    tree = puct.kept_tree(game, "grows")
    assert len(tree.move) > 100 and check_tree(tree) > 100
    # Growing changes nothing but the room: the search is the one in a tree big enough.
    assert grown.children == roomy.children and grown.pv == roomy.pv
    assert grown.iterations == 400
    # Two searchers grow it too, with leaves of the other's batch in flight.
    two = puct.search(game, iterations=400, network=net, reuse_key="grows, 2", threads=2)
    tree = puct.kept_tree(game, "grows, 2")
    assert two.iterations >= 400 and check_tree(tree) > 100
    assert tree.visits[int(tree.counters[C_ROOT])] == sum(v for _, v, _ in two.children) + 1
    # At its limit a full tree ends the search short of its budget: leaves that cannot
    # expand would only repeat their values.
    monkeypatch.setattr(puct, "MAX_NODES", 1000)
    full = puct.search(game, iterations=400, seed=2, network=net, reuse_key="full")
    tree = puct.kept_tree(game, "full")
    assert len(tree.move) <= 1000 and 0 < full.iterations < 400
    assert tree.visits[int(tree.counters[C_ROOT])] == full.iterations
    check_tree(tree)


@pytest.mark.parametrize("name", GAMES)
def test_analyze_says_net_and_keeps_its_keys(name):
    game = hexstones.new_game(name, size=4)
    game.play(game.legal_moves()[3])
    puct.install_network(name, None)
    classic = ai.analyze(game, iterations=60, seed=1)
    assert classic["engine"] == "compiled"  # the fallback without weights
    puct.install_network(name, random_network(name, seed=6))
    data = ai.analyze(game, iterations=150, seed=1)
    assert data["engine"] == "net"
    assert set(classic) <= set(data)
    assert 0.0 <= data["win_rate"] <= 1.0
    assert data["iterations"] == 150
    legal = set(game.legal_moves())
    assert all(m["move"] in legal and 0 <= m["win_rate"] <= 1 for m in data["moves"])
    assert data["pv"][0] == data["moves"][0]["move"]
    if game.has_score:
        assert set(data["ownership"]) == set(game.board.names)
        assert all(-1.0 <= v <= 1.0 for v in data["ownership"].values())
        score = data["expected_score"]
        assert score["black"] - score["white"] == pytest.approx(data["score_lead"])
    else:
        assert "ownership" not in data and "expected_score" not in data


def test_levels_use_the_net_only_at_levels_9_and_10_and_mcts_stays_classic():
    puct.install_network("keil", random_network("keil", seed=7))
    game = hexstones.new_game("keil", size=4)
    assert ai.search(game, iterations=30, seed=1).engine == "net"
    assert ai.search(game, iterations=30, seed=1, engine="mcts").engine == "compiled"
    assert ai.search(game, iterations=30, seed=1, knowledge=False).engine == "compiled"
    assert ai.LEVELS[8].net_sims is None and ai.LEVELS[9].net_sims is not None
    sims = [ai.LEVELS[n].net_sims for n in range(9, 11)]
    assert sims == sorted(sims) and len(set(sims)) == len(sims)
    for level in (1, 8, 9, 10):
        assert ai.choose_move(game, level=level, iterations=20, seed=level) in game.legal_moves()
        assert ai.engine_for(game, level) == ("net" if level >= 9 else "mcts")
    assert ai.engine_for(game) == "net"
    # The tournament's players: mcts: is the classic search, net: the network's.
    assert parse_player("net:40").kind == "net"
    assert parse_player("net:0.5s").seconds == 0.5
    assert player_move(parse_player("net:40"), game, seed=1) in game.legal_moves()
    assert player_move(parse_player("mcts:40"), game, seed=1) in game.legal_moves()
    puct.install_network("keil", None)
    assert ai.engine_for(game, 10) == "mcts"


def test_a_networks_metadata_may_leave_level_9_to_the_classic_search():
    """Weights whose metadata names the levels that play them (``network_levels``) play
    only those; the others keep the classic search, which the level guide and the moves
    played follow."""
    network = random_network("keil", seed=7)
    network.meta[puct.LEVELS_KEY] = [10]
    puct.install_network("keil", network)
    game = hexstones.new_game("keil", size=4)
    try:
        assert [ai.engine_for(game, n) for n in (8, 9, 10)] == ["mcts", "mcts", "net"]
        assert ai.engine_for(game) == "net"
        assert [g["engine"] for g in ai.level_guide(game, [9, 10])] == ["mcts", "net"]
        assert ai.choose_move(game, level=9, iterations=20, seed=1) in game.legal_moves()
        for bad in ("10", {"4": [10]}, [True]):  # a list of level numbers, nothing else
            network.meta[puct.LEVELS_KEY] = bad
            with pytest.raises(ValueError, match="network_levels"):
                ai.engine_for(game, 9)
    finally:
        puct.install_network("keil", None)
    assert ai.engine_for(game, 9) == "mcts"


def test_no_weights_and_bad_requests_are_refused():
    puct.install_network("dehil", None)
    game = hexstones.new_game("dehil", size=4)
    with pytest.raises(ValueError, match="no network weights"):
        ai.search(game, iterations=10, engine="net")
    with pytest.raises(ValueError, match="engine"):
        ai.search(game, iterations=10, engine="alphago")
    with pytest.raises(ValueError, match="keil"):
        puct.install_network("dehil", random_network("keil"))
    with pytest.raises(ValueError):
        puct.install_network("chess", None)
    with pytest.raises(ValueError, match="bad player"):
        parse_player("net:")
    assert ai.search(game, iterations=10, seed=0).engine == "compiled"


def test_the_network_sees_what_the_search_plays():
    """The features the search writes for a leaf are the encoder's for that position."""
    from hexstones.games.observation import features_of

    game = hexstones.new_game("keil", size=3)
    net = random_network("keil", seed=8)
    seen = []

    class Recorder:
        game = "keil"
        meta: dict = {}

        def evaluate_compiled(self, features, nbr):  # what the search calls
            seen.append(np.array(features))
            return net.evaluate_compiled(features, nbr)

    puct.search(game, iterations=1, network=Recorder(), reuse=False)
    assert len(seen) == 1 and np.array_equal(seen[0][0], features_of(game))


def test_shipped_weights_play_by_default_only_where_the_table_names_the_side():
    """The shipped weights play for the levels and analyze ("auto") only on the sides of
    ``levels.NETWORK_PLAYS``, or where someone chose the network."""
    for name in GAMES:
        puct.restore_shipped(name)
        game = hexstones.new_game(name, size=4)
        shipped = load_network(name)
        assert levels.shipped_play(name, game.size) is None
        assert not puct.plays_by_default(game) and ai.engine_for(game, 10) == "mcts"
        assert ai.search(game, iterations=20, seed=1).engine == "compiled"
        if shipped is not None:  # asked for by name, the network plays all the same
            assert ai.search(game, iterations=20, seed=1, engine="net").engine == "net"
            puct.install_network(name, shipped)  # chosen: now it plays by default
            assert puct.plays_by_default(game)
            assert ai.engine_for(game, 10) == "net"
        puct.restore_shipped(name)
        for entry in (e for e in levels.NETWORK_PLAYS if e.game == name):
            named = hexstones.new_game(name, size=entry.sides[0])
            assert puct.plays_by_default(named)
            assert ai.search(named, iterations=20, seed=1).engine == "net"


def test_the_table_of_shipped_networks_holds_together():
    """Every entry of ``NETWORK_PLAYS``: a game's sides, no side named twice, levels that
    may play a network, and the weights file that serves those sides, shipped, with a won
    match against the classic search on each side recorded in its metadata."""
    from hexstones.ai.net import weights_path
    from hexstones.games import game_class

    seen = set()
    for entry in levels.NETWORK_PLAYS:
        assert entry.sides and entry.levels
        assert set(entry.sides) <= set(game_class(entry.game).sizes)
        assert all(levels.may_play_network(levels.LEVELS[n]) for n in entry.levels)
        for side in entry.sides:
            assert (entry.game, side) not in seen
            seen.add((entry.game, side))
            serving = weights_path(entry.game, side)
            if not serving.is_file():
                serving = weights_path(entry.game)
            assert serving.name == entry.weights and serving.is_file()
            network = load_network(entry.game, side) or load_network(entry.game)
            assert network.meta["matches"][str(side)]["ci95"][0] > 0.5, (entry, side)


@pytest.mark.parametrize("name, side, level, engine", [
    ("keil", 5, 9, "net"), ("keil", 7, 10, "net"), ("keil", 9, 10, "mcts"), ("keil", 5, 8, "mcts"),
    ("dehil", 5, 10, "mcts"), ("dehil", 7, 9, "net"), ("dehil", 9, 10, "net"),
    ("dehil", 11, 10, "mcts"),
    ("droched", 5, 9, "mcts"), ("droched", 5, 10, "net"), ("droched", 7, 9, "mcts"),
    ("droched", 9, 10, "net"), ("droched", 11, 10, "mcts"), ("droched", 3, 10, "mcts"),
])
def test_the_table_says_what_each_level_plays(name, side, level, engine):
    """What ``ai.engine_for`` answers for the shipped weights is the table's answer, pinned
    where a rule could slip: a side file's own levels (Droched 5), a side of the game's
    file that the table leaves out (Dehil 5, Keil 9), a level the table leaves out
    (Droched's 9), and level 8, which never plays a network."""
    puct.restore_shipped(name)
    game = hexstones.new_game(name, size=side)
    entry = levels.shipped_play(name, side)
    table = "net" if entry is not None and level in entry.levels else "mcts"
    assert table == engine
    assert ai.engine_for(game, level) == engine
    assert ai.level_guide(game, [level])[0]["engine"] == engine
    assert puct.plays_by_default(game) is (entry is not None)


def test_a_side_with_weights_of_its_own_plays_them(tmp_path, monkeypatch):
    """A board side that ships weights of its own (``weights/<game>-<side>.npz``) plays them
    and the game's other sides play the game's; a network installed for the game serves
    every side; in the folder of $HEXSTONES_NETWORK_DIR a side's file serves that side and
    the game's file every other, ahead of any shipped weights."""
    name = "droched"
    assert shipped_sides(name), "Droched ships weights for side 5 of their own"
    side = shipped_sides(name)[0]
    own, every = load_network(name, side), load_network(name)
    assert own.meta != every.meta and load_network(name, 7) is None
    try:
        puct.restore_shipped(name)
        assert puct.network_for(name, side).meta == own.meta
        assert puct.network_for(name, 11).meta == every.meta == puct.network_for(name).meta
        game = hexstones.new_game(name, size=side)
        assert puct.plays_by_default(game) is (levels.shipped_play(name, side) is not None)
        assert ai.search(game, iterations=20, seed=1, engine="net").engine == "net"
        stand_in = random_network(name, seed=3)
        puct.install_network(name, stand_in, chosen=False)  # plays where the shipped would
        assert puct.network_for(name, side) is stand_in
        assert puct.default_player(game) == (levels.shipped_play(name, side), None)
        assert not puct.plays_by_default(hexstones.new_game(name, size=11))
        puct.restore_shipped(name)
        assert puct.network_for(name, side).meta == own.meta

        monkeypatch.setenv(puct.NETWORK_DIR_VARIABLE, str(tmp_path))
        random_network(name, seed=4).save(tmp_path / f"{name}-7.npz")
        puct.restore_shipped(name)
        assert puct.network_for(name, 7).meta["seed"] == 4
        assert puct.plays_by_default(hexstones.new_game(name, size=7))  # chosen for side 7
        assert puct.network_for(name, side).meta == own.meta  # nothing chosen for the others
        assert puct.network_for(name, 11).meta == every.meta
        random_network(name, seed=5).save(tmp_path / f"{name}.npz")
        puct.restore_shipped(name)
        assert puct.network_for(name, side).meta["seed"] == 5  # chosen for every side
        assert puct.network_for(name, 9).meta["seed"] == 5
        assert puct.network_for(name, 7).meta["seed"] == 4
    finally:
        monkeypatch.delenv(puct.NETWORK_DIR_VARIABLE, raising=False)
        puct.restore_shipped(name)


def test_a_side_plays_the_table_only_with_the_file_it_names(tmp_path, monkeypatch):
    """The shipped weights play a side of ``NETWORK_PLAYS`` only where the file the table
    names serves it; ``plays_by_default(game, any_side=True)`` (the web's warm-up) is true
    for a game where some side plays, whatever the warm-up board's side."""
    from hexstones.ai import net as net_module

    name = "droched"

    def weights_here(game_name, size=None):
        return tmp_path / f"{game_name if size is None else f'{game_name}-{int(size)}'}.npz"

    monkeypatch.setattr(net_module, "weights_path", weights_here)
    monkeypatch.setattr(levels, "NETWORK_PLAYS", (
        levels.ShippedNetwork(name, f"{name}-7.npz", sides=(7,), levels=(10,)),))
    random_network(name, seed=1).save(tmp_path / f"{name}.npz")
    small = hexstones.new_game(name, size=3)
    seven = hexstones.new_game(name, size=7)
    try:
        puct.restore_shipped(name)
        assert not puct.plays_by_default(small, any_side=True)  # side 7 has no file of its own
        assert not puct.plays_by_default(seven) and ai.engine_for(seven, 10) == "mcts"
        random_network(name, seed=2).save(tmp_path / f"{name}-7.npz")
        puct.restore_shipped(name)
        assert puct.plays_by_default(small, any_side=True)
        assert not puct.plays_by_default(small)  # side 3 plays the game's own weights
        assert puct.plays_by_default(seven)
        assert [ai.engine_for(seven, n) for n in (9, 10)] == ["mcts", "net"]
        (tmp_path / f"{name}-7.npz").unlink()
        folder = tmp_path / "chosen"
        folder.mkdir()
        random_network(name, seed=3).save(folder / f"{name}-9.npz")
        monkeypatch.setenv(puct.NETWORK_DIR_VARIABLE, str(folder))
        puct.restore_shipped(name)
        assert puct.plays_by_default(small, any_side=True)  # side 9's chosen in the folder
        assert not puct.plays_by_default(small)
        nine = hexstones.new_game(name, size=9)
        assert [ai.engine_for(nine, n) for n in (9, 10)] == ["net", "net"]  # chosen: both
    finally:
        monkeypatch.undo()
        puct.restore_shipped(name)


def _root_priors(game, net, key, **options):
    puct.search(game, iterations=40, network=net, reuse=True, reuse_key=key, **options)
    tree = puct.kept_tree(game, key)
    root = int(tree.counters[C_ROOT])
    first, count = int(tree.first_child[root]), int(tree.num_children[root])
    return tree.prior[first:first + count].astype(np.float64), tree.move[first:first + count].copy()


def test_root_noise_mixes_dirichlet_noise_into_the_root_priors_only():
    """Self-play's exploration noise: the root's priors become (1 - share) * prior +
    share * noise, the same for the same seed; the rest of the tree keeps the network's."""
    game = hexstones.new_game("keil", size=4)
    game.play(game.legal_moves()[3])
    net = random_network("keil", seed=4)
    plain, moves = _root_priors(game, net, "plain")
    noisy, noisy_moves = _root_priors(game, net, "noisy", seed=9, root_noise=(0.25, 10.0))
    check_tree(puct.kept_tree(game, "noisy"))  # every other node's priors: the softmax's
    again, _ = _root_priors(game, net, "again", seed=9, root_noise=(0.25, 10.0))
    other, _ = _root_priors(game, net, "other", seed=10, root_noise=(0.25, 10.0))
    assert np.array_equal(moves, noisy_moves)
    assert abs(noisy.sum() - 1) < 1e-5 and np.all(noisy >= 0.75 * plain - 1e-6)
    assert not np.allclose(noisy, plain, atol=1e-3)
    assert np.array_equal(noisy, again) and not np.allclose(noisy, other, atol=1e-3)
    noise = (noisy - 0.75 * plain) / 0.25  # what was mixed in: a distribution
    assert abs(noise.sum() - 1) < 1e-4 and noise.min() > -1e-5
    only_noise, _ = _root_priors(game, net, "only", seed=9, root_noise=(1.0, 10.0))
    assert np.allclose(only_noise, noise, atol=1e-4)


def test_bad_root_noise_is_refused():
    game = hexstones.new_game("keil", size=4)
    net = random_network("keil", seed=4)
    for bad in [(1.5, 10.0), (-0.1, 10.0), (0.25, 0.0)]:
        with pytest.raises(ValueError, match="root_noise"):
            puct.search(game, iterations=10, network=net, reuse=False, root_noise=bad)


def test_a_stand_in_for_the_shipped_weights_plays_where_the_table_says(monkeypatch):
    """A network installed to stand in for the shipped weights (``chosen=False``) plays the
    sides and levels of ``NETWORK_PLAYS``, whatever its metadata says."""
    monkeypatch.setattr(levels, "NETWORK_PLAYS", (
        levels.ShippedNetwork("keil", "keil.npz", sides=(5,), levels=(10,)),))
    stand_in = random_network("keil", seed=3)
    stand_in.meta[puct.LEVELS_KEY] = [9]  # read only for a network someone chose
    puct.install_network("keil", stand_in, chosen=False)
    five, seven = hexstones.new_game("keil", size=5), hexstones.new_game("keil", size=7)
    assert puct.plays_by_default(five) and not puct.plays_by_default(seven)
    assert puct.plays_by_default(hexstones.new_game("keil", size=3), any_side=True)  # warmed up
    assert [ai.engine_for(five, n) for n in (8, 9, 10)] == ["mcts", "mcts", "net"]
    assert ai.engine_for(seven, 10) == "mcts"
    puct.install_network("keil", stand_in)  # chosen: every side, the levels its metadata names
    assert [ai.engine_for(seven, n) for n in (9, 10)] == ["net", "mcts"]


def test_the_networks_metadata_sets_its_playout_mix():
    """Weights whose metadata asks for a playout share are searched with it, as if the
    parameters had been given; a share outside 0..1 is refused."""
    game = hexstones.new_game("dehil", size=5)
    game.play("c3")
    plain_net = random_network("dehil", seed=3)
    mixed_net = random_network("dehil", seed=3)
    mixed_net.meta[puct.MIX_KEY] = 0.5
    assert puct.search_params(plain_net) is DEFAULT_PARAMS
    params = DEFAULT_PARAMS.copy()
    params[P_MIX] = 0.5
    assert np.array_equal(puct.search_params(mixed_net), params)
    by_meta = puct.search(game, iterations=200, seed=5, network=mixed_net, reuse=False)
    by_params = puct.search(game, iterations=200, seed=5, network=plain_net, reuse=False,
                            params=params)
    plain = puct.search(game, iterations=200, seed=5, network=plain_net, reuse=False)
    assert by_meta.children == by_params.children
    assert by_meta.children != plain.children
    kept = list(puct._CACHE)
    for bad in (1.5, -0.1, "half", True):
        mixed_net.meta[puct.MIX_KEY] = bad
        with pytest.raises(ValueError, match="playout_mix"):
            puct.search(game, iterations=10, network=mixed_net, reuse=True)
    assert list(puct._CACHE) == kept  # refused before the tree cache was touched
