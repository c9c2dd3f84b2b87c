"""Until the Store runs on PostgreSQL, every command but `copy` refuses a server in one line,
without a traceback and without its password."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store.db import Store
from tests.helpers import run

URL = "postgresql://team:hunter2@db.internal/memory"


@pytest.mark.parametrize(
    "args",
    [
        (URL,),
        ("open", URL),
        ("score", URL),
        ("show", URL, "a"),
        ("export", URL),
        ("export", "--audit", URL),
        ("import", "facts.jsonl", "--db", URL),
        ("corroborate", URL, "a"),
        ("mcp", URL),
        ("sync", URL),
        ("embed", URL),
        ("score", "service=team password=hunter2"),
    ],
)
def test_every_command_but_copy_refuses_a_server_in_one_line(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facts.jsonl").write_text('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}\n')
    result = run(*args, ok=False)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "hunter2" not in result.output
    assert "only `synapse-tui copy` works with servers yet" in lines[0]
    assert list(tmp_path.iterdir()) == [tmp_path / "facts.jsonl"]  # nothing made on the way


def test_the_store_refuses_a_server_whoever_opens_it():
    with pytest.raises(StoreError, match=r"^postgres://team@h/db: a PostgreSQL server; only"):
        Store.open("postgres://team:hunter2@h/db", create=True)
