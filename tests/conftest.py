"""Shared fixtures: a pinned clock and small real stores on disk."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.ingest import signing
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, write_jsonl

pytest_plugins = ["tests.backends"]  # `backend`, `new_store`: a file and a server


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test reads the wall clock, the user's config or the user's data directory."""
    monkeypatch.setenv("SYNAPSE_NOW", NOW)
    monkeypatch.setenv("SYNAPSE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    # the user's config folder (platformdirs honours it): the sources they trust, the theme
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("SYNAPSE_CONFIG", raising=False)
    monkeypatch.delenv("SYNAPSE_DB", raising=False)  # a command without DB must not find the user's
    monkeypatch.setenv("TZ", "UTC")
    # the terminal's size, as the runner left it (xdist's workers say 80 x 24): a command's
    # output is as wide as when piped, unless a test sets COLUMNS itself
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture
def now() -> float:
    return parse_time(NOW)


@pytest.fixture
def store_path(tmp_path):
    """A store of `helpers.base_facts()`, imported through the core."""
    from tests.helpers import base_facts

    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    db = tmp_path / "m.db"
    with Store.open(db, create=True) as store:
        result = import_facts(store, parse_file(src), str(src))
    assert result.imported == 5
    assert result.warnings == [f"{src}:5: supersedes unknown id 'missing-id' (kept, ignored for depth)"]
    return db


@pytest.fixture
def store_location(new_store, tmp_path) -> str:
    """`store_path`'s facts in a store on this test's backend (`tests/backends.py`): a file's
    path, or a server's location; the test runs once with each."""
    from tests.helpers import base_facts

    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    location = new_store("m")
    with Store.open(location, create=True) as store:
        assert import_facts(store, parse_file(src), str(src)).imported == 5
    return location


@pytest.fixture
def db(tmp_path):
    """The same facts imported through the CLI, their signer trusted in the store's config."""
    from tests.helpers import KEY, base_facts, run

    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    path = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text(f'[trust]\nsigners = ["{signing.public_key_hex(KEY)}"]\n')
    result = run("import", src, "--db", path)
    assert "imported 5 facts" in result.stdout
    assert "supersedes unknown id 'missing-id'" in result.stderr
    return path
