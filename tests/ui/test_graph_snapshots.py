"""Snapshots of the neighbour view, the path view, the session log and the legend.

Deterministic as test_snapshots.py: pinned clock, textual-dark, no animation, workers
awaited; the session log's actions are written before the app starts, by a named actor at
the pinned time, so no login name or wall clock reaches the picture.
"""

from __future__ import annotations

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.legend import LegendScreen
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.path import PathScreen
from synapse_tui.ui.screens.session_log import SessionLogScreen
from tests.ui.helpers import NOW, harness, settle


def _push(screen_factory):
    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.push_screen(screen_factory())
        await settle(pilot)

    return run_before


def test_neighbour_view(snap_compare, db):
    assert snap_compare(
        harness(db), terminal_size=(120, 30), run_before=_push(lambda: NeighbourScreen("f-deploy"))
    )


def test_path_view(snap_compare, db):
    assert snap_compare(
        harness(db), terminal_size=(110, 30), run_before=_push(lambda: PathScreen("f-pay-01", "f-deploy"))
    )


def test_session_log(snap_compare, db):
    with Store.open(db) as store:
        clock = Clock(parse_time(NOW))
        Triage(store, clock, actor="user:ada").apply("corroborate", ["f-deploy"])
        Triage(store, clock, actor="agent:scribe").apply("contradict", ["f-pay-02"])
        Triage(store, clock, actor="user:ada").apply("accept", ["f-pay-03"])
        Triage(store, clock, actor="user:ada").undo()
        Triage(store, clock, actor="user:ada").apply("supersede", ["f-dup-a"], "f-dup-b")
    app = harness(db)
    app.browser.session_start = 0  # the actions above belong to this session
    assert snap_compare(app, terminal_size=(120, 24), run_before=_push(SessionLogScreen))


def test_legend(snap_compare, db):
    assert snap_compare(harness(db), terminal_size=(100, 50), run_before=_push(LegendScreen))
