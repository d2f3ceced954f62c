"""The network-guided search: PUCT over the compiled kernels, leaves evaluated in batches.

The compiled part (tree arrays, selection with virtual loss, feature encoding, expansion,
backup) is :mod:`hexstones.ai.puct_tree`; this driver runs its steps, evaluates each
batch of leaves with the game's network (:mod:`hexstones.ai.net`) in one call, keeps the
tree between moves, and turns the tree into a :class:`hexstones.ai.pysearch.SearchResult`
(``engine`` "net").

Why PUCT (AlphaZero) rather than a Gumbel root: the levels search hundreds to thousands
of simulations a move, where PUCT is at its best, it batches leaves naturally with
virtual loss, and its tree carries over to the next move unchanged; Gumbel's advantage
is at a handful of simulations.

Every core: with a time budget, several searchers (threads) share the tree, taking turns
at it under a lock, so that one selects and encodes its batch (compiled code that
releases the GIL) while another waits for the network. A budget of simulations alone
(``seconds=None``) uses one searcher, so that a seed and a budget always give the same
search.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np

# puct_tree first: importing it drops numba cache files made stale by edited kernels.
from hexstones.ai.puct_tree import (  # isort: skip
    C_ROOT, C_USED, DEFAULT_PARAMS, LEAF_NET, P_MIX, PuctTree, allocate_tree, grow_tree,
    node_bytes,
    expand_and_backup, reset_tree, select_leaves,
)
from hexstones.ai.features import NUM_FEATURES
from hexstones.ai.mcts import TreeCache, principal_variation, state_for, supports as has_kernels
from hexstones.core import dispatch
from hexstones.core.common import copy_into, seed_rng
from hexstones.core.layout import M_PLY, allocate_state, capacity_of

# A tree starts with room for START_NODES nodes (or what an iteration budget needs) and
# grows while a search needs more, up to MAX_NODES (~650 MB) or a sixteenth of the
# machine's memory. Every expansion takes a node for each legal move (62 on Droched 5),
# so a 2 million node tree held about 32 000 expansions: one core's 7 s of level 10 in
# every game filled it, and the rest of the search evaluated the same unexpandable
# leaves again and again, piling visits on them unchecked.
START_NODES = 2_000_000
MAX_NODES = 16_000_000
BATCH = 8  # leaves per network evaluation (per searcher): the numpy network gains
# nothing from bigger batches on a CPU (benchmarks/net_search.py), and every leaf in
# flight blurs the search a little (virtual loss)
KEPT_TREES = 2

_NETWORKS: dict[str, Any] = {}  # game -> its network for every side
_SIDE_NETWORKS: dict[tuple[str, int], Any] = {}  # (game, side) -> that side's own, or None
_CHOSEN: set = set()  # games, and (game, side)s, whose network someone chose (the folder below, install_network)
_INSTALLED: set = set()  # games given a network by install_network: it serves every side
_NET_LOCK = threading.Lock()
_WARM: set = set()


# A folder of ``<game>.npz`` (every side) and ``<game>-<side>.npz`` (one side) weights to
# play with instead of the shipped ones (for trying a training run's checkpoint in
# matches); a game without a file there keeps its own.
NETWORK_DIR_VARIABLE = "HEXSTONES_NETWORK_DIR"


def _chosen_file(name: str) -> str | None:
    folder = os.environ.get(NETWORK_DIR_VARIABLE)
    path = os.path.join(folder, f"{name}.npz") if folder else None
    return path if path and os.path.isfile(path) else None


def network_for(game_name: str, size: int | None = None):
    """The network ``game_name`` plays with on board side ``size`` (loaded once per
    process), or None. The first there is of: a network given by :func:`install_network`;
    ``$HEXSTONES_NETWORK_DIR/<game>-<size>.npz``, then ``<game>.npz``; the shipped weights
    of that side (``weights/<game>-<size>.npz``), then the game's own (``weights/<game>.npz``).
    Without ``size``: the game's network for every side."""
    from hexstones.ai.net import load_network, read_network

    with _NET_LOCK:
        if game_name not in _NETWORKS:
            path = _chosen_file(game_name)
            if path:
                _NETWORKS[game_name] = read_network(path)
                _CHOSEN.add(game_name)
            else:
                _NETWORKS[game_name] = load_network(game_name)
        if size is None or game_name in _INSTALLED:
            return _NETWORKS[game_name]
        key = (game_name, int(size))
        if key not in _SIDE_NETWORKS:
            path = _chosen_file(f"{game_name}-{key[1]}")
            if path:
                _SIDE_NETWORKS[key] = read_network(path)
                _CHOSEN.add(key)
            else:  # a network chosen for every side outranks a shipped one for this side
                _SIDE_NETWORKS[key] = None if game_name in _CHOSEN else load_network(game_name, key[1])
        side = _SIDE_NETWORKS[key]
        return _NETWORKS[game_name] if side is None else side


