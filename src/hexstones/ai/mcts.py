"""Compiled Monte-Carlo tree search (placeholder until the core kernels land)."""

from __future__ import annotations


def supports(game) -> bool:
    return False


def search(game, **kwargs):
    raise NotImplementedError


def warm_up(game) -> None:
    """Compile the search for ``game``'s kind (no-op when it is not compiled)."""
