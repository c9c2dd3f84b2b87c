"""The agent's role of docs/postgres.md, run as written: an agent writes facts and evidence,
and the server refuses it the columns that accept or sign a fact."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synapse_tui.core.base.location import locate
from synapse_tui.core.store.postgres.server import open_server
from tests.helpers import base_facts, run
from tests.postgres.roles import scout_login

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def agent(db_module, pg_server, new_database):
    """(the store's URL, a connection as the agent `scout`), the store copied from a file."""
    import psycopg

    url = new_database()
    run("copy", db_module, url)
    with psycopg.connect(scout_login(url), autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("scout",)
        yield url, conn


@pytest.fixture(scope="module")
def db_module(tmp_path_factory):
    """The five facts of tests/helpers, in a file of this module's own."""
    folder = tmp_path_factory.mktemp("roles")
    src = folder / "facts.jsonl"
    src.write_text("".join(json.dumps(f) + "\n" for f in base_facts()), encoding="utf-8")
    run("import", src, "--db", folder / "m.db")
    return folder / "m.db"


CREATED = np.array([1_796_083_200.0]).tobytes()  # a fact's events: its creation, 2026-12-01


def refused(conn, sql: str) -> None:
    import psycopg

    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(sql)


def test_the_agent_writes_facts_and_evidence(agent):
    url, conn = agent
    (pos,) = conn.execute(
        "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
        " VALUES ('by-scout', 'seen by scout', '2026-12-01T00:00:00Z', 0, 0, 0, %s) RETURNING pos",
        (CREATED,),
    ).fetchone()
    with conn.transaction():  # evidence lands with its audit entry (issue 37)
        conn.execute("UPDATE facts SET r = r + 1, s = s + 1 WHERE id = 'e'")
        conn.execute(
            "INSERT INTO audit (at, actor, action, fact_id) VALUES ('t', 'agent:scout', 'corroborate', 'e')"
        )
    assert conn.execute("SELECT tier, sig_state, signature FROM facts WHERE pos = %s", (pos,)).fetchone() == (
        "auto",
        0,
        None,
    )
    with open_server(locate(url)) as owner:  # logged, by the owner's trigger, not by the agent
        kinds = owner.execute("SELECT kind, pos FROM facts_changes ORDER BY seq DESC LIMIT 2").fetchall()
    assert kinds[1] == ("i", pos) and kinds[0][0] == "u"


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE facts SET tier = 'human' WHERE id = 'e'",  # accept
        "UPDATE facts SET signature = '{}', sig_state = 1, sig_key = 'ab' WHERE id = 'e'",  # sign
        "UPDATE facts SET sig_state = 1 WHERE id = 'e'",
        "INSERT INTO facts (id, text, created_at, created_ts, tier, r, s, events)"
        " VALUES ('vouched', 't', 't', 0, 'human', 0, 0, '')",
        "UPDATE audit SET actor = 'user:maria'",
        "DELETE FROM audit",
        "INSERT INTO facts_changes (pos, kind, token) VALUES (1, 'u', 0)",
    ],
)
def test_the_agent_cannot_accept_sign_or_rewrite_history(agent, sql):
    refused(agent[1], sql)