def _sides_of_their_own(game_name: str) -> list[int]:
    """The board sides of ``game_name`` that may have a network of their own: shipped
    (``weights/<game>-<side>.npz``) or in ``$HEXSTONES_NETWORK_DIR``."""
    from hexstones.ai.net import shipped_sides, sides_named

    sides = set(shipped_sides(game_name))
    folder = os.environ.get(NETWORK_DIR_VARIABLE)
    if folder and os.path.isdir(folder):
        sides.update(sides_named(game_name, os.listdir(folder)))
    return sorted(sides)


def _forget_sides(game_name: str) -> None:  # under _NET_LOCK
    for key in [k for k in _SIDE_NETWORKS if k[0] == game_name]:
        del _SIDE_NETWORKS[key]
        _CHOSEN.discard(key)


def install_network(game_name: str, network, chosen: bool = True) -> None:
    """Play ``game_name`` with ``network`` on every side in this process from now on (None:
    with no network, so the classic search plays): for a network file of one's own, and for
    tests of both engines whatever weights ship. ``chosen=False``: the network stands in
    for the shipped weights, so its metadata decides where it plays by default."""
    from hexstones.games import game_class

    game_class(game_name)  # an unknown game is an error
    if network is not None and network.game != game_name:
        raise ValueError(f"that network plays {network.game}, not {game_name}")
    with _NET_LOCK:
        _NETWORKS[game_name] = network
        _forget_sides(game_name)
        _INSTALLED.add(game_name)
        if network is None or not chosen:
            _CHOSEN.discard(game_name)
        else:
            _CHOSEN.add(game_name)
    _WARM.discard(game_name)


def restore_shipped(game_name: str) -> None:
    """Forget what :func:`install_network` installed: ``game_name`` plays as a fresh
    process would (the folder of ``$HEXSTONES_NETWORK_DIR``, else the shipped weights)."""
    with _NET_LOCK:
        _NETWORKS.pop(game_name, None)
        _forget_sides(game_name)
        _INSTALLED.discard(game_name)
        _CHOSEN.discard(game_name)
    _WARM.discard(game_name)


def supports(game) -> bool:
    """Whether the network search can play ``game``: compiled kernels and a network."""
    return has_kernels(game) and network_for(game.name, game.size) is not None


# The key of a network's metadata that makes it the default player: set on shipped
# weights only once the network search has beaten the classic search with them in a
# match at equal time (benchmarks/net_match.py). Weights without it play only when asked
# for (the net: players, engine="net"), so that no level gets weaker than the classic
# search it replaces. Its value: true (every board side), or the list of the sides where
# the network won (a network trained on side 5 alone has not earned side 7).
DEFAULT_KEY = "plays_by_default"


def default_on(meta: dict, size: int | None) -> bool:
    """Whether weights with metadata ``meta`` play side ``size`` by default (None: some side)."""
    flag = meta.get(DEFAULT_KEY)
    if isinstance(flag, list):
        return bool(flag) if size is None else size in flag
    return flag is True


