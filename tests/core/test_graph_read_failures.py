"""The browser's graph reads (blast radius, neighbours, path) tell "no graph built" and "no
such fact" apart from a store that cannot be read: only the store says its graph is not
built; a read that fails raises the store's error, for the front-end to report."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.browser import Browser
from synapse_tui.core.graph.build import update_graph
from synapse_tui.core.graph.read import NOT_BUILT
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import OperationalError

FACTS = Path(__file__).parents[1] / "ui" / "fixtures" / "facts.jsonl"


def store_at(folder: Path, graph: bool = True) -> Path:
    path = folder / "memory.db"
    (folder / "memory.synapse.toml").write_text("")
    config = load_config(folder / "memory.synapse.toml")
    build = (lambda c, new: update_graph(c, new, config)) if graph else None
    with Store.open(path, create=True) as store:
        import_facts(store, parse_file(FACTS), "x", after_insert=build)
    return path


def open_browser(db: Path) -> Browser:
    browser = Browser(
        Store.open(db),
        load_config(db.with_name("memory.synapse.toml")),
        Clock(parse_time("2026-12-01T00:00:00Z")),
    )
    browser.install(browser.load())
    return browser


def test_the_blast_radius_is_a_graph_read(tmp_path: Path) -> None:
    browser = open_browser(store_at(tmp_path))
    read = browser.related("f-dup-b", exclude=("f-dup-a",))
    assert read.error is None and read.info is not None
    assert read.value.related and "f-dup-a" not in [r.id for r in read.value.related]
    assert browser.related("f-nope").error == "no fact f-nope in this store"
    browser.store.close()


def test_a_store_without_its_graph_says_so_for_every_graph_read(tmp_path: Path) -> None:
    browser = open_browser(store_at(tmp_path, graph=False))
    assert browser.related("f-dup-b").error == NOT_BUILT
    assert browser.neighbourhood("f-dup-b").error == NOT_BUILT
    assert browser.path("f-dup-b", "f-dup-a").error == NOT_BUILT
    browser.store.close()


@pytest.mark.parametrize("table", ["meta", "mentions"])  # the "is it built" check's, a read's
def test_a_store_that_cannot_be_read_is_a_failure_not_a_graph_not_built(tmp_path: Path, table: str) -> None:
    db = store_at(tmp_path)
    browser = open_browser(db)
    with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
        other.execute(f"ALTER TABLE {table} RENAME TO {table}_elsewhere")
    reads = {
        "blast radius": lambda: browser.related("f-dup-b"),
        "neighbours": lambda: browser.neighbourhood("f-dup-b"),
        "path": lambda: browser.path("f-dup-b", "f-dup-a"),
    }
    for what, read in reads.items():
        with pytest.raises(OperationalError, match=f"no such table: {table}"):
            print(what, read())
    browser.store.close()
