"""Shared test set-up: compile the numba kernels once, before any test starts a process.

The compiled core and search are cached on disk by numba; the first process on a clean
checkout pays the compile. Doing it here, once, means the engine, CLI and server
processes the tests start load machine code instead of each compiling on its own.
"""

from __future__ import annotations

import pytest

from pg import postgres_cluster, postgres_url  # noqa: F401  (fixtures: a real PostgreSQL server)


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    import hexstones
    from hexstones import ai

    for name in hexstones.GAME_NAMES:
        game = hexstones.new_game(name, size=3)
        hexstones.playouts(game, 1, seed=0)
        ai.choose_move(game, iterations=4, seed=0)
        ai.choose_move(game, level=1, seed=0)
        ai.analyze(game, iterations=4, seed=0)
