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


# -- the app in-process, on a real SQLite file -------------------------------------------------

@pytest.fixture
def db(tmp_path):
    """A new SQLite file's path (the app creates the file)."""
    return str(tmp_path / "games.db")


@pytest.fixture
def client(db):
    """The app on ``db`` through FastAPI's TestClient: an exception in the app fails the test."""
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    with TestClient(create_app(db)) as c:
        yield c


@pytest.fixture
def lenient_client(db):
    """The app on ``db``, with an exception in the app answered as a 500, as a real client
    sees it (tests of hostile input check that every answer is a clean one)."""
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    with TestClient(create_app(db), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def module_client(tmp_path_factory):
    """One app for a whole module, on its own SQLite file: for tests that store nothing
    another test could see (each asks about its own position)."""
    from fastapi.testclient import TestClient

    from hexstones.web import create_app

    with TestClient(create_app(str(tmp_path_factory.mktemp("app") / "games.db"))) as c:
        yield c


# -- servers: ``hexstones serve`` in a subprocess (tests/serving.py) ---------------------------

@pytest.fixture
def server(tmp_path):
    """One server process on a new SQLite file, for one test."""
    from serving import Server

    srv = Server(str(tmp_path / "games.db"), tmp_path / "games.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    """One server process on a new SQLite file, shared by a module's tests (each makes its
    own games)."""
    from serving import Server

    folder = tmp_path_factory.mktemp("server")
    srv = Server(str(folder / "games.db"), folder / "games.log")
    srv.start()
    yield srv
    srv.stop()


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


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, headless, driven by Playwright (the browser tests' one browser)."""
    from playwright.sync_api import sync_playwright

    from serving import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def person(browser):
    """A factory of people: each a browser context of its own (own cookies; Playwright's
    context options, e.g. a phone's ``viewport``), one page; a JavaScript error on any of
    their pages fails the test."""
    from serving import WAIT_MS

    contexts, errors = [], []

    def make(**options):
        context = browser.new_context(**{"viewport": {"width": 1200, "height": 900}, **options})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda e: errors.append(str(e)))
        return page

    yield make
    for c in contexts:
        c.close()
    assert errors == [], f"JavaScript errors on the pages: {errors}"


@pytest.fixture
def clock():
    """The time of the app a test makes with ``create_app(clock=clock)``, moved by the test."""
    from serving import HandClock

    return HandClock()
