"""Environments for learning research: PettingZoo, Gymnasium and a compiled vector env.

* :func:`env` -- a PettingZoo AEC env of one game (agents ``"black"``, ``"white"``);
* :class:`SingleAgentEnv` -- a Gymnasium env: one player against a chosen opponent;
* :class:`VectorEnv` -- many games stepped by one compiled call (Gymnasium vector API);
* :func:`observe`, :func:`action_mask` -- the planes and mask of any game object;
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

import hashlib
from pathlib import Path


def _drop_stale_cache() -> None:
    """Numba's disk cache only watches each function's own file, but the step kernels
    compile the core's rules into themselves: drop every cached ``rl`` kernel whenever a
    core or ``rl`` source has changed (else an edited rule would keep its old machine code
    here)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(here.parent.joinpath("core").glob("*.py")) + sorted(here.glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    cache = here / "__pycache__"
    stamp = cache / "rl-sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        cache.mkdir(exist_ok=True)
        for old in cache.glob("*.nb[ic]"):
            old.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: its cache matches its sources


_drop_stale_cache()

from hexstones.rl.aec import env, raw_env  # noqa: E402  (after the cache check)
from hexstones.rl.planes import (  # noqa: E402
    NUM_PLANES,
    PLANES,
    Symmetries,
    action_mask,
    embedding,
    observe,
    other_view,
    symmetries,
)
from hexstones.rl.single import SingleAgentEnv, make_opponent  # noqa: E402
from hexstones.rl.vector import VectorEnv, default_max_moves  # noqa: E402

__all__ = [
    "env", "raw_env", "SingleAgentEnv", "make_opponent", "VectorEnv", "default_max_moves",
    "observe", "action_mask", "other_view", "embedding", "PLANES", "NUM_PLANES",
    "Symmetries", "symmetries",
]
