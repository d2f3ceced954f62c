"""A real PostgreSQL server for the tests: a throwaway cluster in a temporary folder.

``postgres_cluster`` (session) runs ``initdb`` and ``pg_ctl start`` from Debian's
``postgresql`` package (``.ci/run`` installs it) on a free port of 127.0.0.1, as the
``postgres`` user when the tests run as root (PostgreSQL refuses to run as root), and
stops and removes it at the end. ``postgres_url`` (per test) is a new, empty database on
it. Without PostgreSQL's server programs the tests that need them are skipped, saying so.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count

import pytest

from serving import free_port


def server_binaries() -> str | None:
    """The folder of initdb and pg_ctl (the newest installed PostgreSQL), None if none."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


@dataclass
class Cluster:
    folder: str
    port: int
    as_user: list[str]  # the command prefix running a program as the cluster's owner

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as connection:
            connection.execute(statement)


def _run(command: list[str], what: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed ({result.returncode}): {result.stdout}{result.stderr}")


@contextmanager
def throwaway_cluster(binaries: str, durable: bool = False) -> Iterator[Cluster]:
    """A PostgreSQL cluster in a new temporary folder, on a free port of 127.0.0.1, run by
    the ``postgres`` user when this is root; stopped and removed at the end of the block.
    ``durable``: each commit waits for the disk (fsync), as a real server's would; tests
    leave it off (fsync off: a test cluster need not survive a power cut)."""
    as_user: list[str] = []
    folder = tempfile.mkdtemp(prefix="hexstones-pg-")
    if os.geteuid() == 0:  # PostgreSQL will not run as root: its own user owns the cluster
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, sockets, log = (os.path.join(folder, name) for name in ("data", "sockets", "log"))
    port = free_port()
    try:
        _run([*as_user, f"{binaries}/initdb", "-D", data, "-U", "postgres", "--auth=trust",
              "-E", "UTF8", "--no-sync"], "initdb")
        _run([*as_user, "mkdir", sockets], "mkdir")
        _run([*as_user, f"{binaries}/pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o",
              f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync={'on' if durable else 'off'} "
              f"-c max_connections=300", "start"], "pg_ctl start")
        yield Cluster(folder, port, as_user)
    finally:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            subprocess.run([*as_user, f"{binaries}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server programs (initdb, pg_ctl): install Debian's postgresql "
                    "package (.ci/run does) to run the PostgreSQL tests")
    with throwaway_cluster(binaries) as cluster:
        yield cluster


_numbers = count()


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """A new, empty database on the test cluster; dropped after the test."""
    name = f"hexstones_test_{os.getpid()}_{next(_numbers)}"
    postgres_cluster.sql(f"CREATE DATABASE {name}")
    try:
        yield postgres_cluster.url(name)
    finally:
        postgres_cluster.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
