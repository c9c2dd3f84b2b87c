"""`calibrate --backtest` on a store with too little history: the AUC is printed, with why it
judges nothing yet (how many facts ended and survived, how many days or instants, what is
needed); the JSON stays as SPEC 11.4 and 14 fix it."""

from __future__ import annotations

import json

import pytest

from synapse_tui.core.base.clock import format_time
from tests.helpers import run, write_jsonl
from tests.verdict_stores import DAY, T0, verdicts_store

NOW = "2026-03-03T00:00:00Z"
AT = "2026-03-02T16:00:00Z"


@pytest.fixture(scope="module")
def two_days(tmp_path_factory):
    """40 facts made half an hour apart over the first day and a half; on the second
    evening the 8 youngest are replaced."""
    folder = tmp_path_factory.mktemp("two_days")
    facts = []
    for i in range(40):
        day, minutes = divmod(i * 30, 24 * 60)
        facts.append(
            {
                "id": f"f{i}",
                "text": f"fact number {i} about thing {i}",
                "created_at": f"2026-03-0{1 + day}T{minutes // 60:02d}:{minutes % 60:02d}:00Z",
            }
        )
    for j, i in enumerate(range(32, 40)):
        facts.append(
            {
                "id": f"g{i}",
                "text": f"fact number {i} about thing {i} revised",
                "created_at": f"2026-03-02T{20 + j // 4:02d}:{(j % 4) * 15:02d}:00Z",
                "supersedes": f"f{i}",
            }
        )
    db = folder / "m.db"
    run("import", write_jsonl(folder / "f.jsonl", facts), "--db", db)
    return db


def test_a_two_day_backtest_says_its_auc_judges_nothing_yet(two_days):
    out = run("calibrate", two_days, "--backtest", "--at", AT, "--horizon", "1", "--now", NOW).stdout
    lines = out.splitlines()
    auc = next(i for i, line in enumerate(lines) if "AUC" in line)
    assert "AUC 0.00" in lines[auc]
    assert lines[auc + 1 :] == [
        "  not a judgement of the score:",
        "  - 8 facts replaced, deleted or contradicted and 32 survived: with so few, chance alone moves"
        " an AUC by ±0.23 (95%); about 20 of each are needed",
        "  - the store's history before T spans 1.7 days: freshness counts age in whole days and moves"
        " over weeks, so it ranks these facts by hours at most (the newest are often the ones still"
        " being revised); 30 days of history are needed",
    ]


def test_the_json_stays_as_the_spec_fixes_it(two_days):
    data = json.loads(
        run("calibrate", two_days, "--backtest", "--at", AT, "--horizon", "1", "--now", NOW, "--json").stdout
    )
    assert list(data) == [
        "at", "horizon_days", "facts", "replaced", "deleted", "contradicted", "survived", "bins", "log_loss", "auc",
    ]  # fmt: skip
    assert (data["facts"], data["replaced"], data["survived"], data["auc"]) == (40, 8, 32, 0.0)


def test_a_history_of_one_instant_says_what_it_needs(two_days):
    out = run("calibrate", two_days, "--backtest", "--fit", "--horizon", "1", "--now", NOW).stdout
    assert "AUC n/a" in out
    assert (
        "  not a judgement of the score:\n"
        "  - 0 facts replaced, deleted or contradicted and 30 survived: an AUC needs both, about 20 of each\n"
        "  - 1 instant sampled (instants are 0.5 days apart): 5 are needed, a history of 3 days from the"
        " first 30 live facts\n"
    ) in out


def test_a_backtest_with_enough_history_and_outcomes_has_no_caveat(tmp_path):
    db = verdicts_store(tmp_path)
    out = run("calibrate", db, "--backtest", "--at", format_time(T0 + 10 * DAY), "--horizon", "20").stdout
    assert "AUC 0.52" in out and "not a judgement" not in out
