"""Every command taking a store reaches for a server named as one, and a server that is not
there is one line without its password; a server where a file is wanted (an output, a
config) is refused in one line, without its password too."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store.db import Store
from tests.helpers import run

URL = "postgresql://team:hunter2@db.internal/memory"


def one_error_line(args, tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "facts.jsonl").write_text('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}\n')
    result = run(*args, ok=False)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "hunter2" not in result.output
    assert list(tmp_path.iterdir()) == [tmp_path / "facts.jsonl"]  # nothing made on the way
    return lines[0]


@pytest.mark.parametrize(
    "args, what",
    [
        (("export", "a.db", "-o", "service=team password=hunter2"), "'-o' / '--output'"),
        (("score", "a.db", "--config", URL), "'--config'"),
        (("calibrate", URL, "--config", URL), "'--config'"),
        (("import", URL, "--db", "a.db"), "FILE.jsonl"),
    ],
)
def test_a_server_where_a_file_is_wanted_is_refused_in_one_line(args, what, tmp_path, monkeypatch):
    line = one_error_line(args, tmp_path, monkeypatch)
    assert line.endswith(f": a PostgreSQL server, where {what} takes a file")


@pytest.mark.parametrize(
    "args",
    [
        ("score", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("show", "postgresql://team:hunter2@/memory?host={tmp}", "a"),
        ("export", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("export", "--audit", "postgres://team:hunter2@/memory?host={tmp}"),
        ("edges", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("corroborate", "postgresql://team:hunter2@/memory?host={tmp}", "a"),
        ("import", "facts.jsonl", "--db", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("sync", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("calibrate", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("calibrate", "postgresql://team:hunter2@/memory?host={tmp}", "--verdicts", "--json"),
        ("mcp", "postgresql://team:hunter2@/memory?host={tmp}"),
        ("postgresql://team:hunter2@/memory?host={tmp}",),  # the browser
        ("open", "postgresql://team:hunter2@/memory?host={tmp}"),
    ],
)
def test_a_command_that_works_on_a_server_reaches_for_it(args, tmp_path, monkeypatch):
    """Nobody listens on the socket: the one line says it could not connect."""
    args = [a.format(tmp=tmp_path / "no-server") for a in args]
    line = one_error_line(args, tmp_path, monkeypatch)
    assert "cannot connect to postgres" in line and "team@/memory" in line


def test_the_store_names_a_server_it_cannot_reach_without_its_password(tmp_path):
    where = f"postgres://team:hunter2@/db?host={tmp_path}"
    with pytest.raises(StoreError, match=r"^cannot connect to postgres://team@/db") as caught:
        Store.open(where, readonly=True)
    assert "hunter2" not in str(caught.value)
