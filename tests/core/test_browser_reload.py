"""The browser's reload after another writer's change, on a file and on a server: what it
finds is what a browser opened afresh finds, and another reviewer's triage (which changes
no text) costs no read of every fact's text."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.browser import Browser
from synapse_tui.core.graph.build import update_graph
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl
from tests.ui.fixtures.make_facts import TRUSTED_KEY

FACTS = Path(__file__).parents[1] / "ui" / "fixtures" / "facts.jsonl"
NOW = parse_time("2026-12-01T00:00:00Z")


@pytest.fixture
def config(tmp_path):
    (tmp_path / "memory.synapse.toml").write_text(f'[trust]\nsigners = ["{TRUSTED_KEY}"]\n')
    return load_config(tmp_path / "memory.synapse.toml")


def add(location: str, path: Path, config) -> None:
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(path), "x", after_insert=lambda c, new: update_graph(c, new, config))


@pytest.fixture
def location(new_store, config) -> str:
    where = new_store("m")
    add(where, FACTS, config)
    return where


def opened(location: str, config) -> Browser:
    browser = Browser(Store.open(location), config, Clock(NOW))
    browser.install(browser.load())
    return browser


def found(browser: Browser) -> tuple[list[int], dict[int, str], dict[int, int]]:
    suspects = browser.suspects
    return np.flatnonzero(suspects.mask).tolist(), suspects.why, suspects.other


def as_afresh(browser: Browser, location: str, config) -> None:
    afresh = opened(location, config)
    try:
        assert found(browser) == found(afresh)
        assert browser.live.ids == afresh.live.ids
    finally:
        afresh.store.close()


def test_a_reload_after_another_reviewers_triage_reads_no_text(location, config, monkeypatch):
    browser = opened(location, config)
    before = found(browser)
    with Store.open(location) as other:
        Triage(other, Clock(NOW), "user:other").apply("corroborate", ["f-pay-03", "f-db-v1"])

    def every_text():
        raise AssertionError("the reload read every fact's text")

    monkeypatch.setattr(browser.store, "id_texts", every_text)
    loaded = browser.reload()
    browser.install(loaded)
    monkeypatch.undo()
    assert "corroborate" in loaded.elsewhere
    assert found(browser)[2] == before[2]  # the same duplicates
    as_afresh(browser, location, config)
    browser.store.close()


def test_a_reload_after_appended_duplicates_finds_them(location, config, tmp_path):
    rows = [json.loads(line) for line in FACTS.read_text().splitlines()]
    browser = opened(location, config)
    first, second = [r for r in rows if not browser.suspects.mask[browser.live.index[r["id"]]]][:2]
    more = [
        # the same text but for case and white space: an exact duplicate of the first fact
        {
            "id": "n-exact",
            "text": "  " + first["text"].upper().replace(" ", "\t "),
            "created_at": "2026-11-30T00:00:00Z",
        },
        # another text on the second's embedding: a near-duplicate of it
        {
            "id": "n-near",
            "text": "Retries back off exponentially, at most 30 s",
            "created_at": "2026-11-30T00:00:00Z",
            "embedding": second["embedding"],
        },
        {"id": "n-other", "text": "Nothing like any other fact", "created_at": "2026-11-30T00:00:00Z"},
    ]
    add(location, write_jsonl(tmp_path / "more.jsonl", more), config)
    browser.install(browser.reload())
    index, why = browser.live.index, browser.suspects.why
    assert why[index["n-exact"]] == f"exact duplicate of {first['id']}"
    assert why[index[first["id"]]] == "exact duplicate of n-exact"
    assert why[index["n-near"]].startswith("near-duplicate cluster")
    assert why[index[second["id"]]].startswith("near-duplicate cluster")
    assert index["n-other"] not in why
    as_afresh(browser, location, config)
    # and seen as of an instant before they were added: neither is a duplicate then
    browser.install(browser.set_as_of(parse_time("2026-11-29T00:00:00Z")))
    assert not browser.suspects.mask[index[first["id"]]]
    browser.store.close()