# The key of a network's metadata that sets the share of a leaf's value its search takes
# from one policy playout (``puct_tree.P_MIX``; absent: 0, the network's value alone):
# a young value head can judge worse than the classic search's playouts (Dehil's, see
# docs/ai.md), so the weights that want it carry it.
MIX_KEY = "playout_mix"


def search_params(network) -> np.ndarray:
    """The search's parameters for ``network``: the defaults, with the playout share its
    metadata asks for (``MIX_KEY``)."""
    mix = network.meta.get(MIX_KEY)
    if mix is None:
        return DEFAULT_PARAMS
    if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not 0.0 <= mix <= 1.0:
        raise ValueError(f"the network's {MIX_KEY} is a share from 0 to 1, not {mix!r}")
    params = DEFAULT_PARAMS.copy()
    params[P_MIX] = float(mix)
    return params


# The key of a network's metadata that names the levels, of those that may play a network
# (``Level.net_sims``: 9 and 10), that play it where it plays by default (absent: all of
# them). Where twice the time does not make a network's search a clearly stronger player
# (Droched's: docs/ai.md, "Each level against the level below"), its weights leave level 9
# to the classic search, so that each level still beats the one below it.
LEVELS_KEY = "network_levels"


def plays_level(game, number: int) -> bool:
    """Whether level ``number`` (one with ``net_sims``) plays ``game`` with the network:
    where it plays by default (:func:`plays_by_default`) and its metadata's
    :data:`LEVELS_KEY`, if any, names the level."""
    if not plays_by_default(game):
        return False
    levels = network_for(game.name, game.size).meta.get(LEVELS_KEY)
    if levels is None:
        return True
    if not isinstance(levels, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in levels):
        raise ValueError(f"the network's {LEVELS_KEY} is a list of level numbers, not {levels!r}")
    return number in levels


def plays_by_default(game, any_side: bool = False) -> bool:
    """Whether ``engine="auto"`` (the levels, ``ai.analyze``) plays ``game`` with the
    network: a network someone chose (``$HEXSTONES_NETWORK_DIR``, :func:`install_network`),
    or shipped weights whose metadata records a won match against the classic search on
    the game's board side (``any_side``: on some side of the game, as a warm-up asks)."""
    if not supports(game):
        return False
    if not any_side:
        return _plays_on(game.name, game.size)
    return any(_plays_on(game.name, side) for side in [None, *_sides_of_their_own(game.name)])


def _plays_on(game_name: str, size: int | None) -> bool:
    """Whether the network of ``game_name`` for side ``size`` (None: the game's own) was
    chosen or records a won match there."""
    network = network_for(game_name, size)  # first: it notes a network chosen in the folder
    chosen = game_name in _CHOSEN or (game_name, size) in _CHOSEN
    return network is not None and (chosen or default_on(network.meta, size))


