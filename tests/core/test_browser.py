"""The browser's state owner, without Textual: queues and counts, marks, search, as-of,
triage in flight, undo following the fact that came back, the clock moving."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.browser import Browser, Search
from synapse_tui.core.graph.build import update_graph
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.queues import QUEUES
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.ui.fixtures.make_facts import TRUSTED_KEY

FACTS = Path(__file__).parents[1] / "ui" / "fixtures" / "facts.jsonl"
NOW = parse_time("2026-12-01T00:00:00Z")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text(f'[trust]\nsigners = ["{TRUSTED_KEY}"]\n')
    config = load_config(tmp_path / "memory.synapse.toml")
    with Store.open(path, create=True) as store:
        import_facts(store, parse_file(FACTS), "x", after_insert=lambda c, new: update_graph(c, new, config))
    return path


class MovingClock(Clock):
    """Wall time that advances a minute per reading, as a long session would."""

    def __init__(self, start: float) -> None:
        object.__setattr__(self, "t", start)

    def now(self) -> float:
        object.__setattr__(self, "t", self.t + 60)
        return self.t


def open_browser(db: Path, clock: Clock | None = None) -> Browser:
    store = Store.open(db)
    browser = Browser(store, load_config(db.with_name("memory.synapse.toml")), clock or Clock(NOW))
    installed(browser, browser.load())
    return browser


def installed(browser: Browser, result):
    """What the app's main thread does with a worker's result: install it."""
    browser.install(result)
    return result


def ids(browser: Browser) -> list[str]:
    return [browser.memory.ids[p] for p in browser.rows().order]


def queue_index(key: str) -> int:
    return next(i for i, q in enumerate(QUEUES) if q.key == key)


def count(browser: Browser, key: str) -> int:
    return browser.rows().counts[queue_index(key)]


def test_queues_counts_and_order(db):
    b = open_browser(db)
    rows = b.rows()
    assert len(rows.order) == 30 and rows.counts[0] == 30
    b.set_queue(queue_index("disputed"))
    assert set(ids(b)) == {"f-deploy", "f-old-3", "f-contested-signed"}
    b.set_queue(queue_index("stale"))
    stale = ids(b)
    fresh = b.memory.scores.freshness[[b.memory.index[f] for f in stale]]
    heads = [f for f in stale if b.memory.scores.k[b.memory.index[f]] == 0]
    assert stale[0] == heads[0] and fresh[0] == fresh[: len(heads)].min()  # the stalest first
    assert set(stale[-2:]) == {"f-db-v1", "f-db-v2"}  # superseded history last
    b.set_sort("fresh", reverse=True)
    fresh = b.memory.scores.freshness[b.rows().order]
    assert (fresh[:-1] >= fresh[1:]).all()


def test_search_narrows_queues_and_counts(db):
    b = open_browser(db)
    b.set_search(b.search("payments"))
    rows = b.rows()
    assert rows.ranked and ids(b)[0] == "f-pay-01"
    assert rows.counts[0] == 4
    b.set_search(Search())
    assert b.rows().counts[0] == 30


def test_reasons_say_why_and_name_the_other_fact(db):
    b = open_browser(db)
    i, j = b.memory.index["f-dup-a"], b.memory.index["f-dup-b"]
    assert b.reason(i) == "exact duplicate of f-dup-b" and b.other(i) == j
    assert b.reason(b.memory.index["f-old-3"]).startswith("unsupported: auto, never corroborated")
    assert (
        b.reason(b.memory.index["f-unsup"]) == "near-duplicate cluster of 4: with f-db-v1, f-db-v2, f-db-v3"
    )
    assert b.reason(b.memory.index["f-nosig"]).startswith("missing signature")
    b.set_queue(queue_index("signature"))
    assert b.reason(b.memory.index["f-badsig"]).startswith("forged")
    assert b.reason(b.memory.index["f-stranger"]).startswith("untrusted key")


def test_a_fact_with_a_triage_in_flight_cannot_be_claimed_again(db):
    b = open_browser(db)
    assert b.claim(["f-old-1"]) == []
    assert b.claim(["f-old-1"]) == ["f-old-1"]  # the second key saw a row about to change
    b.lock.acquire()  # the worker cannot finish yet
    done = []
    worker = threading.Thread(target=lambda: done.append(b.triage("corroborate", ["f-old-1"])))
    worker.start()
    assert b.claim(["f-old-1"]) == ["f-old-1"]
    b.lock.release()
    worker.join()
    assert b.claim(["f-old-1"]) == ["f-old-1"]  # until the main thread installs the result
    b.install(done[0])
    assert done[0].error is None and b.claim(["f-old-1"]) == []


def test_triage_updates_counts_incrementally_and_undo_follows_the_fact(db):
    b = open_browser(db)
    b.set_queue(queue_index("disputed"))
    assert count(b, "disputed") == 3
    handed_out = b.rows().order
    result = installed(b, b.triage("supersede", ["f-deploy"], "f-deploy-freeze"))
    assert result.error is None and result.notice.startswith("supersede f-deploy by f-deploy-freeze")
    assert count(b, "disputed") == 2  # a dispute resolved by a newer version leaves Disputed
    assert "f-deploy" not in ids(b) and len(handed_out) == 3  # results are never written to
    b.set_queue(0)
    undone = installed(b, b.triage("undo", []))
    assert undone.follow in ("f-deploy", "f-deploy-freeze")
    assert count(b, "disputed") == 3


def test_deleted_facts_leave_the_triage_queues(db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE facts SET deleted = 1 WHERE id IN ('f-deploy', 'f-dup-a', 'f-badsig')")
    b = open_browser(db)
    assert count(b, "all") == 30
    for key in ("disputed", "suspect", "signature"):
        b.set_queue(queue_index(key))
        assert not {"f-deploy", "f-dup-a", "f-badsig"} & set(ids(b)), key
    b.set_search(b.search("is:deleted"))
    b.set_queue(0)
    assert set(ids(b)) == {"f-deploy", "f-dup-a", "f-badsig"}


def test_the_clock_moves_so_a_fresh_triage_is_not_in_the_future(db):
    b = open_browser(db, MovingClock(NOW))
    result = installed(b, b.triage("verify", ["f-old-1"]))
    i = b.memory.index["f-old-1"]
    assert result.error is None
    assert "clock_skew" not in b.memory.scores.flag_names(i)
    assert b.memory.scores.now > NOW


def test_with_the_clock_moving_an_action_rescores_its_facts_and_a_catch_up_the_rest(db):
    """A full rescore costs about 0.1 s at a million facts: an action under a moving clock
    scores only its facts (at the new instant) and leaves the others to `catch_up`, after
    which every score is what a fresh load at that instant gives."""
    from synapse_tui.core.review.memory import Memory

    clock = MovingClock(NOW)
    b = open_browser(db, clock)
    other = b.memory.index["f-pay-01"]
    before = b.memory.scores.trust.copy()
    assert not b.memory.mixed
    installed(b, b.triage("verify", ["f-old-1"]))
    i = b.memory.index["f-old-1"]
    assert b.memory.scores.trust[other] == before[other]  # not rescored: scored a minute ago
    assert b.memory.scores.trust[i] != before[i] and "clock_skew" not in b.memory.scores.flag_names(i)
    assert b.memory.mixed and b.clock_behind()
    installed(b, b.catch_up())
    assert not b.memory.mixed and b.memory.scores.trust[other] != before[other]
    fresh = Memory(b.store, b.config, b.memory.scores.now)
    for name in ("trust", "band", "flags", "guidance", "age_days"):
        assert np.array_equal(getattr(b.memory.scores, name), getattr(fresh.scores, name)), name
    installed(b, b.triage("contradict", ["f-old-1"]))  # the spare buffer the catch-up prepared is written
    assert b.memory.scores.trust[other] == fresh.scores.trust[other]
    assert b.memory.scores.trust[i] < fresh.scores.trust[i]


def test_as_of_shows_the_store_as_it_was_and_is_read_only(db):
    b = open_browser(db)
    assert installed(b, b.triage("corroborate", ["f-pay-03"])).error is None
    installed(b, b.set_as_of(parse_time("2026-10-01T00:00:00Z")))
    shown = set(ids(b))
    created = {f: b.live.arrays.created[b.live.index[f]] for f in b.live.ids}
    assert shown == {f for f, t in created.items() if t <= parse_time("2026-10-01T00:00:00Z")}
    assert "f-db-v3" not in shown and "f-pay-01" not in shown
    flags = b.memory.scores.flags[b.rows().order]
    assert not (flags & 1).any()  # no event lies in the future of T: no clock_skew
    i = b.memory.index["f-pay-03"]
    assert int(b.memory.arrays.r[i]) == 0  # the corroboration came later
    assert b.memory.scores.k[b.memory.index["f-db-v2"]] == 0  # f-db-v3 did not exist yet
    refused = installed(b, b.triage("verify", ["f-pay-03"]))
    assert refused.error and "read-only" in refused.error
    installed(b, b.set_as_of(None))
    assert int(b.memory.arrays.r[i]) == 1 and count(b, "all") == 30


def test_view_restores_queue_sort_search_and_cursor(db):
    b = open_browser(db)
    b.set_queue(queue_index("uncertain"))
    b.set_sort("trust", True)
    b.set_search(b.search("tier:auto"))
    saved = b.rows(cursor="f-mid-2").view
    b.set_queue(0)
    b.set_search(Search())
    b.restore(saved)
    rows = b.rows()
    assert rows.view.cursor == "f-mid-2" and rows.view.queue == queue_index("uncertain")
    assert len(rows.order) == rows.counts[queue_index("uncertain")] < 30


def test_marks_are_immutable_sets(db):
    b = open_browser(db)
    first = b.marks
    b.toggle_mark(3)
    b.mark(np.array([4, 5]))
    assert first == frozenset() and b.marks == {3, 4, 5}
    b.toggle_mark(3)
    assert b.marks == {4, 5}
    b.clear_marks()
    assert not b.marks
    assert len(QUEUES) == 7


def test_the_graph_views_and_the_session_log_read_through_the_browser(db):
    from synapse_tui.core.review.triage import Triage

    with Store.open(db) as early:
        Triage(early, Clock(NOW), actor="agent:early").apply("verify", ["f-sso"])  # before
    b = open_browser(db)
    ego = b.neighbourhood("f-pay-01")
    assert ego.error is None and ego.info is not None and not ego.info.approximate
    assert "f-pay-02" in ego.value.fact_ids()
    assert b.neighbourhood("f-nope").error == "no fact f-nope in this store"
    path = b.path("f-pay-01", "f-mid-3")
    assert [n.id for n in path.value.nodes] == ["f-pay-01", "f-pay-02", "ledger", "f-mid-3"]
    b.config = b.config.with_values("graph", path_max_hops=1)
    assert b.path("f-pay-01", "f-deploy").error.startswith("f-pay-01 and f-deploy are not connected")
    assert b.session_log() == ()  # the agent acted before the browser opened
    installed(b, b.triage("corroborate", ["f-deploy"]))
    Triage(b.store, Clock(NOW), actor="agent:scribe").apply("contradict", ["f-pay-02"])
    log = b.session_log()
    assert [(e.action, e.fact_id) for e in log] == [("contradict", "f-pay-02"), ("corroborate", "f-deploy")]
    # the log's undo names its batch: the newest is the agent's, so nothing is undone
    refused = installed(b, b.triage("undo", [], expect=log[1].batch))
    assert refused.error and "nothing undone" in refused.error
    assert b.store.record("f-deploy").corroborations == 2
    assert installed(b, b.triage("undo", [], expect=log[0].batch)).follow == "f-pay-02"
    assert b.store.record("f-pay-02").contradictions == 0


def test_the_audit_scores_with_the_browsers_config(db):
    b = open_browser(db)
    installed(b, b.set_config(b.config.with_values("confidence", prior_weight=10.0)))
    i = b.memory.index["f-deploy"]
    before = float(b.memory.scores.trust[i])
    installed(b, b.triage("corroborate", ["f-deploy"]))
    assert abs(b.store.history("f-deploy")[-1].score_before["trust"] - before) < 1e-9


def test_explanation_is_typed_and_the_show_json_contract_unchanged(db):
    b = open_browser(db)
    shown = b.memory.explain("f-deploy")
    assert "chain_newer" not in shown and "suspect" not in shown  # show --json stays as it was
    e = b.explanation("f-deploy")
    assert (e.id, e.guidance, e.contradictions, e.k) == ("f-deploy", "disputed", 3, 0)
    assert e.suspect.startswith("near-duplicate cluster of 3") and e.source is None
    assert isinstance(e.flags, tuple) and isinstance(e.history, tuple)
    with pytest.raises(TypeError):
        e.what_if["verify"] = 1.0  # frozen all the way down
    assert b.explanation("no-such-fact") is None


def test_triage_says_which_rows_look_different(db):
    b = open_browser(db)
    result = installed(b, b.triage("contradict", ["f-pay-01"]))
    assert result.repaint.tolist() == [b.memory.index["f-pay-01"]]  # the clock is pinned
    moved = open_browser(db, MovingClock(NOW)).triage("verify", ["f-old-1"])
    assert moved.repaint is not None and b.memory.index["f-old-1"] in moved.repaint.tolist()


def test_a_worker_changes_nothing_shown_until_the_main_thread_installs_it(db, tmp_path):
    """Another writer adds facts: the reload's state is whole (five more facts, masks as
    long), and until it is installed the list paints the old one, consistent with itself;
    a triage right after starts from the reload's state, not from the one on screen, and
    whichever result reaches the main thread last, the newer state stays."""
    b = open_browser(db)
    shown = b.rows()
    src = tmp_path / "agent.jsonl"
    src.write_text(
        "".join(
            f'{{"id": "agent-{i}", "text": "agent note {i} payments", "created_at": "2026-11-30T00:00:00Z"}}\n'
            for i in range(5)
        )
    )
    with Store.open(db) as other:
        import_facts(other, parse_file(src), str(src))
    assert b.changed_elsewhere() and not b.changed_elsewhere()  # one reload asked per change
    loaded = b.reload()
    assert len(loaded.state.memory) == 35 and loaded.state.masks.shape[1] == 35
    assert loaded.elsewhere == "changed elsewhere: 5 new facts"
    assert len(b.memory) == 30 and b.rows().counts == shown.counts  # not installed yet
    landed = b.triage("verify", ["agent-2"])  # a fact only the reload has read
    assert landed.error is None and landed.state.live is loaded.state.live
    b.install(landed)  # posted first (threads race to the queue): the older one is no undo
    b.install(loaded)
    assert b.state is landed.state and len(b.memory) == 35 and b.rows().counts[0] == 35
    assert landed.outcome.batch in b.own_batches  # the log tells this browser's action apart


def test_an_action_on_a_fact_another_reviewer_changed_since_the_list_was_read_is_refused(db):
    b = open_browser(db)
    with Store.open(db) as other:
        Triage(other, Clock(NOW), "user:ann", config=b.config).apply("contradict", ["f-old-1"])
    refused = installed(b, b.triage("corroborate", ["f-old-1"]))
    assert refused.outcome is None and "changed by user:ann" in refused.error and "reload" in refused.error
    with Store.open(db) as other:
        assert [e.actor for e in other.history("f-old-1")] == ["user:ann"]  # nothing of ours landed
    assert installed(b, b.triage("corroborate", ["f-old-2"])).error is None  # an untouched fact: fine
    installed(b, b.reload())
    assert installed(b, b.triage("corroborate", ["f-old-1"])).error is None  # decided on what it now shows


def test_a_bulk_notice_counts_with_thousands_separators(tmp_path):
    """Read on a real store of 28,934 facts: "verify 28934 facts". The screen writes every
    other count as 28,934."""
    facts = [
        {"id": f"f{i}", "text": f"fact number {i}", "created_at": "2026-11-01T00:00:00Z"} for i in range(1200)
    ]
    path = tmp_path / "many.db"
    from tests.helpers import write_jsonl

    with Store.open(path, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "many.jsonl", facts)), "x")
    browser = Browser(Store.open(path), load_config(tmp_path / "none.toml"), Clock(NOW))
    installed(browser, browser.load())
    result = installed(browser, browser.triage("verify", [f["id"] for f in facts]))
    assert result.notice.startswith("verify 1,200 facts: mean trust"), result.notice
