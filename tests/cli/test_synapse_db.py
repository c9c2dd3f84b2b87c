"""SYNAPSE_DB names the store a command uses when the command line names none (issue 25):
a file or a server, for the browser, `mcp`, `import --db` and every command taking DB. An
explicit DB still works everywhere, exactly as before, and wins over SYNAPSE_DB."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.store.db import Store
from tests.helpers import base_facts, json_lines, run, write_jsonl


@pytest.fixture
def other(db, tmp_path):
    """A second store with the same facts, which SYNAPSE_DB names while `db` is explicit."""
    path = tmp_path / "other" / "memory.db"
    path.parent.mkdir()
    shutil.copy(db, path)
    shutil.copy(db.with_name("memory.synapse.toml"), path.with_name("memory.synapse.toml"))
    return path


def history(db, fid: str) -> list[str]:
    return [h["action"] for h in json_lines(run("show", db, fid, "--json").stdout)[0]["history"]]


def test_the_commands_taking_only_db_use_synapse_db(db, monkeypatch):
    expected = {
        args: run(*args[:1], db, *args[1:]).stdout for args in (("score", "--json"), ("export",), ("edges",))
    }
    monkeypatch.setenv("SYNAPSE_DB", str(db))
    for args, out in expected.items():
        assert run(*args).stdout == out, args
    assert json_lines(run("score", "--where", "Maria", "--json").stdout)[0]["id"] in {"a", "b"}


def test_ids_alone_act_on_synapse_db_and_an_explicit_db_wins(db, other, monkeypatch):
    monkeypatch.setenv("SYNAPSE_DB", str(other))
    assert json_lines(run("show", "e", "--json").stdout)[0]["id"] == "e"
    assert "Maria" in run("neighbours", "a").stdout
    run("corroborate", "e")
    run("supersede", "c", "d")
    assert history(other, "e") == ["corroborate"]
    assert history(db, "e") == []  # the store SYNAPSE_DB did not name is untouched

    run("verify", db, "e")  # DB given: that store, whatever SYNAPSE_DB says
    run("score", db, "--json")
    assert history(db, "e") == ["verify"]
    assert history(other, "e") == ["corroborate"]
    run("undo")  # undo's only argument is DB: SYNAPSE_DB's last action, the supersession
    assert history(other, "c")[-1] == "undo"
    assert history(db, "c") == []


def test_import_creates_the_store_synapse_db_names(tmp_path, monkeypatch):
    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    target = tmp_path / "team.db"
    monkeypatch.setenv("SYNAPSE_DB", str(target))
    assert f"imported 5 facts into {target}" in run("import", src).stdout
    assert len(json_lines(run("score", "--json").stdout)) == 5
    explicit = tmp_path / "mine.db"
    run("import", src, "--db", explicit)
    assert len(json_lines(run("score", explicit, "--json").stdout)) == 5


def test_a_missing_file_is_the_arguments_error_naming_synapse_db(tmp_path, monkeypatch):
    missing = tmp_path / "nope.db"
    for args in (("score",), ("show", "e"), ("export",), ("undo",), ("sync",)):
        as_argument = run(*args[:1], missing, *args[1:], ok=False)
        monkeypatch.setenv("SYNAPSE_DB", str(missing))
        from_env = run(*args, ok=False)
        monkeypatch.delenv("SYNAPSE_DB")
        assert from_env.exit_code == as_argument.exit_code == 2, args
        assert from_env.stderr == as_argument.stderr.rstrip("\n") + " (named by SYNAPSE_DB)\n", args
        assert not missing.exists()


def test_without_synapse_db_nothing_changes(db, monkeypatch):
    monkeypatch.delenv("SYNAPSE_DB", raising=False)
    got = run("show", "e", ok=False)
    assert got.exit_code == 2 and got.stderr.startswith("error: missing argument 'FACT_ID' (see ")
    assert run("score", ok=False).stderr.startswith("error: missing argument 'DB'")


def test_help_says_where_db_comes_from():
    assert "SYNAPSE_DB" in run("--help").stdout
    assert "show FACT_ID` then uses it" in " ".join(run("show", "--help").stdout.split())
    assert "Without DB, the store SYNAPSE_DB names" in " ".join(run("score", "--help").stdout.split())
    assert "env var: SYNAPSE_DB" in run("import", "--help").stdout
    assert "else the bundled sample" in " ".join(run("mcp", "--help").stdout.split())


def test_the_browser_opens_synapse_db_before_the_sample(db, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr("synapse_tui.ui.launch.launch", lambda where, **_: opened.append(str(where)))
    monkeypatch.setenv("SYNAPSE_DB", str(db))
    run()
    run("open")
    run("--now", "2026-12-02T00:00:00Z")
    assert opened == [str(db)] * 3
    run("open", db.with_name("elsewhere.db"))
    assert opened[-1] == str(db.with_name("elsewhere.db"))
    monkeypatch.delenv("SYNAPSE_DB")
    run()
    assert opened[-1].endswith("sample.db")


def test_mcp_serves_synapse_db_and_closes_its_recall_when_serve_raises(db, monkeypatch):
    pytest.importorskip("mcp")
    from synapse_tui.core.agent import Recall

    served, closed = [], []
    real_close = Recall.close

    def fail(recall):
        served.append(str(recall.store.path))
        raise RuntimeError("the client went away")

    monkeypatch.setattr("synapse_tui.mcp_server.serve", fail)
    monkeypatch.setattr(Recall, "close", lambda self: (closed.append(self), real_close(self)))
    monkeypatch.setenv("SYNAPSE_DB", str(db))
    got = run("mcp", ok=False)
    assert got.exit_code == 1 and "internal error" in got.stderr  # our bug, said in one line
    assert served == [str(db)] and len(closed) == 1


# -- on a server -----------------------------------------------------------------------


@pytest.fixture
def on_server(db, new_database):
    """`db` copied onto a server; its location with a password in it (the test server
    trusts its Unix socket, so the password is never checked, only never printed)."""
    url = new_database()
    run("copy", db, url)
    secret = url.replace("://postgres:@", "://postgres:hunter2@")
    assert "hunter2" in secret
    return url, secret


@pytest.mark.postgres
def test_synapse_db_may_name_a_server_and_never_prints_its_password(db, on_server, monkeypatch):
    url, secret = on_server
    monkeypatch.setenv("SYNAPSE_CONFIG", str(db.with_name("memory.synapse.toml")))
    expected = run("score", db, "--json").stdout
    monkeypatch.setenv("SYNAPSE_DB", secret)
    assert run("score", "--json").stdout == expected
    run("corroborate", "e")
    assert history(url, "e") == ["corroborate"]
    got = run("show", "nope", ok=False)
    assert got.exit_code == 2 and "(named by SYNAPSE_DB)" in got.stderr
    assert "postgres@" in got.stderr and "hunter2" not in got.stdout + got.stderr
    with Store.open(secret) as store:
        assert "hunter2" not in str(store.path)


@pytest.mark.postgres
def test_mcp_serves_the_server_synapse_db_names(db, on_server, monkeypatch):
    pytest.importorskip("mcp")
    from synapse_tui.core.agent import Recall

    url, secret = on_server
    served, closed = [], []
    real_close = Recall.close

    def fail(recall):
        served.append(recall.show("e")["id"])
        raise RuntimeError("the client went away")

    monkeypatch.setattr("synapse_tui.mcp_server.serve", fail)
    monkeypatch.setattr(Recall, "close", lambda self: (closed.append(self), real_close(self)))
    monkeypatch.setenv("SYNAPSE_CONFIG", str(db.with_name("memory.synapse.toml")))
    monkeypatch.setenv("SYNAPSE_DB", secret)
    got = run("mcp", ok=False)
    assert got.exit_code == 1 and "hunter2" not in got.stderr
    assert served == ["e"] and len(closed) == 1  # closed by the command, also when serve raised
