"""What the agent's role of docs/postgres.md can no longer forge, whatever the client
(issue 37, point 3): an audit entry as a person or under another role, a change of r or s
with no audit entry, the recorded sources, the fitted constants, the store's kind; the
audit stays append-only; the owner's next moves after a forged row are never an internal
error; and the role's `import --from` works or is refused in one line."""

from __future__ import annotations

import json

import pytest

from tests.helpers import NOW, base_facts, run
from tests.postgres.roles import scout_login

pytestmark = pytest.mark.postgres


@pytest.fixture
def agent(tmp_path, new_database):
    """(the store's URL, the agent's URL, a connection as the agent `scout`)."""
    import psycopg

    src = tmp_path / "facts.jsonl"
    src.write_text("".join(json.dumps(f) + "\n" for f in base_facts()), encoding="utf-8")
    run("import", src, "--db", tmp_path / "m.db")
    url = new_database()
    run("copy", tmp_path / "m.db", url)
    as_scout = scout_login(url)
    with psycopg.connect(as_scout, autocommit=True) as conn:
        yield url, as_scout, conn


def refused(conn, sql: str, args: tuple = ()) -> str:
    import psycopg

    with pytest.raises(psycopg.errors.InsufficientPrivilege) as caught:
        conn.execute(sql, args or None)
    return str(caught.value)


def owner_row(url: str, sql: str, args: tuple = ()):
    import psycopg

    with psycopg.connect(url) as owner:
        return owner.execute(sql, args).fetchall()


AUDIT = "INSERT INTO audit (at, actor, action, fact_id, role, batch) VALUES (%s, %s, %s, %s, %s, %s)"


def test_the_audit_is_written_as_an_agent_under_its_own_role(agent):
    url, _, conn = agent
    said = refused(conn, AUDIT, (NOW, "user:alice", "verify", "e", "postgres", 999))
    assert "agent:NAME" in said
    refused(conn, AUDIT, (NOW, "alice", "verify", "e", None, 999))
    conn.execute(AUDIT, (NOW, "agent:scout", "verify", "e", "postgres", 999))  # a role it is not
    assert owner_row(url, "SELECT actor, role FROM audit WHERE batch = 999") == [("agent:scout", "scout")]
    refused(conn, "UPDATE audit SET actor = 'user:maria' WHERE batch = 999")
    refused(conn, "DELETE FROM audit WHERE batch = 999")


def test_r_changes_only_with_an_audit_entry_of_the_same_transaction(agent):
    url, _, conn = agent
    refused(conn, "UPDATE facts SET r = r + 5 WHERE id = 'e'")  # checked at commit
    refused(conn, "UPDATE facts SET s = s + 1 WHERE id = 'e'")
    with conn.transaction():  # an entry for another fact does not count
        conn.execute(AUDIT, (NOW, "agent:scout", "corroborate", "d", None, 998))
        with pytest.raises(Exception, match="without an audit entry"):
            with conn.transaction():
                conn.execute("UPDATE facts SET r = r + 1 WHERE id = 'e'")
                conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
    before = owner_row(url, "SELECT r FROM facts WHERE id = 'e'")[0][0]
    with conn.transaction():
        conn.execute("UPDATE facts SET r = r + 1 WHERE id = 'e'")
        conn.execute(AUDIT, (NOW, "agent:scout", "corroborate", "e", None, 997))
    assert owner_row(url, "SELECT r FROM facts WHERE id = 'e'")[0][0] == before + 1


@pytest.mark.parametrize(
    "sql",
    [
        'INSERT INTO meta (key, value) VALUES (\'import.sources\', \'[{"system": "mcp-memory", "source": "/home"}]\')'
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        "INSERT INTO meta (key, value) VALUES ('calibration.fit',"
        ' \'{"constants": {"freshness.b0": 3}, "verdicts": 5, "at": "x"}\')'
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        "DELETE FROM meta WHERE key = 'store.kind'",
        "UPDATE meta SET value = '99' WHERE key = 'store.schema'",
        "UPDATE meta SET key = 'import.sources' WHERE key LIKE 'graph.%'",
    ],
)
def test_meta_beyond_the_graphs_bookkeeping_is_refused(agent, sql):
    url, _, conn = agent
    before = owner_row(url, "SELECT key, value FROM meta ORDER BY key")
    refused(conn, sql)
    assert owner_row(url, "SELECT key, value FROM meta ORDER BY key") == before
    run("score", url)  # the store still opens


def test_the_owners_next_moves_after_forged_rows_are_never_an_internal_error(agent):
    """Rows the role may still write, made as odd as it can: an audit entry naming no
    fact, one with before/after that are not JSON, a batch far ahead."""
    url, _, conn = agent
    with conn.transaction():
        conn.execute(
            "INSERT INTO audit (at, actor, action, fact_id, batch, before, after, undoes, score_before)"
            " VALUES ('not a time', 'agent:x', 'corroborate', 'nope', 2000000000, '{', '[1', 77, 'x')"
        )
    with conn.transaction():
        conn.execute("UPDATE facts SET r = r + 1 WHERE id = 'e'")
        conn.execute(
            "INSERT INTO audit (at, actor, action, fact_id, batch, before, after)"
            " VALUES (%s, 'agent:x', 'corroborate', 'e', -5, 'null', '\"r\"')",
            (NOW,),
        )
    for args in (
        ("score", url),
        ("show", url, "e"),
        ("export", url, "--audit"),
        ("calibrate", url, "--verdicts"),
        ("undo", url),
        ("corroborate", url, "d"),
    ):
        got = run(*args, "--now", NOW, ok=False) if args[0] not in ("export",) else run(*args, ok=False)
        assert got.exit_code in (0, 2), (args, got.exit_code, got.stderr)
        assert "internal error" not in got.stderr, (args, got.stderr)
        if got.exit_code == 2:
            assert got.stderr.startswith("error: ") and got.stderr.count("\n") == 1, (args, got.stderr)


def test_the_roles_import_works_or_is_one_line(agent, tmp_path):
    from tests.core.mcp_memory_files import save

    url, as_scout, _ = agent
    memory = save(tmp_path / "memory.jsonl")
    got = run("import", "--from", "mcp-memory", memory, "--db", as_scout, ok=False)
    assert "internal error" not in got.stderr, got.stderr
    if got.exit_code == 0:
        assert "added" in got.stdout
        assert run("import", "--from", "mcp-memory", memory, "--db", as_scout).exit_code == 0  # again
    else:
        assert got.exit_code == 2 and got.stderr.startswith("error: ") and got.stderr.count("\n") == 1
