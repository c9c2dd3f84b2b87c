"""Triage on a server: the same actions on a file and on its copy on a server say the same,
log the same audit entries and leave the same scores (issue 25, point 1 for writes)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, json_lines, run

pytestmark = pytest.mark.postgres

ACTIONS = [
    ("corroborate", "e"),
    ("accept", "e"),
    ("contradict", "a"),
    ("supersede", "c", "d"),
    ("verify", "b"),
    ("undo",),
    ("verify", "a"),
    ("undo",),
    ("undo",),
]


@pytest.fixture
def pair(db, new_database):
    url = new_database()
    run("copy", db, url)
    return db, url, db.with_name("memory.synapse.toml")


def both(file, server, *args, ok=True):
    on_file = run(args[0], file, *args[1:], ok=ok)
    on_server = run(args[0], server, *args[1:], ok=ok)
    assert (on_server.exit_code, on_server.stdout, on_server.stderr) == (
        on_file.exit_code,
        on_file.stdout,
        on_file.stderr.replace(str(file), locate(server).shown),  # a message's spelling: no password
    )
    return on_file


@pytest.mark.parametrize("as_json", [False, True])
def test_each_action_says_and_logs_the_same(pair, as_json):
    file, server, config = pair
    flags = ["--now", NOW, "--config", config] + (["--json"] if as_json else [])
    for action in ACTIONS:
        both(file, server, *action, *flags)
        assert run("export", server, "--audit").stdout == run("export", file, "--audit").stdout
    assert run("export", server).stdout == run("export", file).stdout
    score = ("score", "--json", "--now", NOW, "--config", config)
    assert run(score[0], server, *score[1:]).stdout == run(score[0], file, *score[1:]).stdout
    logged = {e["action"] for e in json_lines(run("export", server, "--audit").stdout)}
    assert logged == {a[0] for a in ACTIONS}
    # the store as it was: before every action, and with all of them (the audit read by time)
    for when in ("2026-11-01T00:00:00Z", NOW):
        as_of = ("--as-of", when, "--now", NOW, "--config", config)
        for args in (("score", "--json"), ("show", "e", "--json"), ("export",), ("export", "--audit")):
            assert (
                run(args[0], server, *args[1:], *as_of).stdout == run(args[0], file, *args[1:], *as_of).stdout
            )


def test_a_refused_action_is_the_same_line_and_changes_nothing(pair):
    file, server, config = pair
    flags = ("--now", NOW, "--config", config)
    both(file, server, "supersede", "c", "d", *flags)
    refused = both(file, server, "supersede", "d", "c", *flags, ok=False)  # a cycle
    assert refused.exit_code == 2 and refused.stderr.startswith("error: ")
    both(file, server, "verify", "no-such-fact", *flags, ok=False)
    assert run("export", server, "--audit").stdout == run("export", file, "--audit").stdout


def test_a_read_only_store_on_a_server_refuses_a_write(pair):
    _, server, _ = pair
    with Store.open(server, readonly=True) as store, pytest.raises(StoreError, match="opened read-only"):
        with store.transaction():
            pass


def test_a_connection_the_server_dropped_is_one_line_with_the_location(pair):
    """Dropped, and not to be opened again (a dropped one that can be: test_reconnect.py)."""
    from tests.postgres.sessions import end_sessions, no_new_connections

    _, server, _ = pair
    with Store.open(server) as store:
        (pid,) = store._conn.run("SELECT pg_backend_pid()").fetchone()
        with no_new_connections(server), pytest.raises(StoreError) as caught:
            end_sessions(server, f"AND pid = {pid}")
            store.count()
    said = str(caught.value)
    assert said.startswith("the connection to postgresql://") and "connecting again failed" in said
    assert len(said.splitlines()) == 1


def test_data_version_moves_for_another_writer_not_for_its_own(pair):
    """As SQLite's: a session that wrote does not reload the store for its own action."""
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.review.triage import Action, Triage

    _, server, _ = pair
    with Store.open(server) as mine, Store.open(server) as theirs:
        first = mine.data_version()
        Triage(mine, Clock.from_option(NOW), "user:me").apply(Action.VERIFY, ["a"])
        assert mine.data_version() == first
        Triage(theirs, Clock.from_option(NOW), "user:them").apply(Action.VERIFY, ["b"])
        assert mine.data_version() != first


def test_two_reviewers_at_once_lose_no_action(pair):
    """Each action holds the store's lock for its transaction: both reviewers' actions on
    the same fact land, each in a batch of its own, and the counts add up."""
    import threading

    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.review.triage import Action, Triage

    _, server, _ = pair
    rounds, failures = 10, []

    def review(who: str) -> None:
        try:
            with Store.open(server) as store:
                triage = Triage(store, Clock.from_option(NOW), f"user:{who}")
                for _ in range(rounds):
                    triage.apply(Action.CORROBORATE, ["a"])
        except Exception as exc:  # noqa: BLE001 - the test reports it below
            failures.append(exc)

    with Store.open(server, readonly=True) as store:
        before = store.review.fields("a")["corroborations"]
    threads = [threading.Thread(target=review, args=(who,)) for who in ("ann", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    entries = json_lines(run("export", server, "--audit").stdout)
    assert sorted(e["batch"] for e in entries) == list(range(1, 2 * rounds + 1))
    assert {e["actor"] for e in entries} == {"user:ann", "user:bob"}
    with Store.open(server, readonly=True) as store:
        assert store.review.fields("a")["corroborations"] == before + 2 * rounds


def test_every_audit_read_answers_alike(pair):
    """What undo, redo, the session log, as-of and the verdicts read of the audit."""
    from synapse_tui.core.base.clock import parse_time
    from synapse_tui.core.review.triage import ACTIONS

    file, server, config = pair
    for action in ACTIONS_RUN:
        run(action[0], file, *action[1:], "--now", NOW, "--config", config)
        run(action[0], server, *action[1:], "--now", NOW, "--config", config)
    early, now = parse_time("2026-01-01T00:00:00Z"), parse_time(NOW)
    with Store.open(file, readonly=True) as f, Store.open(server, readonly=True) as s:
        reads = [
            lambda a: a.batch_heads(0),
            lambda a: a.batch_heads(3),
            lambda a: a.live_batch(ACTIONS),
            lambda a: a.live_batch(ACTIONS, undone=True),
            lambda a: a.redoable(ACTIONS),
            lambda a: a.undone_batches(),
            lambda a: a.mark(),
            lambda a: sorted(a.facts_since(2)),  # no order promised
            lambda a: a.batch(1),
            lambda a: list(a.entries()),
            lambda a: a.history("c"),
            lambda a: a.superseded_entries([1, 2, 3, 4, 5, 6]),
            lambda a: a.batch_actions(0),
            lambda a: a.changes_after(early),
            lambda a: a.live_entries("supersede", early, now),
            lambda a: a.live_entries("corroborate", early, now),
        ]
        for n, read in enumerate(reads):
            assert read(s.audit) == read(f.audit), n


ACTIONS_RUN = [("corroborate", "e"), ("supersede", "c", "d"), ("verify", "b"), ("undo",), ("accept", "a")]