def default_threads() -> int:
    """Searchers for a timed search: one per core this process may run on, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


class _Cache(TreeCache):
    """A tree kept for the next move of the same game by the same player, with the same
    network (the classic search's rules of reuse, :class:`hexstones.ai.mcts.TreeCache`)."""

    def __init__(self, game, capacity: int, network):
        super().__init__(game, capacity)
        self.network = network

    @staticmethod
    def new_tree(capacity: int):
        tree = allocate_tree(capacity)
        reset_tree(tree)
        return tree

    def reusable_for(self, game, network=None) -> bool:
        return network is self.network and super().reusable_for(game)


_CACHE: dict = {}


def _cache_key(game, reuse_key):
    return (game.name, repr(sorted(game.options.items())), repr(reuse_key))


def kept_tree(game, reuse_key=None) -> PuctTree | None:
    """The tree kept for this game and player (``reuse_key``), or None."""
    cache = _CACHE.get(_cache_key(game, reuse_key))
    return None if cache is None else cache.tree


def _capacity(game, iterations) -> int:
    """The room a new tree starts with (it grows when a search needs more)."""
    if iterations is not None:
        # Room for this search and the next one on the kept tree (each evaluation
        # expands a node: up to P + 1 children).
        return int(min(START_NODES, (2 * iterations + BATCH * 4 + 2) * (game.board.num_points + 1)))
    return START_NODES


def node_limit() -> int:
    """The most nodes a tree may grow to: :data:`MAX_NODES`, or a sixteenth of this
    machine's memory where that is less."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf: not Linux
        return MAX_NODES
    return int(max(START_NODES, min(MAX_NODES, memory // 16 // node_bytes())))


def _make_room(cache, need: int, limit: int) -> bool:
    """Whether ``cache``'s tree has room for ``need`` more nodes, growing it (doubling, at
    most to ``limit``) where it has not; False when it is full at the limit."""
    tree = cache.tree
    capacity, used = len(tree.move), int(tree.counters[C_USED])
    if capacity - used >= need:
        return True
    if capacity >= limit or used + need > limit:
        return False
    cache.tree = grow_tree(tree, min(limit, max(2 * capacity, used + need)))
    return True


class _Searcher:
    """One searcher's buffers: its own work state, batch of features and leaf records."""

    def __init__(self, root_st, size: int, P: int, batch: int, max_depth: int, seed: int):
        self.work = allocate_state(size, capacity_of(root_st))
        copy_into(self.work, root_st)
        rows = batch + batch // 2 + 1
        self.features = np.zeros((batch, P, NUM_FEATURES), np.float32)
        self.paths = np.zeros((rows, max_depth + 1), np.int32)
        self.depths = np.zeros(rows, np.int32)
        self.kinds = np.zeros(batch, np.int8)
        self.legal = np.zeros((batch, P + 1), np.int32)
        self.num_legal = np.zeros(batch, np.int32)
        self.exact_value = np.zeros(batch, np.float64)
        self.exact_score = np.zeros(batch, np.float64)
        self.to_move = np.zeros(batch, np.int64)
        self.rollout = np.zeros(batch, np.float64)
        self.rng = seed_rng(seed)
        self.cand = np.empty(dispatch.policy_buffer_size(P), np.int32)
        self.reply = np.full((2, P + 1), -1, np.int32)


