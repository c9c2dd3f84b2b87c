"""A store's server sessions ended as a person (or the server) ends them, for the tests of
what a browser, a command or an MCP server does then: `pg_terminate_backend` from another
real session, and a database that takes no new connection (a server still restarting)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo


def database(url: str) -> str:
    return str(conninfo_to_dict(url)["dbname"])


def maintenance(url: str) -> str:
    """The server's own `postgres` database, beside the store's."""
    return make_conninfo(url, dbname="postgres")


def end_sessions(url: str, where: str = "") -> int:
    """What a person's `pg_terminate_backend` does to every session of the store's database
    (`where`: only those matching it, `AND pid = 42`), waiting until each has ended."""
    with psycopg.connect(maintenance(url), autocommit=True) as conn:
        (ended,) = conn.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
            f" WHERE datname = %s AND backend_type = 'client backend' AND pid <> pg_backend_pid() {where}",
            (database(url),),
        ).fetchone()
    return ended


@contextlib.contextmanager
def no_new_connections(url: str) -> Iterator[None]:
    """The store's database takes no new connection inside (a server restarting, a database
    closed for maintenance): a session ended meanwhile cannot be opened again."""
    with psycopg.connect(maintenance(url), autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{database(url)}" ALLOW_CONNECTIONS false')
        try:
            yield
        finally:
            conn.execute(f'ALTER DATABASE "{database(url)}" ALLOW_CONNECTIONS true')


@contextlib.contextmanager
def server_gone(url: str) -> Iterator[None]:
    """Every session of the store's database ended, and none opened again inside."""
    with no_new_connections(url):
        end_sessions(url)
        yield
