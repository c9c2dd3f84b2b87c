"""The test server itself: each module gets a database of its own, empty, on one server."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.postgres


def test_each_database_starts_empty_and_apart(new_database):
    import psycopg

    first, second = new_database(), new_database()
    assert first != second
    with psycopg.connect(first, autocommit=True) as conn:
        conn.execute("CREATE TABLE here (x int)")
    with psycopg.connect(second) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert tables == (0,)
