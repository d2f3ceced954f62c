"""The policy/value network, evaluated with numpy only (no PyTorch at play time).

Its inputs are the features of :mod:`hexstones.games.observation`, one row per point,
seen by the side to move (the shipped weights were trained on exactly those values).
One network serves every board side of a game: its convolutions read a point and its six
neighbours through the geometry's neighbour table (``nbr``, -1 off the board, read as
zeros: :func:`geometry_of`), and global pooling (mean, size-scaled mean, max over the board's points) carries
whole-board facts and the board's size to every point and to the heads.

Architecture (KataGo's shape, scaled down for a CPU)::

    features [B, P, C]
      -> hex conv (7 weight matrices: the point, then its neighbours in nbr's order) -> ReLU
      -> N residual blocks: hex conv -> ReLU -> + linear(pool(.)) -> ReLU -> hex conv,
                            added to the block's input -> ReLU
      -> policy head: 1x1 conv + linear(pool(trunk)) -> ReLU -> a logit per point;
                      the special move's logit from the pooled policy features
      -> value head:  pool(trunk) -> linear -> ReLU -> tanh (value), linear (score margin)
      -> ownership:   1x1 conv of the trunk -> tanh (games with a score)

The weights are a ``.npz`` of float32 arrays named as in :func:`param_shapes`, with the
configuration and how the weights were made (``meta``) as a JSON string under
``__config__``. Training (``hexstones.train``, PyTorch) writes and reads the same
files, and its module computes the same function (the tests hold the two together).
"""

from __future__ import annotations

import hashlib
import json
import math
from importlib import resources
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from hexstones.core.layout import geometry
from hexstones.games import game_class
from hexstones.games.observation import NUM_FEATURES

# The score head's output is this many points per unit (keeps its weights near 1).
SCORE_SCALE = 10.0
# Default shape of a game's network: small enough for one CPU core.
DEFAULT_CHANNELS = 32
DEFAULT_BLOCKS = 4
DEFAULT_HEAD = 16
DEFAULT_VALUE_HIDDEN = 32


def geometry_of(game) -> np.ndarray:
    """The neighbour table ``int32[P, 6]`` (-1 off the board) the network convolves over
    on ``game``'s board."""
    return geometry(game.size).nbr


class NetOutput(NamedTuple):
    policy_logits: np.ndarray          # float32[B, P+1] over the game's actions
    value: np.ndarray                  # float32[B] in [-1, 1], for the side to move
    score: np.ndarray | None           # float32[B] score margin for the side to move, or None
    ownership: np.ndarray | None       # float32[B, P] in [-1, 1], +1 the side to move's, or None


