"""Which locations name a server, and how one is shown: never with its password."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from synapse_tui.core.base.config import Config, config_for, config_path_for
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate, redact


@pytest.mark.parametrize(
    "text",
    [
        "postgresql://team@db.internal/memory",
        "postgres://db.internal/memory?sslmode=require",
        "POSTGRESQL://h/db",
        "postgresql://",  # everything from libpq's environment (PGSERVICE, PGHOST...)
        "service=team",
        "service=team sslmode=verify-full",
    ],
)
def test_a_server_is_named_as_libpq_names_one(text):
    assert locate(text).is_server


@pytest.mark.parametrize(
    "text",
    ["memory.db", "/srv/a=b/memory.db", "postgresql.db", "./postgresql:/x", "service.db", "service=a b"],
)
def test_everything_else_is_a_file(text):
    assert locate(text).kind == "file"


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("postgresql://team:s3cret@db.internal:5432/memory", "postgresql://team@db.internal:5432/memory"),
        ("postgres://team:p%40ss@h/db?sslmode=require", "postgres://team@h/db?sslmode=require"),
        (
            "postgresql://h/db?password=s3cret&sslmode=require",
            "postgresql://h/db?password=***&sslmode=require",
        ),
        ("service=team password=s3cret", "service=team password=***"),
        ("postgresql://team@h/db", "postgresql://team@h/db"),
        ("postgresql://", "postgresql://"),
        (
            "postgresql:///memory?host=/run/pg&password=s3cret",
            "postgresql:///memory?host=/run/pg&password=***",
        ),
    ],
)
def test_the_shown_location_holds_no_password(given, shown):
    assert redact(given) == shown
    assert str(locate(given)) == shown
    assert locate(given).name == shown  # the browser's title (`store.path.name`)


def test_without_psycopg_the_error_says_what_to_install(monkeypatch):
    from synapse_tui.core.store.postgres.connect import connect

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StoreError, match=r'pip install "synapse-tui\[postgres\]"'):
        connect(locate("postgresql://h/db"))


def test_a_server_has_no_config_file_beside_it(tmp_path, monkeypatch):
    """Read as a path, a server's location names a file in the working folder: a config
    planted there (trusting a signer, say) must not score the server's facts."""
    monkeypatch.chdir(tmp_path)
    url = "postgresql://team@db.internal/memory?sslmode=require"
    planted = Path(url).with_name(Path(url).stem + ".synapse.toml")
    planted.parent.mkdir(parents=True)
    planted.write_text('[trust]\nsigners = ["' + "ab" * 32 + '"]\n')
    assert config_path_for(url) is None
    assert config_for(url) == Config() and config_for(url).path is None
    assert config_for("memory.db").path == Path("memory.synapse.toml")  # a file's: beside it
