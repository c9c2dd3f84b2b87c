"""A server's store gives the suggestion finders what its file gives them (issue 39's speed:
`Store.finder_rows` reads only their columns, on either backend)."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.sample import ensure_sample
from synapse_tui.core.review.suggest_state import items
from synapse_tui.core.store.db import Store
from tests.helpers import run

pytestmark = pytest.mark.postgres


def test_the_finders_read_the_same_facts_from_a_server(tmp_path, new_database):
    path = shutil.copy(ensure_sample(), tmp_path / "sample.db")
    url = new_database()
    run("copy", path, url)
    with Store.open(path, readonly=True) as file, Store.open(url, readonly=True) as server:
        read = items(file)
        assert read and items(server) == read
        assert [r[:4] for r in server.finder_rows()] == [
            (r.pos, r.id, r.text, r.created_at) for r in file.records()
        ]