def param_shapes(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight array of a network with ``config``."""
    C, W = config["num_features"], config["channels"]
    H, V = config["head_channels"], config["value_hidden"]
    shapes: dict[str, tuple[int, ...]] = {"stem_w": (7 * C, W), "stem_b": (W,)}
    for i in range(config["blocks"]):
        shapes |= {f"b{i}_c1_w": (7 * W, W), f"b{i}_c1_b": (W,),
                   f"b{i}_g_w": (3 * W, W), f"b{i}_g_b": (W,),
                   f"b{i}_c2_w": (7 * W, W), f"b{i}_c2_b": (W,)}
    shapes |= {"p_c_w": (W, H), "p_c_b": (H,), "p_g_w": (3 * W, H),
               "p_o_w": (H, 1), "p_o_b": (1,), "p_s_w": (3 * H, 1), "p_s_b": (1,),
               "v_f_w": (3 * W, V), "v_f_b": (V,), "v_o_w": (V, 1), "v_o_b": (1,)}
    if config["has_score"]:
        shapes |= {"s_o_w": (V, 1), "s_o_b": (1,), "o_w": (W, 1), "o_b": (1,)}
    return shapes


def default_config(game_name: str, **changes: Any) -> dict[str, Any]:
    config = {"game": game_name, "num_features": NUM_FEATURES, "channels": DEFAULT_CHANNELS,
              "blocks": DEFAULT_BLOCKS, "head_channels": DEFAULT_HEAD,
              "value_hidden": DEFAULT_VALUE_HIDDEN,
              "has_score": bool(game_class(game_name).has_score)}
    config.update(changes)
    return config


def init_params(config: dict[str, Any], seed: int = 0) -> dict[str, np.ndarray]:
    """Random weights (He initialisation; each block's last conv starts small, so a deep
    net starts near the identity). Training starts from these too."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(config).items():
        if name.endswith("_b"):
            params[name] = np.zeros(shape, np.float32)
            continue
        scale = math.sqrt(2.0 / shape[0])
        if "_c2_" in name or name.startswith(("p_o", "p_s", "v_o", "s_o", "o_")):
            scale *= 0.1
        params[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return params


def gather_index(nbr: np.ndarray) -> np.ndarray:
    """``int[P, 7]``: each point, then its six neighbours, with ``P`` (a zero row) for
    "off the board"."""
    P = nbr.shape[0]
    idx = np.empty((P, 7), np.intp)
    idx[:, 0] = np.arange(P)
    idx[:, 1:] = np.where(nbr < 0, P, nbr)
    return idx


def size_scale(num_points: int) -> float:
    return (math.sqrt(num_points) - 10.0) / 5.0


def _pool(x: np.ndarray) -> np.ndarray:
    """[B, P, W] -> [B, 3W]: mean, mean scaled by the board's size, max."""
    mean = x.mean(axis=1)
    return np.concatenate([mean, mean * size_scale(x.shape[1]), x.max(axis=1)], axis=1)


def _hexconv(x: np.ndarray, idx: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    B, P, C = x.shape
    padded = np.concatenate([x, np.zeros((B, 1, C), x.dtype)], axis=1)
    return np.take(padded, idx, axis=1).reshape(B, P, 7 * C) @ w + b


def forward(params: dict[str, np.ndarray], config: dict[str, Any], features: np.ndarray,
            nbr: np.ndarray) -> NetOutput:
    """The network's function in numpy (float32)."""
    x = np.asarray(features, np.float32)
    if x.ndim != 3 or x.shape[2] != config["num_features"] or x.shape[1] != nbr.shape[0]:
        raise ValueError(f"features are [B, {nbr.shape[0]}, {config['num_features']}], "
                         f"not {list(x.shape)}")
    idx = gather_index(nbr)
    p = params
    x = np.maximum(_hexconv(x, idx, p["stem_w"], p["stem_b"]), 0)
    for i in range(config["blocks"]):
        h = np.maximum(_hexconv(x, idx, p[f"b{i}_c1_w"], p[f"b{i}_c1_b"]), 0)
        h = np.maximum(h + (_pool(h) @ p[f"b{i}_g_w"] + p[f"b{i}_g_b"])[:, None, :], 0)
        x = np.maximum(x + _hexconv(h, idx, p[f"b{i}_c2_w"], p[f"b{i}_c2_b"]), 0)
    pooled = _pool(x)
    ph = np.maximum(x @ p["p_c_w"] + p["p_c_b"] + (pooled @ p["p_g_w"])[:, None, :], 0)
    point_logits = (ph @ p["p_o_w"] + p["p_o_b"])[..., 0]
    special_logit = _pool(ph) @ p["p_s_w"] + p["p_s_b"]
    logits = np.concatenate([point_logits, special_logit], axis=1)
    vh = np.maximum(pooled @ p["v_f_w"] + p["v_f_b"], 0)
    value = np.tanh(vh @ p["v_o_w"] + p["v_o_b"])[:, 0]
    score = ownership = None
    if config["has_score"]:
        score = ((vh @ p["s_o_w"] + p["s_o_b"])[:, 0] * SCORE_SCALE).astype(np.float32)
        ownership = np.tanh(x @ p["o_w"] + p["o_b"])[..., 0].astype(np.float32)
    return NetOutput(logits.astype(np.float32), value.astype(np.float32), score, ownership)


# -- the same function compiled (numba), one position at a time: no numpy call overhead,
# but no BLAS either (numba's np.dot needs SciPy); benchmarks/net_eval.py compares them --

@njit(cache=True, fastmath=True)
def _matmul(a, b):
    """``a @ b`` for 2-D float32 arrays (numba's np.dot needs SciPy's BLAS; the inner
    loop runs along b's rows, which LLVM vectorises)."""
    n, k = a.shape
    m = b.shape[1]
    out = np.zeros((n, m), np.float32)
    for i in range(n):
        for j in range(k):
            v = a[i, j]
            if v != 0.0:
                for c in range(m):
                    out[i, c] += v * b[j, c]
    return out


@njit(cache=True, fastmath=True, inline="always")
def _dot(a, r, bt, c):
    """Row ``r`` of ``a`` times row ``c`` of ``bt``."""
    s = np.float32(0.0)
    for j in range(a.shape[1]):
        s += a[r, j] * bt[c, j]
    return s


@njit(cache=True, fastmath=True)
def _matmul_t(a, bt, out):
    """``out = a @ bt.T`` for 2-D float32 arrays, ``bt`` the transposed weights: dot
    products along ``a``'s rows, two rows by four columns at a time, so that each load
    of ``a`` and of ``bt`` feeds several multiply-adds held in registers (about 4x
    :func:`_matmul`'s speed on a convolution's shapes, where it is most of the time)."""
    n, k = a.shape
    m = bt.shape[0]
    z = np.float32(0.0)
    i = 0
    while i + 2 <= n:
        c = 0
        while c + 4 <= m:
            s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = z
            for j in range(k):
                x0 = a[i, j]
                x1 = a[i + 1, j]
                w0 = bt[c, j]
                w1 = bt[c + 1, j]
                w2 = bt[c + 2, j]
                w3 = bt[c + 3, j]
                s00 += x0 * w0
                s01 += x0 * w1
                s02 += x0 * w2
                s03 += x0 * w3
                s10 += x1 * w0
                s11 += x1 * w1
                s12 += x1 * w2
                s13 += x1 * w3
            out[i, c], out[i, c + 1], out[i, c + 2], out[i, c + 3] = s00, s01, s02, s03
            out[i + 1, c], out[i + 1, c + 1], out[i + 1, c + 2], out[i + 1, c + 3] = (
                s10, s11, s12, s13)
            c += 4
        for cc in range(c, m):  # the columns left over, then the rows
            out[i, cc] = _dot(a, i, bt, cc)
            out[i + 1, cc] = _dot(a, i + 1, bt, cc)
        i += 2
    for r in range(i, n):
        for cc in range(m):
            out[r, cc] = _dot(a, r, bt, cc)


@njit(cache=True)
def _hexconv_into(x, idx, wt, b, out):
    # x [P, C], idx [P, 7] (P = zero row), wt [W, 7C] (the weights transposed)
    P, C = x.shape
    buf = np.empty((P, 7 * C), np.float32)
    for p in range(P):
        for d in range(7):
            q = idx[p, d]
            if q < P:
                for c in range(C):
                    buf[p, d * C + c] = x[q, c]
            else:
                for c in range(C):
                    buf[p, d * C + c] = 0.0
    _matmul_t(buf, wt, out)
    for p in range(P):
        for c in range(out.shape[1]):
            out[p, c] += b[c]

@njit(cache=True)
def _pool_into(h, scale, g):
    P, W = h.shape
    for c in range(W):
        s = 0.0
        m = -np.inf
        for p in range(P):
            s += h[p, c]
            if h[p, c] > m:
                m = h[p, c]
        g[c] = s / P
        g[W + c] = s / P * scale
        g[2 * W + c] = m

@njit(cache=True, nogil=True)  # nogil: the search's threads evaluate while others search
def _forward_one(x, idx, scale, stem_w, stem_b, c1w, c1b, gw, gb, c2w, c2b,
                pcw, pcb, pgw, pow_, pob, psw, psb, vfw, vfb, vow, vob, sow, sob, ow, ob,
                has_score, logits, out_vals, own):
    P = x.shape[0]
    W = stem_b.shape[0]
    t = np.empty((P, W), np.float32)
    h = np.empty((P, W), np.float32)
    h2 = np.empty((P, W), np.float32)
    g = np.empty(3 * W, np.float32)
    _hexconv_into(x, idx, stem_w, stem_b, t)
    t = np.maximum(t, 0)
    for i in range(c1w.shape[0]):
        _hexconv_into(t, idx, c1w[i], c1b[i], h)
        h = np.maximum(h, 0)
        _pool_into(h, scale, g)
        bias = _matmul(g.reshape(1, -1), gw[i])[0] + gb[i]
        for p in range(P):
            for c in range(W):
                v = h[p, c] + bias[c]
                h[p, c] = v if v > 0 else 0.0
        _hexconv_into(h, idx, c2w[i], c2b[i], h2)
        for p in range(P):
            for c in range(W):
                v = t[p, c] + h2[p, c]
                t[p, c] = v if v > 0 else 0.0
    _pool_into(t, scale, g)
    gp = g.reshape(1, -1)
    H = pcb.shape[0]
    ph = np.empty((P, H), np.float32)
    _matmul_t(t, pcw, ph)
    ph += pcb + _matmul(gp, pgw)
    ph = np.maximum(ph, 0)
    pl = np.empty((P, 1), np.float32)
    _matmul_t(ph, pow_, pl)
    for p in range(P):
        logits[p] = pl[p, 0] + pob[0]
    gh = np.empty(3 * H, np.float32)
    _pool_into(ph, scale, gh)
    logits[P] = _matmul(gh.reshape(1, -1), psw)[0, 0] + psb[0]
    vh = np.maximum(_matmul(gp, vfw)[0] + vfb, 0).reshape(1, -1)
    out_vals[0] = math.tanh(_matmul(vh, vow)[0, 0] + vob[0])
    if has_score:
        out_vals[1] = (_matmul(vh, sow)[0, 0] + sob[0]) * SCORE_SCALE
        o = np.empty((P, 1), np.float32)
        _matmul_t(t, ow, o)
        for p in range(P):
            own[p] = math.tanh(o[p, 0] + ob[0])


def pack(params: dict[str, np.ndarray], config: dict[str, Any]) -> tuple:
    """The weights as :func:`_forward_one` takes them (the blocks' weights stacked, the
    per-point layers' transposed)."""
    p = params
    n = config["blocks"]

    def stack(part):
        return np.ascontiguousarray(np.stack([p[f"b{i}_{part}"] for i in range(n)]))

    def conv(weights):  # per-point layers' weights transposed, for _matmul_t
        return np.ascontiguousarray(np.swapaxes(weights, -1, -2))
    V, W = config["value_hidden"], config["channels"]
    if config["has_score"]:
        score = (p["s_o_w"], p["s_o_b"], conv(p["o_w"]), p["o_b"])
    else:
        score = (np.zeros((V, 1), np.float32), np.zeros(1, np.float32),
                 np.zeros((1, W), np.float32), np.zeros(1, np.float32))
    return (conv(p["stem_w"]), p["stem_b"], conv(stack("c1_w")), stack("c1_b"), stack("g_w"),
            stack("g_b"), conv(stack("c2_w")), stack("c2_b"), conv(p["p_c_w"]), p["p_c_b"],
            p["p_g_w"], conv(p["p_o_w"]), p["p_o_b"], p["p_s_w"], p["p_s_b"], p["v_f_w"],
            p["v_f_b"], p["v_o_w"], p["v_o_b"], *score)


@njit(cache=True, nogil=True)
def _forward_batch(x, idx, scale, packed, has_score, logits, vals, own):
    # One compiled call a batch: a call from Python unboxes every weight array (some
    # 10 us), which a call a position paid for each.
    for b in range(x.shape[0]):
        _forward_one(x[b], idx, scale, *packed, has_score, logits[b], vals[b], own[b])


def forward_compiled(packed: tuple, config: dict[str, Any], features: np.ndarray,
                     nbr: np.ndarray, idx: np.ndarray | None = None) -> NetOutput:
    """:func:`forward` by the compiled code, position by position; ``idx`` is
    ``gather_index(nbr)`` as int32 where the caller keeps it."""
    x = np.ascontiguousarray(features, np.float32)
    if x.ndim != 3 or x.shape[2] != config["num_features"] or x.shape[1] != nbr.shape[0]:
        raise ValueError(f"features are [B, {nbr.shape[0]}, {config['num_features']}], "
                         f"not {list(x.shape)}")
    B, P, _ = x.shape
    if idx is None:
        idx = gather_index(nbr).astype(np.int32)
    logits = np.empty((B, P + 1), np.float32)
    vals = np.zeros((B, 2), np.float32)
    own = np.zeros((B, P), np.float32)
    has = bool(config["has_score"])
    _forward_batch(x, idx, size_scale(P), packed, has, logits, vals, own)
    return NetOutput(logits, vals[:, 0].copy(), vals[:, 1].copy() if has else None,
                     own if has else None)


class Network:
    """A game's network: its weights, its configuration, and how it was made."""

    def __init__(self, config: dict[str, Any], params: dict[str, np.ndarray],
                 trained: bool, meta: dict[str, Any] | None = None):
        shapes = param_shapes(config)
        missing = set(shapes) - set(params)
        if missing:
            raise ValueError(f"the weights lack {sorted(missing)}")
        for name, shape in shapes.items():
            if params[name].shape != shape:
                raise ValueError(f"weight {name} is {params[name].shape}, not {shape}")
        self.config = dict(config)
        self.game: str = config["game"]
        self.params = {name: np.ascontiguousarray(params[name], np.float32) for name in shapes}
        self.trained = trained
        self.meta: dict[str, Any] = dict(meta or {})
        self._packed: tuple | None = None
        self._gather: tuple[np.ndarray, np.ndarray] | None = None
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        """12 hex digits naming these weights and the playout share they are searched with:
        what a game record says its network player used, so that games of other weights
        are told apart (a komi study resumed after the network changed)."""
        if self._fingerprint is None:
            digest = hashlib.sha256(json.dumps([self.config, self.meta.get("playout_mix")],
                                               sort_keys=True).encode())
            for name in sorted(self.params):
                digest.update(name.encode())
                digest.update(self.params[name].tobytes())
            self._fingerprint = digest.hexdigest()[:12]
        return self._fingerprint

    @property
    def num_parameters(self) -> int:
        return sum(a.size for a in self.params.values())

    def evaluate(self, features: np.ndarray, geo_nbr: np.ndarray) -> NetOutput:
        """Evaluate a batch ``float32[B, P, C]`` of positions of one board side, whose
        neighbour table is ``geo_nbr`` (``geometry.nbr``, ``int32[P, 6]``)."""
        return forward(self.params, self.config, features, np.asarray(geo_nbr))

    evaluate_numpy = evaluate

    def evaluate_symmetrized(self, features: np.ndarray, geo_nbr: np.ndarray,
                             action_images: np.ndarray) -> NetOutput:
        """The outputs averaged over the board's 12 symmetries (``action_images`` is
        ``game.action_symmetries()``, ``[12, P+1]``): exactly symmetric, at 12 times the
        cost. Every feature is per point, so a turned position is its rows permuted."""
        images = np.asarray(action_images)
        B, P, _ = features.shape
        sources = np.argsort(images, axis=1)
        turned = np.concatenate([features[:, sources[k, :P]] for k in range(12)])
        out = self.evaluate(turned, geo_nbr)

        def back(a, cols):  # turn each symmetry's outputs back, then average
            return np.mean([a[k * B:(k + 1) * B][:, images[k, :cols]] for k in range(12)], axis=0)
        value = out.value.reshape(12, B).mean(axis=0)
        score = None if out.score is None else out.score.reshape(12, B).mean(axis=0)
        own = None if out.ownership is None else back(out.ownership, P).astype(np.float32)
        return NetOutput(back(out.policy_logits, P + 1).astype(np.float32),
                         value.astype(np.float32), score, own)

    def evaluate_compiled(self, features: np.ndarray, geo_nbr: np.ndarray) -> NetOutput:
        """The same by the compiled forward pass (numba, no BLAS): measured against numpy
        by benchmarks/net_eval.py (figures in docs/ai.md)."""
        if self._packed is None:
            self._packed = pack(self.params, self.config)
        nbr = np.asarray(geo_nbr)
        kept = self._gather
        if kept is None or kept[0] is not nbr:  # the search asks with one table again and again
            kept = self._gather = (nbr, gather_index(nbr).astype(np.int32))
        return forward_compiled(self._packed, self.config, features, nbr, kept[1])

    def save(self, target) -> None:
        """Write the weights, configuration and ``meta`` as one ``.npz`` (a path or a
        binary file object)."""
        header = json.dumps({"config": self.config, "trained": self.trained, "meta": self.meta})
        arrays: dict[str, Any] = {"__config__": np.array(header), **self.params}
        if hasattr(target, "write"):
            np.savez_compressed(target, **arrays)
            return
        with open(target, "wb") as f:
            np.savez_compressed(f, **arrays)

    def __repr__(self) -> str:
        c = self.config
        return (f"Network({self.game}, {c['blocks']} blocks x {c['channels']} channels, "
                f"{self.num_parameters} parameters, {'trained' if self.trained else 'random'})")


def read_network(path) -> Network:
    """A network from a ``.npz`` written by :meth:`Network.save`."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__config__"]))
        params = {name: data[name] for name in data.files if name != "__config__"}
    return Network(header["config"], params, bool(header["trained"]), header.get("meta"))


def weights_path(game_name: str, size: int | None = None):
    """Where the shipped weights of ``game_name`` live (a package resource): the game's
    own (``<game>.npz``, for every side), or those of side ``size`` alone (``<game>-<size>.npz``)."""
    name = game_name if size is None else f"{game_name}-{int(size)}"
    return resources.files("hexstones.ai").joinpath("weights", f"{name}.npz")


def sides_named(game_name: str, file_names) -> list[int]:
    """The board sides that files named ``<game>-<side>.npz`` among ``file_names`` are for."""
    prefix = f"{game_name}-"
    names = [n[len(prefix):-len(".npz")] for n in file_names
             if n.startswith(prefix) and n.endswith(".npz")]
    return sorted(int(n) for n in names if n.isdigit())


def shipped_sides(game_name: str) -> list[int]:
    """The board sides of ``game_name`` that ship weights of their own (``<game>-<size>.npz``)."""
    return sides_named(game_name, (p.name for p in weights_path(game_name).parent.iterdir()))


def load_network(game_name: str, size: int | None = None) -> Network | None:
    """The shipped network of ``game_name`` (with ``size``: the one of that board side
    alone), or ``None`` where none ships."""
    game_class(game_name)  # an unknown game is an error, not "no network"
    path = weights_path(game_name, size)
    if not path.is_file():
        return None
    with resources.as_file(path) as found:
        return read_network(found)


def random_network(game_name: str, seed: int = 0, **config_changes: Any) -> Network:
    """An untrained network (random weights), evaluated by the same code as a trained one."""
    config = default_config(game_name, **config_changes)
    return Network(config, init_params(config, seed), trained=False,
                   meta={"made_by": "random_network", "seed": seed})
