"""The agent's role of docs/postgres.md, for the tests that act under it."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "postgres.md"
CREATE = ("CREATE ROLE synapse_agent NOLOGIN;", "CREATE ROLE scout LOGIN IN ROLE synapse_agent;")


def documented_sql() -> str:
    """The SQL block of the guide's "An agent's role", as a reader would copy it."""
    section = DOC.read_text(encoding="utf-8").split("## An agent's role", 1)[1]
    return re.search(r"```sql\n(.*?)```", section, re.S).group(1)


def scout_login(url: str, password: str = "") -> str:
    """Runs the guide's SQL on the store at `url` as its owner and returns the location that
    logs in as the agent `scout` (with `password` in it: the test server trusts its socket,
    so it is never checked, only never shown). The roles are the server's: a module that
    made them first leaves them for the next, which grants on its own database only."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as owner:
        sql = documented_sql()
        if owner.execute("SELECT 1 FROM pg_roles WHERE rolname = 'scout'").fetchone():
            for statement in CREATE:
                sql = sql.replace(statement, "")
        owner.execute(sql)
    scout = url.replace("://postgres:@", f"://scout:{password}@")
    assert scout != url
    return scout
