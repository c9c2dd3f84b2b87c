"""Who acted, on a server: each audit entry keeps the database role of the session that
wrote it (issue 25, point 4), named beside the actor in the session log and in `show`'s
text, and never in `export --audit` or `show --json`, which stay the file's byte for byte."""

from __future__ import annotations

import sqlite3

import pytest

from synapse_tui.core.review.sessionlog import session_log
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, run

pytestmark = pytest.mark.postgres

TEAM = ("roles_ann", "roles_bob")


@pytest.fixture
def team(db, new_database):
    """(the file, its copy on a server, the server's URL as each of TEAM, its config)."""
    import psycopg

    url = new_database()
    run("copy", db, url)
    with psycopg.connect(url, autocommit=True) as owner:
        for name in TEAM:
            if not owner.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone():
                owner.execute(f"CREATE ROLE {name} LOGIN")
            owner.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {name}")
            owner.execute(f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {name}")
    as_role = {name: url.replace("://postgres:@", f"://{name}:@") for name in TEAM}
    assert all(u != url for u in as_role.values())
    return db, url, as_role, db.with_name("memory.synapse.toml")


def test_two_roles_are_named_in_the_log_and_show_but_not_in_the_json(team):
    file, url, as_role, config = team
    flags = ("--now", NOW, "--config", config)
    for who, action in ((TEAM[0], "corroborate"), (TEAM[1], "contradict")):
        run(action, as_role[who], "e", *flags)
        run(action, file, "e", *flags)
    with Store.open(url) as store:
        assert [e.role for e in store.audit.entries()] == list(TEAM)
        log = session_log(store, 0)
        assert [e.who for e in log] == [
            f"{e.actor} (role {r})" for e, r in zip(log, reversed(TEAM), strict=True)
        ]
    text = run("show", url, "e", *flags).stdout
    for name in TEAM:
        assert f"(role {name})" in text
    assert "(role" not in run("show", file, "e", *flags).stdout
    # the contract: the same JSON as the file's
    assert run("export", url, "--audit").stdout == run("export", file, "--audit").stdout
    assert run("show", url, "e", "--json", *flags).stdout == run("show", file, "e", "--json", *flags).stdout


def test_copy_keeps_the_role_both_ways(team, new_database, tmp_path):
    file, url, as_role, config = team
    run("corroborate", as_role[TEAM[0]], "a", "--now", NOW, "--config", config)
    back = tmp_path / "back.db"
    run("copy", url, back)
    again = new_database()
    run("copy", back, again)
    for there in (back, again):
        with Store.open(there, readonly=True) as store:
            assert [e.role for e in store.audit.entries()] == [TEAM[0]]
        assert run("export", there, "--audit").stdout == run("export", url, "--audit").stdout


def test_an_older_file_without_the_column_copies_with_the_role_unknown(db, new_database):
    run("corroborate", db, "a")
    conn = sqlite3.connect(db)
    with conn:  # the store as m004 left it
        conn.execute("ALTER TABLE audit DROP COLUMN role")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_audit_role'")
        conn.execute("PRAGMA user_version = 4")
    conn.close()
    url = new_database()
    run("copy", db, url)
    with Store.open(url) as store:
        assert [e.role for e in store.audit.entries()] == [None]
    assert run("export", url, "--audit").stdout == run("export", db, "--audit").stdout


def test_an_older_server_store_without_the_column_copies_and_reads(team, tmp_path):
    import psycopg

    file, url, as_role, config = team
    run("corroborate", url, "a")
    with psycopg.connect(url, autocommit=True) as owner:  # the store as p002 left it
        owner.execute("ALTER TABLE audit DROP COLUMN role")
        owner.execute("DELETE FROM synapse_migrations WHERE name = 'p003_audit_role'")
        owner.execute("UPDATE meta SET value = '2' WHERE key = 'store.schema'")
    back = tmp_path / "old.db"
    run("copy", url, back)
    with Store.open(back, readonly=True) as store:
        assert [e.role for e in store.audit.entries()] == [None]
    assert "corroborate" in run("show", url, "a").stdout
    # opened for writing by its owner, it is upgraded (a role without the owner's rights
    # cannot alter the table: it is told so in one line); later entries name their role
    refused = run("corroborate", as_role[TEAM[1]], "a", ok=False)
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1
    run("corroborate", url, "a")
    run("corroborate", as_role[TEAM[1]], "a")
    with Store.open(url) as store:
        assert [e.role for e in store.audit.entries()] == [None, "postgres", TEAM[1]]