def search(game, *, seconds=None, iterations=None, seed=None, reuse=True, reuse_key=None,
           network=None, batch: int | None = None, threads: int | None = None, params=None,
           analysis=True, root_noise: tuple[float, float] | None = None):
    """Search ``game``'s position with its network (``network``: else the shipped one);
    ``iterations`` counts simulations (leaves evaluated or exact results backed up).
    Returns a :class:`hexstones.ai.pysearch.SearchResult` with ``engine`` "net".
    ``params``: the search's parameters (``puct_tree.DEFAULT_PARAMS``'s slots; default:
    :func:`search_params` of the network). ``seed`` seeds the policy playouts mixed into
    the values (``params[P_MIX] > 0``) and the root noise; the selection itself draws no
    random numbers.

    ``root_noise=(share, alpha_total)``: AlphaZero's exploration noise for self-play: the
    root's priors become ``(1 - share) * prior + share * Dirichlet(alpha_total / k)`` over
    its ``k`` legal moves, so that the games try moves the network does not yet like.
    The levels never use it."""
    seed = 0 if seed is None else int(seed)
    if root_noise is not None:
        share, alpha_total = (float(x) for x in root_noise)
        if not (0.0 <= share <= 1.0 and alpha_total > 0.0):
            raise ValueError(f"root_noise is (share in [0, 1], alpha_total > 0), not {root_noise}")
    net = network if network is not None else network_for(game.name, game.size)
    if net is None or not has_kernels(game):
        raise ValueError(f"no network search for {game.name}")
    # Before the tree cache is touched: weights with a bad playout share change nothing.
    params = search_params(net) if params is None else np.asarray(params, dtype=np.float64)
    if game.is_over:
        raise ValueError("the game is over: there is nothing to search")
    door = game.compiled()
    gid, geo, P = door.game_id, door.geometry, door.num_points
    root_st = state_for(game, door)
    batch = int(batch or BATCH)
    if threads is None:
        threads = 1 if seconds is None else default_threads()
    threads = max(1, int(threads))
    key = _cache_key(game, reuse_key)
    cache = _CACHE.pop(key, None) if reuse else None
    if cache is None or not cache.reusable_for(game, net):
        cache = _Cache(game, _capacity(game, iterations), net)
    if reuse:
        while len(_CACHE) >= KEPT_TREES:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = cache
    limit = node_limit()
    balance = float(game.balance_value)
    max_depth = capacity_of(root_st) - int(root_st.meta[M_PLY]) - 1
    max_depth = max(1, min(max_depth, 4 * P + 64))
    max_ply = min(capacity_of(root_st) - 1,
                  int(root_st.meta[M_PLY]) + int(dispatch.policy_move_limit(gid, P)))
    nbr = geo.nbr
    own_sum = np.zeros(P, np.float64)
    counts = {"sims": 0, "evals": 0, "batches": 0, "owned": 0}
    tree_lock = threading.Condition()
    in_flight = [0]  # batches chosen and not yet backed up
    errors: list[BaseException] = []
    stop = threading.Event()
    noised = [root_noise is None]
    start = time.perf_counter()

    def add_root_noise() -> None:
        """Once the root has children (at once on a reused tree, else after the first
        batch), mix the noise into their priors; called under the tree lock."""
        tree = cache.tree
        root = int(tree.counters[C_ROOT])
        first, k = int(tree.first_child[root]), int(tree.num_children[root])
        if noised[0] or first < 0 or k == 0:
            return
        assert root_noise is not None
        share, alpha_total = root_noise
        noise = np.random.default_rng(seed).dirichlet(np.full(k, alpha_total / k))
        priors = tree.prior[first:first + k]
        priors[:] = ((1.0 - share) * priors + share * noise).astype(np.float32)
        noised[0] = True

    add_root_noise()

    def budget_left() -> int:
        if iterations is not None and counts["sims"] >= iterations:
            return 0
        if seconds is not None and counts["sims"] > 0 and time.perf_counter() - start >= seconds:
            return 0
        return batch if iterations is None else min(batch, iterations - counts["sims"])

    def run(s: _Searcher) -> None:
        while not stop.is_set():
            with tree_lock:
                want = budget_left()
                # Room for every leaf in flight and this batch's to expand (up to P + 1
                # children each); a tree full at its limit ends the search, since leaves
                # that cannot expand only repeat their values.
                if want == 0 or not _make_room(cache, (in_flight[0] + 1) * batch * (P + 1), limit):
                    stop.set()
                    tree_lock.notify_all()
                    return
                n = select_leaves(gid, geo, root_st, s.work, cache.tree, params, balance, want,
                                  s.features, s.paths, s.depths, s.kinds, s.legal, s.num_legal,
                                  s.exact_value, s.exact_score, s.to_move, s.rng, max_ply,
                                  s.cand, s.reply, s.rollout)
                if n == 0:
                    if in_flight[0] == 0:  # the tree is full or too deep: nothing to learn
                        stop.set()
                        tree_lock.notify_all()
                        return
                    # Every leaf worth a look is in another searcher's batch: wait for it.
                    tree_lock.wait(0.05)
                    continue
                counts["sims"] += n  # claimed now, so that other searchers see the budget
                in_flight[0] += 1
            try:
                out = _evaluate(net, s, n, P, nbr)
            except BaseException as exc:
                errors.append(exc)
                stop.set()
                raise
            finally:
                with tree_lock:
                    in_flight[0] -= 1
                    tree_lock.notify_all()
            logits, values, scores, ownership, net_rows = out
            with tree_lock:
                expand_and_backup(cache.tree, n, s.paths, s.depths, s.kinds, s.legal, s.num_legal,
                                  logits, values, scores, s.exact_value, s.exact_score,
                                  s.rollout, params)
                add_root_noise()
                counts["evals"] += len(net_rows)
                counts["batches"] += 1
                if analysis and ownership is not None:
                    # The network's ownership is the side to move's; the result's is Black's.
                    sign = np.where(s.to_move[net_rows] == 1, 1.0, -1.0)
                    own_sum[:] += (np.asarray(ownership, np.float64) * sign[:, None]).sum(0)
                    counts["owned"] += len(net_rows)

    searchers = [_Searcher(root_st, game.size, P, batch, max_depth, seed + i) for i in range(threads)]
    if threads == 1:
        run(searchers[0])
    else:
        workers = [threading.Thread(target=run, args=(s,), daemon=True) for s in searchers]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if errors:
            raise errors[0]
    elapsed = time.perf_counter() - start
    result = _result(game, cache.tree, root_st, door, own_sum, counts, elapsed, analysis)
    result.batch = batch
    result.threads = threads
    return result


