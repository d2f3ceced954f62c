"""Environments for learning research: PettingZoo, Gymnasium and a compiled vector env.

* :func:`env` -- a PettingZoo AEC env of one game (agents ``"black"``, ``"white"``);
* :class:`SingleAgentEnv` -- a Gymnasium env: one player against a chosen opponent;
* :class:`VectorEnv` -- many games stepped by one compiled call (Gymnasium vector API);
* :func:`observe`, :func:`action_mask` -- the planes (the features of
  :mod:`hexstones.games.observation` on a grid) and mask of any game object;
* :func:`other_view` -- the planes of a position seen by the other player;
* :func:`symmetries` -- the board's 12 symmetries as index maps.

Needs the ``rl`` extra (``pip install "hexstones[rl]"``: pettingzoo, gymnasium).
docs/rl.md describes the spaces, the planes, the embedding and the symmetries.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"hexstones.rl needs the rl extra ({exc.name} is missing): "
        'pip install "hexstones[rl]"'
    ) from exc

from pathlib import Path

from hexstones.core.cache import core_sources, drop_stale_cache

# The step kernels compile the core's rules, the game API's accessors of
# hexstones.games.compiled and the encoder of hexstones.games.observation into themselves
# (hexstones.core.cache).
_HERE = Path(__file__).resolve().parent
drop_stale_cache(_HERE, core_sources() + sorted(_HERE.glob("*.py"))
                 + [_HERE.parent / "games" / n for n in ("compiled.py", "observation.py")],
                 "rl-sources.sha256")

from hexstones.games.observation import other_view  # noqa: E402
from hexstones.rl.aec import env, raw_env  # noqa: E402  (after the cache check)
from hexstones.rl.planes import (  # noqa: E402
    NUM_PLANES,
    PLANES,
    Symmetries,
    action_mask,
    embedding,
    observe,
    symmetries,
)
from hexstones.rl.single import SingleAgentEnv, make_opponent  # noqa: E402
from hexstones.rl.vector import VectorEnv, default_max_moves  # noqa: E402

__all__ = [
    "env", "raw_env", "SingleAgentEnv", "make_opponent", "VectorEnv", "default_max_moves",
    "observe", "action_mask", "other_view", "embedding", "PLANES", "NUM_PLANES",
    "Symmetries", "symmetries",
]
