"""Keeping numba's disk cache in step with the sources it was compiled from.

Numba's cache only watches each function's own file, but a kernel compiles the helpers
of other files into itself (the search and the RL step compile the core's rules). So a
package whose kernels are built from several files drops its cached machine code
whenever any of those files has changed: one hash of the sources at import, which a
release, whose sources never change, pays once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

CORE = Path(__file__).resolve().parent


def drop_stale_cache(package: Path, sources: Iterable[Path], stamp: str,
                     patterns: Iterable[str] = ("*.nb[ic]",)) -> None:
    """Delete the cache files matching ``patterns`` in ``package``'s ``__pycache__`` unless
    the digest of ``sources`` is the one recorded in the file ``stamp`` there."""
    digest = hashlib.sha256()
    for path in sources:
        try:
            digest.update(path.name.encode() + path.read_bytes())
        except OSError:
            pass
    cache = package / "__pycache__"
    stamp_file = cache / stamp
    try:
        if stamp_file.exists() and stamp_file.read_text() == digest.hexdigest():
            return
        cache.mkdir(exist_ok=True)
        for pattern in patterns:
            for old in cache.glob(pattern):
                old.unlink(missing_ok=True)
        stamp_file.write_text(digest.hexdigest())
    except OSError:
        pass  # a read-only install: its cache matches its sources


def core_sources() -> list[Path]:
    """The core's source files: every kernel built on the core depends on them."""
    return sorted(CORE.glob("*.py"))