def _evaluate(net, s: _Searcher, n: int, P: int, nbr):
    """The network's answers for the leaves of a batch that need it (rows ``net_rows``;
    the others' rows stay zero: their exact results are in the searcher). By the
    compiled forward pass: at the search's small batches it is as fast as numpy's on
    one thread (faster below 8 leaves), and it releases the GIL throughout, so that
    several searchers evaluate at once, where numpy's many small calls take turns at
    the GIL and two threads evaluate no faster than one (benchmarks/net_search.py)."""
    net_rows = np.flatnonzero(s.kinds[:n] == LEAF_NET)
    logits = np.zeros((n, P + 1), np.float32)
    values = np.zeros(n, np.float64)
    scores = np.zeros(n, np.float64)
    ownership = None
    if len(net_rows):
        out = net.evaluate_compiled(s.features[net_rows], nbr)
        logits[net_rows] = out.policy_logits
        values[net_rows] = out.value
        if out.score is not None:
            scores[net_rows] = out.score
        ownership = out.ownership
    return logits, values, scores, ownership, net_rows


def _children(tree, node):
    first, count = int(tree.first_child[node]), int(tree.num_children[node])
    if first < 0:
        return []
    out = []
    for c in range(first, first + count):
        visits = int(tree.visits[c])
        if visits == 0:
            continue
        value = float(tree.value_sum[c]) / visits
        out.append((int(tree.move[c]), visits, (value + 1.0) / 2.0, c))
    out.sort(key=lambda t: (-t[1], -t[2]))
    return out


def _result(game, tree, root_st, door, own_sum, counts, elapsed, analysis):
    from hexstones.ai.pysearch import SearchResult

    root = int(tree.counters[C_ROOT])
    children = _children(tree, root)
    named = [(game.move_of(m), v, w) for m, v, w, _ in children]
    visits = int(tree.visits[root])
    # The root holds values for the player who moved into it: the opponent of the mover.
    root_value = -float(tree.value_sum[root]) / visits if visits else 0.0
    pv = principal_variation(game, tree, root, _children)
    black = white = None
    ownership = None
    lead = None
    if analysis and game.has_score and visits:
        # The network's margin is the side to move's; Black's lead, and the two totals
        # split around today's total (what the classic search's playouts report).
        margin = -float(tree.score_sum[root]) / visits
        lead = margin if game.to_move == "black" else -margin
        now = np.zeros(2, np.float64)
        dispatch.score(door.game_id, door.geometry, root_st, now)
        total = float(now[0] + now[1])
        black, white = (total + lead) / 2.0, (total - lead) / 2.0
        if counts["owned"]:
            ownership = [float(x) / counts["owned"] for x in own_sum]
    result = SearchResult(
        root_to_move=game.to_move, children=named, pv=pv, iterations=counts["sims"],
        playouts=counts["evals"], seconds=elapsed, root_win_rate=(root_value + 1.0) / 2.0,
        black_score=black, white_score=white, ownership=ownership,
    )
    result.engine = "net"
    result.score_lead = lead
    result.batches = counts["batches"]
    return result


def warm_up(game) -> None:
    """Compile the network search (first call in a process) so that later budgets are
    honest; nothing without weights for the game."""
    if game.name in _WARM or not supports(game):
        return
    import hexstones

    fresh = hexstones.new_game(game.name, size=3)
    search(fresh, iterations=BATCH + 2, reuse=False)
    _WARM.add(game.name)
