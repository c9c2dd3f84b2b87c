"""`calibrate --backtest --fit` on a server answers byte for byte as on the file the store
was copied from (SPEC 12 and 14): a generated history with replacements, a contradiction and
a person's supersession."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.history_stores import DAY, OTHER, T0, generate
from tests.helpers import run

pytestmark = pytest.mark.postgres


def test_the_history_fit_answers_alike(tmp_path, new_database):
    src, now = generate(tmp_path / "h.jsonl", OTHER, days=200, start=120, arrivals=0.5)
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
        later = Clock(T0 + 100 * DAY)
        facts = [json.loads(line) for line in src.read_text().splitlines()]
        replaced = {f.get("supersedes") for f in facts}
        alive = [  # made before day 99, replacing nothing, never replaced: alive on day 100
            f["id"]
            for f in facts
            if f["id"] not in replaced
            and "supersedes" not in f
            and parse_time(f["created_at"]) < T0 + 99 * DAY
        ]
        Triage(store, later, actor="user:bob", config=Config()).apply("contradict", alive[:1])
        Triage(store, later, actor="user:bob", config=Config()).apply("supersede", alive[1:2], alive[2])
    url = new_database()
    run("copy", db, url)
    outs = []
    for options in (("--json",), ()):
        on_file = run(
            "calibrate", db, "--backtest", "--fit", "--horizon", "30", "--now", format_time(now), *options
        )
        on_server = run(
            "calibrate", url, "--backtest", "--fit", "--horizon", "30", "--now", format_time(now), *options
        )
        assert (on_server.exit_code, on_server.stdout) == (on_file.exit_code, on_file.stdout)
        outs.append(on_file.stdout)
    data = json.loads(outs[0])
    assert (
        data["samples"] > 1000
        and data["contradicted"] >= 1
        and data["fit"]["decision"] in ("adopt", "keep-current")
    )
