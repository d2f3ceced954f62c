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


# -- servers for tests of online play ----------------------------------------------------------

@pytest.fixture
def sqlite_servers(tmp_path):
    """One ``hexstones serve`` process on a temporary SQLite file."""
    from serving import Servers

    servers = Servers(str(tmp_path / "games.db"), tmp_path)
    servers.start()
    yield servers
    servers.stop()


@pytest.fixture
def postgresql_servers(tmp_path, request):
    """Two ``hexstones serve`` processes on one new PostgreSQL database (tests/pg.py): the
    people of a test are spread over them, so every change crosses processes."""
    from serving import Servers

    servers = Servers(request.getfixturevalue("postgres_url"), tmp_path, processes=2)
    try:
        servers.start()
        yield servers
    finally:
        servers.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def game_servers(request):
    """The servers a test of online play runs against, one kind of database per parameter:
    a fixture named ``<kind>_servers`` (a PostgreSQL variant adds its kind and fixture)."""
    return request.getfixturevalue(f"{request.param}_servers")
