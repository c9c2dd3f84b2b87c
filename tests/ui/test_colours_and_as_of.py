"""Band colours defined once, screens that talk through the app,
and as-of showing the `deleted` flag as it stood then."""

from __future__ import annotations

import time

import numpy as np

from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import select, settle


def chip_styles(app, region, names, skip=None):
    """{band name: the style of its chip} as painted inside `region` of the screen (but
    for screen line `skip`: the cursor row, whose chip takes the cursor's background)."""
    found = {}
    for y, strip in enumerate(app.screen._compositor.render_strips()):  # noqa: SLF001
        if not region.y <= y < region.bottom or y == skip:
            continue
        x = 0
        for seg in strip:
            inside = region.x <= x < region.right
            x += seg.cell_length
            word = seg.text.strip().lstrip("●").strip()
            if inside and word in names and seg.style and seg.style.bgcolor:
                found.setdefault(word, seg.style)
    return found


async def test_the_detail_pane_paints_each_band_chip_as_the_list_does(app):
    """'high' was $success at 70% in the list and solid $success in the detail."""
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        pane = app.main.query_one(FactDetail)
        cursor_line = facts.region.y + facts.cursor - round(facts.scroll_offset.y)
        in_list = chip_styles(app, facts.region, set(BANDS), skip=cursor_line)
        assert {"high", "very high", "low"} <= set(in_list)
        memory = app.memory
        for band in in_list:
            i = next(i for i in range(len(memory)) if BANDS[int(memory.scores.band[i])] == band)
            await select(pilot, memory.ids[i])
            await settle(pilot)
            in_pane = chip_styles(app, pane.region, {band})
            assert band in in_pane, band
            a, b = in_list[band], in_pane[band]
            assert (a.bgcolor, a.color, bool(a.bold)) == (b.bgcolor, b.color, bool(b.bold)), band
        high, very_high = in_list["high"], in_list["very high"]
        assert (high.bgcolor, bool(high.bold)) != (very_high.bgcolor, bool(very_high.bold))


def test_no_view_reaches_into_the_list_screen():
    """Screens talk through messages (`CursorTo`, `MarksChanged`, `OpenFact`) or app
    actions, never by calling the main screen: only the app knows it."""
    import ast
    from pathlib import Path

    import synapse_tui.ui.screens as screens

    offenders = []
    for path in sorted(Path(screens.__file__).parent.glob("*.py")):
        if path.name == "main.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "main":
                owner = node.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name == "app":
                    offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


async def test_the_full_view_steps_to_the_list_ends_and_the_list_follows(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")  # Disputed: a short queue
        order = [app.memory.ids[int(p)] for p in app.main.query_one(FactList).order]
        assert len(order) >= 2
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("left_square_bracket")  # already the first: stays
        await settle(pilot)
        assert app.screen.fact_id == order[0]
        for _ in range(len(order) + 2):  # past the last: stays on the last
            await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.screen.fact_id == order[-1] == app.main.current_fact_id()
        assert app.browser.step(order[-1], -1) == order[-2]
        assert app.browser.step("no-such-fact", 1) is None


async def test_as_of_shows_the_deleted_flag_as_it_stood_then(db):
    """A sync stamps when it flags a fact deleted; as of an instant before that, the fact
    is not deleted yet (it is back in the triage queues, its detail says nothing of it)."""
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.ingest.adapters import Snapshot
    from synapse_tui.core.ingest.adapters.sync import sync_snapshot
    from synapse_tui.core.store.db import Store
    from tests.ui.helpers import make_app, screen_text

    flagged = parse_time("2026-11-20T00:00:00Z")
    with Store.open(db) as store:
        result = sync_snapshot(
            store, Snapshot("mem0", "h.db", [], {"f-deploy"}), Config(), clock=Clock(flagged)
        )
    assert result.newly_deleted == 1
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)

            def deleted() -> bool:
                return "deleted" in app.memory.scores.flag_names(app.memory.index["f-deploy"])

            assert deleted() and "Disp 2" in screen_text(app)  # deleted facts leave the queues
            app.set_as_of(parse_time("2026-11-15T00:00:00Z"))  # before the sync flagged it
            await settle(pilot)
            assert not deleted() and "Disp 3" in screen_text(app)
            explained = app.browser.explanation("f-deploy")
            assert "deleted" not in explained.flags
            app.set_as_of(parse_time("2026-11-25T00:00:00Z"))  # after: deleted then too
            await settle(pilot)
            assert deleted() and "Disp 2" in screen_text(app)
            app.set_as_of(None)
            await settle(pilot)
            assert deleted()
    finally:
        app.store.close()


