"""What the suggestion finders read of a store, and what a large finder kept alive costs the
rest of the process (issue 39's speed): `items` reads only the finders' columns
(`Store.finder_rows`) yet reads every fact exactly as its full record says, odd rows too;
and the finder a long-lived memory keeps is left out of the cyclic collector's walks."""

from __future__ import annotations

import gc
import sqlite3

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import suggestions
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.suggest import Item
from synapse_tui.core.review.suggest_state import items
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

NOW = Clock(parse_time("2025-06-01T00:00:00Z"))


def _from_records(store: Store) -> list[Item]:
    """What the finders read before `finder_rows`: every full record, decoded."""
    gone = dict(store.review.deleted_at())
    records = list(store.records())
    named = {r.supersedes for r in records if r.supersedes}
    out = []
    for r in records:
        try:
            created = parse_time(r.created_at)
            seen = max((parse_time(t) for t in r.reinforced_at), default=None) if r.reinforced_at else None
        except (TypeError, ValueError):
            continue
        out.append(
            Item(
                r.id,
                r.text,
                created,
                r.note,
                tuple(r.entities),
                successor=r.id in named,
                predecessor=bool(r.supersedes),
                gone=gone.get(r.pos),
                last_seen=seen if seen is not None and seen > created else None,
                replaces=r.supersedes or None,
            )
        )
    return out


def test_the_finders_read_every_fact_as_its_record_says_odd_rows_too(tmp_path):
    facts = [
        {"id": "a", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "b",
            "text": "deploys run on Tuesdays",
            "created_at": "2025-03-01T00:00:00+02:00",
            "note": "ops",
            "entities": ["Deploys", "CI"],
            "supersedes": "a",
            "reinforced_at": ["2025-04-01T00:00:00Z", "2025-02-01T00:00:00Z"],
        },
        {"id": "c", "text": "same instant", "created_at": "2025-01-01T00:00:00Z", "entities": ["CI"]},
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    with Store.open(tmp_path / "m.db", create=True) as store:
        import_facts(store, parse_file(src), str(src))
    # rows no writer of ours makes (a hand-edited file, a forged server row)
    with sqlite3.connect(tmp_path / "m.db") as conn:
        base = conn.execute("SELECT * FROM facts WHERE id = 'c'").fetchone()
        columns = [d[0] for d in conn.execute("SELECT * FROM facts").description]
        for fid, changes in (
            ("odd-json", {"entities": "{", "reinforced_at": "[1"}),
            ("odd-kinds", {"entities": '["ok", 3, null, "CI"]', "reinforced_at": '"2025-01-01T00:00:00Z"'}),
            ("odd-time", {"created_at": "not a time"}),
            ("odd-seen", {"reinforced_at": '["never"]'}),
        ):
            row = dict(zip(columns, base, strict=True)) | {"pos": None, "id": fid} | changes
            conn.execute(
                f"INSERT INTO facts ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})",
                list(row.values()),
            )
    with Store.open(tmp_path / "m.db", readonly=True) as store:
        got = items(store)
        assert got == _from_records(store)
    by_id = {i.id: i for i in got}
    assert set(by_id) == {"a", "b", "c", "odd-json", "odd-kinds"}  # no time, no order: left out
    assert by_id["a"].successor and by_id["b"].predecessor
    assert by_id["b"].entities == ("Deploys", "CI") and by_id["b"].last_seen == parse_time(
        "2025-04-01T00:00:00Z"
    )
    assert by_id["odd-kinds"].entities == ("ok", "CI") and by_id["odd-json"].entities == ()


def test_a_large_finder_kept_alive_is_not_walked_by_the_collector(tmp_path):
    """The browser's first `R` on a large store builds a finder of hundreds of thousands of
    objects; a full collection afterwards (wherever it lands: a keystroke) must not walk
    them all again."""
    n = suggestions.FROZEN_MIN_FACTS
    facts = [
        {
            "id": f"f{k}",
            "text": f"service {k % 500} listens on port {8000 + k} in region r{k % 7}",
            "created_at": f"2025-01-{1 + k % 28:02d}T{k % 24:02d}:00:00Z",
            "note": f"n{k % 400}",
        }
        for k in range(n)
    ]
    src = write_jsonl(tmp_path / "f.jsonl", facts)
    store = Store.open(tmp_path / "m.db", create=True)
    import_facts(store, parse_file(src), str(src))
    memory = Memory(store, Config(), NOW.now())
    gc.collect()
    walked = len(gc.get_objects())
    try:
        assert suggestions.of_memory(memory).found is not None
        kept = suggestions._KEPT[id(store)][1].finder  # noqa: SLF001
        assert len(kept.items) == n
        gc.collect()
        # the finder's facts, texts and sets stay alive, outside what a collection walks
        assert len(gc.get_objects()) < walked + n // 10
        assert gc.isenabled()
    finally:
        suggestions._KEPT.pop(id(store), None)  # noqa: SLF001
        gc.unfreeze()  # the rest of the test session as it was
        store.close()
