"""`score --json` streams in chunks: the same lines, in the same order, as one pass."""

from __future__ import annotations

import json
import random

import pytest

from synapse_tui.cli import commands
from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.config import Config, config_path_for, load_config
from synapse_tui.core.base.jsonl import json_line
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store import loadcache
from synapse_tui.core.store.db import Store
from tests.helpers import run, write_jsonl


def test_chunks_join_into_every_row_in_order(db, monkeypatch):
    now = "2026-12-01T00:00:00Z"
    whole = run("score", db, "--json", "--sort", "-trust", "--now", now).stdout
    monkeypatch.setattr(commands, "JSON_CHUNK", 2)  # five facts: three writes
    chunked = run("score", db, "--json", "--sort", "-trust", "--now", now).stdout
    assert chunked == whole
    rows = [json.loads(line) for line in chunked.splitlines()]
    assert [r["trust"] for r in rows] == sorted((r["trust"] for r in rows), reverse=True)
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, load_config(config_path_for(db)), parse_time(now))
        by_id = {r["id"]: r for r in memory.rows()}
        assert rows == [by_id[r["id"]] for r in rows] and len(rows) == len(memory)
        assert memory.rows([3, 0]) == [memory.row(3), memory.row(0)]


def varied_facts(n: int = 240) -> list[dict]:
    """Facts of every shape the arithmetic tells apart: chains (and a chain across chunk
    boundaries), reinforcement lists of many lengths, the O(1) form, a reinforcement in
    the future (clock skew), every tier, contradictions."""
    rng = random.Random(7)
    now = parse_time("2026-12-01T00:00:00Z")
    facts = []
    for i in range(n):
        created = now - rng.uniform(1, 400) * 86400
        fact = {
            "id": f"v{i:03d}",
            "text": f"varied fact {i}",
            "created_at": format_time(created),
            "tier": rng.choice(["auto", "human", "signed"]),
            "corroborations": rng.randrange(5),
            "contradictions": rng.randrange(3),
        }
        shape = i % 4
        if shape == 0:
            fact["reinforcement_count"] = 1 + rng.randrange(20)
        elif shape in (1, 2):
            times = [rng.uniform(created, now) for _ in range(rng.randrange(12))]
            times += [now + 3600] if i % 37 == 1 else []
            fact["reinforced_at"] = [format_time(t) for t in sorted(times)]
        if i and i % 3 == 0:
            fact["supersedes"] = f"v{rng.randrange(i):03d}"
        facts.append(fact)
    return facts


@pytest.fixture
def varied_db(tmp_path):
    src = write_jsonl(tmp_path / "varied.jsonl", varied_facts())
    path = tmp_path / "varied.db"
    run("import", src, "--db", path)
    return path


@pytest.mark.parametrize("chunk", [1, 7, 5_000])
def test_the_stream_prints_the_whole_views_lines_from_sql_and_from_the_cache(varied_db, monkeypatch, chunk):
    now = parse_time("2026-12-01T00:00:00Z")
    with Store.open(varied_db, readonly=True) as store:
        whole = "".join(json_line(row) + "\n" for row in Memory(store, Config(), now).rows())
    assert '"clock_skew"' in whole and '"k": 2' in whole  # the shapes are there
    monkeypatch.setattr(commands, "JSON_CHUNK", chunk)
    cache = loadcache.cache_path(varied_db)
    assert not cache.exists()  # a small store: the stream reads SQL, a range per chunk
    assert run("score", varied_db, "--json").stdout == whole
    monkeypatch.setattr(loadcache, "MIN_FACTS", 1)
    with Store.open(varied_db, readonly=True) as store:
        store.load(Config())
    assert cache.exists()  # now the stream slices the cached arrays
    assert run("score", varied_db, "--json").stdout == whole
    lines = whole.splitlines(keepends=True)
    for limit in (1, 6, 7, 8, 239, 240, 500):
        assert run("score", varied_db, "--json", "--limit", limit).stdout == "".join(lines[:limit])
        cache.unlink(missing_ok=True)
        monkeypatch.setattr(loadcache, "MIN_FACTS", 10**9)
        assert run("score", varied_db, "--json", "--limit", limit).stdout == "".join(lines[:limit])
        monkeypatch.setattr(loadcache, "MIN_FACTS", 1)
        with Store.open(varied_db, readonly=True) as store:
            store.load(Config())


def test_a_cycle_still_ends_the_stream_before_any_line(varied_db):
    import sqlite3

    with sqlite3.connect(varied_db) as conn:  # v001 and v002 supersede each other
        conn.execute("UPDATE facts SET supersedes = 'v002', supersedes_pos = 3 WHERE id = 'v001'")
        conn.execute("UPDATE facts SET supersedes = 'v001', supersedes_pos = 2 WHERE id = 'v002'")
    result = run("score", varied_db, "--json", ok=False)
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        result.stderr.startswith("error: ")
        and "cycle" in result.stderr
        and len(result.stderr.splitlines()) == 1
    )