async def test_as_of_keeps_a_deleted_flag_of_unknown_time(db):
    """A flag set with no record of when (an older sync) says deleted, not when: every
    instant keeps it."""
    import sqlite3

    from synapse_tui.core.base.clock import parse_time
    from tests.ui.helpers import make_app

    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE facts SET deleted = 1 WHERE id = 'f-deploy'")
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.set_as_of(parse_time("2026-11-15T00:00:00Z"))
            await settle(pilot)
            assert "deleted" in app.memory.scores.flag_names(app.memory.index["f-deploy"])
    finally:
        app.store.close()


async def test_the_pane_paints_history_when_the_cursor_rests_and_never_another_facts(app, monkeypatch):
    """Moving, the pane shows the new fact's header and factors at once; its provenance
    and history follow when the cursor rests (holding a key does not paint every one's).
    A single move paints it all at once."""
    from synapse_tui.ui.widgets import fact_detail

    # long enough that two key presses land within it on a loaded machine (two test workers
    # on two cores); the wait below lets the timer fire however long it is
    monkeypatch.setattr(fact_detail, "REST", 3.0)
    from textual.widgets import Static

    from tests.ui.helpers import screen_text

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        pane = app.main.query_one(FactDetail)

        def tail() -> str:  # the pane's provenance and history, scrolled into view or not
            part = pane.query_one("#detail-provenance", Static)
            return "\n".join(part.render_line(y).text for y in range(part.size.height))

        first = app.main.current_fact_id()
        await pilot.press("v")  # the first fact now has a history entry
        await settle(pilot)
        assert "verify  by user:" in tail()
        for _ in range(2):  # moving: the second fact is shown within REST of the first
            await pilot.press("down")
            await app.workers.wait_for_complete()
            await pilot.pause()
        second = app.main.current_fact_id()
        assert second != first and facts.position == app.memory.index[second]
        text = screen_text(app)
        assert f"{second}  " in text and "TRUST" in text  # header and factors at once
        assert "verify  by user:" not in tail() and "PROVENANCE, HISTORY …" in tail()
        assert pane.pending
        deadline = time.monotonic() + 10  # the rest is a timer: wait for it to fire, however slow
        while pane.pending and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await pilot.pause()
        assert "PROVENANCE, HISTORY …" not in tail() and "no audit entries" in tail()
        await pilot.press("up")  # one move after a rest: everything at once
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not pane.pending and "PROVENANCE, HISTORY …" not in tail()


async def test_after_a_bulk_triage_no_row_keeps_its_mark_and_changed_rows_repaint(app):
    """A triage repaints only the rows that look different; rows whose marks went away
    repaint too."""
    from tests.ui.helpers import row_of, screen_text

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        await pilot.press("p", "space", "space", "space")  # the list alone: whole texts
        await settle(pilot)
        marked = [app.memory.ids[p] for p in sorted(app.browser.marks)]
        assert len(marked) == 3 and screen_text(app).count("●") >= 3
        before = {f: row_of(app, f) for f in marked}
        await pilot.press("x")  # contradict the three marked: their trust drops
        await settle(pilot)
        assert not app.browser.marks
        lines = [ln for ln in screen_text(app).splitlines()[facts.region.y : facts.region.bottom]]
        assert not any("●" in ln[:2] for ln in lines)
        assert all(row_of(app, f) != before[f] for f in marked)
        # a batch none of whose rows looks different (as after a verify of fresh facts)
        await pilot.press("space", "space")
        await settle(pilot)
        assert screen_text(app).count("●") >= 2
        app.browser.clear_marks()
        app.main.show_rows(changed=True, repaint=np.empty(0, dtype=np.int64))
        await settle(pilot)
        lines = screen_text(app).splitlines()[facts.region.y : facts.region.bottom]
        assert not any("●" in ln[:2] for ln in lines)
