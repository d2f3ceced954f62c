"""The network-guided search: PUCT over the compiled kernels, leaves evaluated in batches.

The compiled part (tree arrays, selection with virtual loss, feature encoding, expansion,
backup) is :mod:`hexstones.ai.puct_tree`; this driver runs its steps, evaluates each
batch of leaves with the game's network (:mod:`hexstones.ai.net`) in one call, keeps the
tree between moves, and turns the tree into a :class:`hexstones.ai.result.SearchResult`
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
from hexstones.ai.levels import (  # noqa: F401  (LEVELS_KEY: re-exported)
    LEVELS_KEY,
    ShippedNetwork,
    shipped_play,
)
from hexstones.ai.result import Child, KeptTrees, SearchResult, TreeCache, principal_variation
from hexstones.core import dispatch
from hexstones.core.common import seed_rng
from hexstones.games.engine import has_kernels
from hexstones.games.observation import NUM_FEATURES

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


# A folder of ``<game>.npz`` (every side) and ``<game>-<side>.npz`` (one side) weights to
# play with instead of the shipped ones (for trying a training run's checkpoint in
# matches); a game without a file there keeps its own.
NETWORK_DIR_VARIABLE = "HEXSTONES_NETWORK_DIR"


def _chosen_file(name: str) -> str | None:
    folder = os.environ.get(NETWORK_DIR_VARIABLE)
    path = os.path.join(folder, f"{name}.npz") if folder else None
    return path if path and os.path.isfile(path) else None


class Networks:
    """The networks this process plays with, each loaded once, and which of them someone
    chose (``$HEXSTONES_NETWORK_DIR``, :meth:`install`): what :func:`network_for`,
    :func:`install_network` and :func:`restore_shipped` read and change. One object,
    :data:`NETWORKS`; a test or a match changes it only through those functions."""

    def __init__(self) -> None:
        self._every: dict[str, Any] = {}  # game -> its network for every side
        self._side: dict[tuple[str, int], Any] = {}  # (game, side) -> that side's own, or None
        # games, and (game, side)s, whose network someone chose (the folder, install)
        self._chosen: set = set()
        self._installed: set = set()  # games given a network by install: it serves every side
        self._lock = threading.Lock()
        self.warm: set = set()  # games whose network search has compiled (warm_up)

    def network(self, game_name: str, size: int | None = None):
        """See :func:`network_for`."""
        from hexstones.ai.net import load_network, read_network

        with self._lock:
            if game_name not in self._every:
                path = _chosen_file(game_name)
                if path:
                    self._every[game_name] = read_network(path)
                    self._chosen.add(game_name)
                else:
                    self._every[game_name] = load_network(game_name)
            if size is None or game_name in self._installed:
                return self._every[game_name]
            key = (game_name, int(size))
            if key not in self._side:
                path = _chosen_file(f"{game_name}-{key[1]}")
                if path:
                    self._side[key] = read_network(path)
                    self._chosen.add(key)
                else:  # a network chosen for every side outranks a shipped one for this side
                    self._side[key] = None if game_name in self._chosen else load_network(game_name, key[1])
            side = self._side[key]
            return self._every[game_name] if side is None else side

    def chosen(self, game_name: str, size: int | None) -> bool:
        """Whether someone chose the network of ``game_name`` for side ``size`` (or for
        every side); ask after :meth:`network`, which notes a network chosen in the folder."""
        return game_name in self._chosen or (game_name, size) in self._chosen

    def shipped_file(self, game_name: str, size: int) -> str | None:
        """The shipped weights file that serves ``game_name`` on side ``size`` (its own,
        ``<game>-<size>.npz``, or the game's, ``<game>.npz``); "" for a network installed to
        stand in for the shipped weights (``install(chosen=False)``), which serves every
        file's sides; None where someone chose the network or none serves. Ask after
        :meth:`network`."""
        from hexstones.ai.net import weights_path

        if self.chosen(game_name, size):
            return None
        if game_name in self._installed:
            return "" if self._every.get(game_name) is not None else None
        if self._side.get((game_name, int(size))) is not None:
            return weights_path(game_name, size).name
        return weights_path(game_name).name if self._every.get(game_name) is not None else None

    def _forget_sides(self, game_name: str) -> None:  # under the lock
        for key in [k for k in self._side if k[0] == game_name]:
            del self._side[key]
            self._chosen.discard(key)

    def install(self, game_name: str, network, chosen: bool = True) -> None:
        """See :func:`install_network`."""
        with self._lock:
            self._every[game_name] = network
            self._forget_sides(game_name)
            self._installed.add(game_name)
            if network is None or not chosen:
                self._chosen.discard(game_name)
            else:
                self._chosen.add(game_name)
        self.warm.discard(game_name)

    def restore(self, game_name: str) -> None:
        """See :func:`restore_shipped`."""
        with self._lock:
            self._every.pop(game_name, None)
            self._forget_sides(game_name)
            self._installed.discard(game_name)
            self._chosen.discard(game_name)
        self.warm.discard(game_name)


NETWORKS = Networks()


def network_for(game_name: str, size: int | None = None):
    """The network ``game_name`` plays with on board side ``size`` (loaded once per
    process), or None. The first there is of: a network given by :func:`install_network`;
    ``$HEXSTONES_NETWORK_DIR/<game>-<size>.npz``, then ``<game>.npz``; the shipped weights
    of that side (``weights/<game>-<size>.npz``), then the game's own (``weights/<game>.npz``).
    Without ``size``: the game's network for every side."""
    return NETWORKS.network(game_name, size)


def install_network(game_name: str, network, chosen: bool = True) -> None:
    """Play ``game_name`` with ``network`` on every side in this process from now on (None:
    with no network, so the classic search plays): for a network file of one's own, and for
    tests of both engines whatever weights ship. ``chosen=False``: the network stands in
    for the shipped weights, so it plays by default where they would
    (:data:`hexstones.ai.levels.NETWORK_PLAYS`)."""
    from hexstones.games import game_class

    game_class(game_name)  # an unknown game is an error
    if network is not None and network.game != game_name:
        raise ValueError(f"that network plays {network.game}, not {game_name}")
    NETWORKS.install(game_name, network, chosen)


def restore_shipped(game_name: str) -> None:
    """Forget what :func:`install_network` installed: ``game_name`` plays as a fresh
    process would (the folder of ``$HEXSTONES_NETWORK_DIR``, else the shipped weights)."""
    NETWORKS.restore(game_name)


def supports(game) -> bool:
    """Whether the network search can play ``game``: compiled kernels and a network."""
    return has_kernels(game) and network_for(game.name, game.size) is not None


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


def default_player(game) -> tuple[ShippedNetwork | None, dict | None]:
    """What plays ``game``'s board side by default (the levels, ``engine="auto"``), for
    :func:`hexstones.ai.levels.engine_of`: ``(None, meta)`` for a network someone chose
    (``$HEXSTONES_NETWORK_DIR``, :func:`install_network`), ``meta`` its metadata; ``(entry,
    None)`` where the shipped weights play, ``entry`` the side's entry of
    :data:`hexstones.ai.levels.NETWORK_PLAYS` (whose file serves the side, or a network
    installed to stand in for the shipped weights); ``(None, None)`` where the classic
    search plays."""
    if not supports(game):
        return None, None
    return _default_on(game.name, game.size)


def _default_on(game_name: str, size: int) -> tuple[ShippedNetwork | None, dict | None]:
    network = network_for(game_name, size)  # first: it notes a network chosen in the folder
    if network is None:
        return None, None
    if NETWORKS.chosen(game_name, size):
        return None, network.meta
    entry = shipped_play(game_name, size)
    serving = NETWORKS.shipped_file(game_name, size)
    if entry is None or serving is None or serving not in ("", entry.weights):
        return None, None
    return entry, None


def plays_by_default(game, any_side: bool = False) -> bool:
    """Whether ``engine="auto"`` (the levels, ``ai.analyze``) plays ``game`` with the
    network (:func:`default_player`): a network someone chose, or the shipped weights on a
    side of :data:`hexstones.ai.levels.NETWORK_PLAYS` (``any_side``: on some side of the
    game, as a warm-up asks)."""
    if not supports(game):
        return False
    sides = type(game).sizes if any_side else (game.size,)
    return any(_default_on(game.name, side) != (None, None) for side in sides)


def default_threads() -> int:
    """Searchers for a timed search: one per core this process may run on, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def new_tree(capacity: int) -> PuctTree:
    """An empty network-search tree with room for ``capacity`` nodes."""
    tree = allocate_tree(capacity)
    reset_tree(tree)
    return tree


# Trees kept for the next move (the classic search's rules of reuse, with the same
# network: :class:`hexstones.ai.result.TreeCache`).
_CACHE = KeptTrees(KEPT_TREES)


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

    def __init__(self, door, P: int, batch: int, max_depth: int, seed: int):
        self.work = door.scratch(copy=True)
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
    Returns a :class:`hexstones.ai.result.SearchResult` with ``engine`` "net".
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
    door = game.compiled_for_search()
    batch = int(batch or BATCH)
    if threads is None:
        threads = 1 if seconds is None else default_threads()
    threads = max(1, int(threads))
    key = _cache_key(game, reuse_key)
    cache = _CACHE.take(key) if reuse else None
    if cache is None or not cache.reusable_for(game, net):
        cache = TreeCache(game, new_tree(_capacity(game, iterations)), net)
    if reuse:
        _CACHE.put(key, cache)
    P = door.num_points
    max_depth = max(1, min(door.room - door.ply - 1, 4 * P + 64))
    run = _Run(door, cache, net, params, float(game.balance_value), batch, seconds, iterations,
               analysis, root_noise, seed)
    searchers = [_Searcher(door, P, batch, max_depth, seed + i) for i in range(threads)]
    if threads == 1:
        run.run(searchers[0])
    else:
        workers = [threading.Thread(target=run.run, args=(s,), daemon=True) for s in searchers]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        if run.errors:
            raise run.errors[0]
    elapsed = time.perf_counter() - run.start
    return _result(game, cache.tree, door, run.own_sum, run.counts, elapsed, analysis,
                   batch, threads)


class _Run:
    """One search's shared state: the tree and its lock, the budget, the counts and the
    ownership sums; every searcher (thread) runs :meth:`run` on it."""

    def __init__(self, door, cache, net, params, balance: float, batch: int, seconds,
                 iterations, analysis: bool, root_noise, seed: int):
        self.door, self.cache, self.net, self.params = door, cache, net, params
        self.balance, self.batch = balance, batch
        self.seconds, self.iterations, self.analysis = seconds, iterations, analysis
        self.root_noise, self.seed = root_noise, seed
        self.limit = node_limit()
        P = door.num_points
        self.max_ply = min(door.room - 1,
                           door.ply + int(dispatch.policy_move_limit(door.game_id, P)))
        self.own_sum = np.zeros(P, np.float64)
        self.counts = {"sims": 0, "evals": 0, "batches": 0, "owned": 0}
        self.tree_lock = threading.Condition()
        self.in_flight = 0  # batches chosen and not yet backed up
        self.errors: list[BaseException] = []
        self.stop = threading.Event()
        self.noised = root_noise is None
        self.start = time.perf_counter()
        self.add_root_noise()

    def add_root_noise(self) -> None:
        """Once the root has children (at once on a reused tree, else after the first
        batch), mix the noise into their priors; called under the tree lock."""
        tree = self.cache.tree
        root = int(tree.counters[C_ROOT])
        first, k = int(tree.first_child[root]), int(tree.num_children[root])
        if self.noised or first < 0 or k == 0:
            return
        assert self.root_noise is not None
        share, alpha_total = self.root_noise
        noise = np.random.default_rng(self.seed).dirichlet(np.full(k, alpha_total / k))
        priors = tree.prior[first:first + k]
        priors[:] = ((1.0 - share) * priors + share * noise).astype(np.float32)
        self.noised = True

    def budget_left(self) -> int:
        counts, iterations, seconds, batch = self.counts, self.iterations, self.seconds, self.batch
        if iterations is not None and counts["sims"] >= iterations:
            return 0
        if seconds is not None and counts["sims"] > 0 and time.perf_counter() - self.start >= seconds:
            return 0
        return batch if iterations is None else min(batch, iterations - counts["sims"])

    def _select(self, s: _Searcher) -> int:
        """Under the tree lock: choose the next batch of ``s``'s leaves; their number, 0
        to wait for other searchers' batches, -1 when the search is over."""
        door, batch = self.door, self.batch
        want = self.budget_left()
        # Room for every leaf in flight and this batch's to expand (up to P + 1
        # children each); a tree full at its limit ends the search, since leaves
        # that cannot expand only repeat their values.
        if want == 0 or not _make_room(self.cache, (self.in_flight + 1) * batch * (door.num_points + 1),
                                       self.limit):
            return -1
        n = select_leaves(door.game_id, door.geometry, door.state, s.work, self.cache.tree,
                          self.params, self.balance, want, s.features, s.paths, s.depths,
                          s.kinds, s.legal, s.num_legal, s.exact_value, s.exact_score,
                          s.to_move, s.rng, self.max_ply, s.cand, s.reply, s.rollout)
        if n == 0 and self.in_flight == 0:  # the tree is full or too deep: nothing to learn
            return -1
        return n

    def run(self, s: _Searcher) -> None:
        tree_lock, counts = self.tree_lock, self.counts
        P, nbr = self.door.num_points, self.door.geometry.nbr
        while not self.stop.is_set():
            with tree_lock:
                n = self._select(s)
                if n < 0:
                    self.stop.set()
                    tree_lock.notify_all()
                    return
                if n == 0:
                    # Every leaf worth a look is in another searcher's batch: wait for it.
                    tree_lock.wait(0.05)
                    continue
                counts["sims"] += n  # claimed now, so that other searchers see the budget
                self.in_flight += 1
            try:
                out = _evaluate(self.net, s, n, P, nbr)
            except BaseException as exc:
                self.errors.append(exc)
                self.stop.set()
                raise
            finally:
                with tree_lock:
                    self.in_flight -= 1
                    tree_lock.notify_all()
            with tree_lock:
                self._back_up(s, n, out)

    def _back_up(self, s: _Searcher, n: int, out) -> None:
        """Under the tree lock: expand and back up a batch with the network's answers."""
        logits, values, scores, ownership, net_rows = out
        expand_and_backup(self.cache.tree, n, s.paths, s.depths, s.kinds, s.legal, s.num_legal,
                          logits, values, scores, s.exact_value, s.exact_score,
                          s.rollout, self.params)
        self.add_root_noise()
        self.counts["evals"] += len(net_rows)
        self.counts["batches"] += 1
        if self.analysis and ownership is not None:
            # The network's ownership is the side to move's; the result's is Black's.
            sign = np.where(s.to_move[net_rows] == 1, 1.0, -1.0)
            self.own_sum[:] += (np.asarray(ownership, np.float64) * sign[:, None]).sum(0)
            self.counts["owned"] += len(net_rows)


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


def _result(game, tree, door, own_sum, counts, elapsed, analysis, batch, threads):
    root = int(tree.counters[C_ROOT])
    children = _children(tree, root)
    named = [Child(game.move_of(m), v, w) for m, v, w, _ in children]
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
        dispatch.score(door.game_id, door.geometry, door.state, now)
        total = float(now[0] + now[1])
        black, white = (total + lead) / 2.0, (total - lead) / 2.0
        if counts["owned"]:
            ownership = [float(x) / counts["owned"] for x in own_sum]
    return SearchResult(
        root_to_move=game.to_move, children=named, pv=pv, iterations=counts["sims"],
        playouts=counts["evals"], seconds=elapsed, root_win_rate=(root_value + 1.0) / 2.0,
        engine="net", black_score=black, white_score=white, ownership=ownership,
        score_lead=lead, batches=counts["batches"], batch=batch, threads=threads,
    )


def warm_up(game) -> None:
    """Compile the network search (first call in a process) so that later budgets are
    honest; nothing without weights for the game."""
    if game.name in NETWORKS.warm or not supports(game):
        return
    import hexstones

    fresh = hexstones.new_game(game.name, size=3)
    search(fresh, iterations=BATCH + 2, reuse=False)
    NETWORKS.warm.add(game.name)
