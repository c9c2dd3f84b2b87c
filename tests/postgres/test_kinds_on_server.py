"""Freshness constants per kind on a server (SPEC 12 and 14): the kinds read from provenance
(`Store.own_fields`), the per-kind history fit and a fact scored with its kind's constants
answer as on the file the store was copied from."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.kinds import read_kinds
from tests.core.history_stores import DEFAULTS, generate
from tests.helpers import run

pytestmark = pytest.mark.postgres

FEEDBACK = DEFAULTS | {"freshness.b0": -2.6, "freshness.scale": 0.5}
PROJECT = DEFAULTS | {"freshness.b0": -0.8, "freshness.scale": 1.5}


def test_kinds_and_the_per_kind_fit_answer_alike(tmp_path, new_database):
    src, now = generate(
        tmp_path / "h.jsonl", None, kinds={"feedback": FEEDBACK, "project": PROJECT}, days=200, arrivals=2.0
    )
    lines = src.read_text(encoding="utf-8").splitlines()
    odd = json.loads(lines[0])  # a source named with what must never reach a JSON path
    odd["provenance"] = {"x-source": "a'b\"c", "x-a'b\"c-type": "user"}
    lines[0] = json.dumps(odd)
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    url = new_database()
    run("copy", db, url)
    with Store.open(db, readonly=True) as a, Store.open(url, readonly=True) as b:
        on_file, on_server = read_kinds(a, a.count()), read_kinds(b, b.count())
    assert on_file[1] == on_server[1] == ("feedback", "project")
    assert (on_file[0] == on_server[0]).all() and on_file[0][0] == -1
    at = format_time(now)
    args = ("--backtest", "--fit", "--horizon", "30", "--now", at, "--json")
    file_out, server_out = run("calibrate", db, *args), run("calibrate", url, *args)
    assert (server_out.exit_code, server_out.stdout) == (file_out.exit_code, file_out.stdout)
    assert json.loads(file_out.stdout)["fit"]["kinds"]["kinds"]
    cfg = tmp_path / "c.toml"
    cfg.write_text("[freshness.kind.feedback]\nb0 = -3.0\nscale = 0.5\n", encoding="utf-8")
    shown = [run("show", where, "f5", "--now", at, "--json", "--config", cfg).stdout for where in (db, url)]
    assert shown[0] == shown[1] and json.loads(shown[0])["freshness_constants"]["kind"] in (
        "feedback",
        "project",
    )
