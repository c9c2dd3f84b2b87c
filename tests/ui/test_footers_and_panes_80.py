"""At 80 columns every Footer names its essential keys and `? help`; the pane under a list
(the Replaced? and Gone? queues', the list's detail pane) scrolls from the keyboard with
the keys the Footer and help name, and says so; a fact deleted at its source is marked as
such in the list at every width. Each as a pilot test on a real store file."""

from __future__ import annotations

import shutil

import pytest
from textual.containers import VerticalScroll

from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import build_store, footer_line, imported, make_app, row_of, screen_text, select, settle

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LONG = (
    "the nightly export of the billing ledger to the data warehouse runs at 02:00 UTC from"
    " the replica, takes about forty minutes on a normal day, and pages the on-call"
    " engineer of the payments team when it fails twice in a row, after which the export"
    " is retried by hand from the runbook"
)


def _replaced(tmp_path):
    """Two long texts, the newer replacing the older: a pane longer than its half screen."""
    facts = [
        {"id": "ops#1", "text": LONG, "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "ops#2",
            "text": LONG.replace("02:00", "03:30"),
            "created_at": "2025-03-01T00:00:00Z",
            "note": "ops",
        },
    ]
    return imported(tmp_path, "ops", facts)


def _gone(tmp_path):
    from tests.core.referent_repo import NOTES, build

    repo = build(tmp_path / "repo", NOTES)
    return imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")


async def _open(pilot, *keys: str) -> None:
    await settle(pilot)
    await pilot.press(*keys)
    await settle(pilot)
    await settle(pilot)


@pytest.mark.parametrize(
    ("store", "key", "essentials", "wide_only"),
    [
        (
            _replaced,
            "R",
            ["esc close", "y accept", "d dismiss", "␣ mark", "cxvas triage", "⇧↑⇧↓ scroll"],
            "Y accept marked",
        ),
        pytest.param(
            _gone,
            "B",
            # its pane's last line (every key acting on the queue) takes two lines at 80
            # columns: the pane holds more than it shows, and the Footer says it scrolls
            ["esc close", "y contra", "d dismiss", "␣ mark", "cxvas triage", "⇧↑⇧↓ scroll"],
            "Y contradict marked",
            marks=needs_git,
        ),
    ],
)
async def test_a_queue_footer_at_80_columns_keeps_its_keys_and_help(
    tmp_path, store, key, essentials, wide_only
):
    """R's Footer read `esc close y accept d dismiss space mark Y accept marked D dismiss
    marked ^z^y un` at 80 columns: `? help` (and the undo) cut off the edge. The keys that
    act on one suggestion, the pane's scroll and `? help` show; the marked ones, which help
    lists, come back from 120 columns."""
    app = make_app(store(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _open(pilot, key)
            footer = await footer_line(pilot, *essentials, "^z^y undo", "? help")
            for part in [*essentials, "^z^y undo", "? help"]:
                assert part in footer, (part, footer)
            assert footer.rstrip().endswith("? help"), footer
            if "⇧↑⇧↓ scroll" not in essentials:  # nothing to scroll offers no keys to it
                assert "scroll" not in footer, footer
            await pilot.resize_terminal(120, 40)
            await settle(pilot)
            await settle(pilot)
            footer = await footer_line(pilot, "? help", wide_only)
            assert "? help" in footer and wide_only in footer, footer
    finally:
        app.store.close()


async def test_every_footer_at_80_columns_ends_in_view_with_help(db):
    """Every view's Footer fits 80 columns: `? help` (or, in a dialog, its way out) in view,
    nothing cut at the edge."""
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            seen = {"list": await footer_line(pilot, "? help")}
            app.main.go_to_fact("f-pay-02")
            await settle(pilot)
            for name, keys in [
                ("detail", "enter"),
                ("neighbours", "n"),
                ("log", "l"),
                ("count by", "F"),
                ("replaced", "R"),
            ]:
                await _open(pilot, keys)
                seen[name] = await footer_line(pilot, "? help")
                await pilot.press("escape")
                await settle(pilot)
            for name, action in [("path", app.action_path), ("calibration", app.action_calibrate)]:
                action()
                await settle(pilot)
                await settle(pilot)
                seen[name] = await footer_line(pilot, "? help")
                await pilot.press("escape")
                await settle(pilot)
            await _open(pilot, "s")
            seen["supersede"] = await footer_line(pilot, "? help")
            for name, footer in seen.items():
                assert "? help" in footer, (name, footer)
                assert footer[-1] == " " or footer.endswith("cmds"), (name, footer)  # not cut at the edge
    finally:
        app.store.close()


async def test_the_replaced_pane_scrolls_from_the_keyboard(tmp_path):
    """The pane under R's list (two long texts, more than half of 80x24) scrolled only with
    the mouse: the list has the focus, so ↓ moves the list. shift+↓ scrolls the pane down
    (the highlighted suggestion stays), its top border says more is below, and shift+↑
    scrolls it back."""
    app = make_app(_replaced(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _open(pilot, "R")
            box = app.screen.query_one("#replaced-pane-box", VerticalScroll)
            assert "y accepts · d dismisses" not in screen_text(app)
            assert "⇧↓ more below" in screen_text(app), screen_text(app)
            for _ in range(20):
                await pilot.press("shift+down")
            await settle(pilot)
            seen = screen_text(app)
            assert "y accepts · d dismisses" in seen, seen
            assert "⇧↑ more above" in seen, seen
            assert app.screen.current().fact == "ops#1"  # the list's cursor did not move
            for _ in range(20):
                await pilot.press("shift+up")
            await settle(pilot)
            assert box.scroll_y == 0 and "why (0.99)" in screen_text(app)
    finally:
        app.store.close()


async def test_the_list_pane_at_80x24_scrolls_from_the_keyboard_as_its_hint_says(db):
    """The pane under the list said "↓ scroll for why and provenance": ↓ moved the list's
    cursor to the next fact. Its hint names shift+↓, which scrolls the pane (the cursor
    stays); help lists the key."""
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await select(pilot, "f-pay-01")
            await settle(pilot)
            assert "⇧↓ scrolls to why and provenance" in screen_text(app), screen_text(app)
            pane = app.main.query_one(FactDetail)
            for _ in range(6):
                await pilot.press("shift+down")
            await settle(pilot)
            assert pane.scroll_y > 0 and app.main.current_fact_id() == "f-pay-01"
            await pilot.press("shift+up")
            await settle(pilot)
            assert pane.scroll_y == 5
            await pilot.press("question_mark")
            await settle(pilot)
            assert "⇧↓" in screen_text(app) or "⇧↓" in str(app.screen.rows), app.screen.rows
    finally:
        app.store.close()


def _deleted_store(tmp_path):
    """The fixture store after a sync that found f-deploy gone from its source."""
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.ingest.adapters import Snapshot
    from synapse_tui.core.ingest.adapters.sync import sync_snapshot
    from synapse_tui.core.store.db import Store

    db = build_store(tmp_path)
    with Store.open(db) as store:
        result = sync_snapshot(
            store,
            Snapshot("mem0", "h.db", [], {"f-deploy"}),
            Config(),
            clock=Clock(parse_time("2026-11-20T00:00:00Z")),
        )
    assert result.newly_deleted == 1
    return db


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_deleted_fact_reads_deleted_in_the_all_list(tmp_path, size):
    """After two uncommitted edits of one line, All showed three near-identical rows: the
    deleted one told apart by a grey a monochrome terminal does not show. Its row says
    `deleted` where the live ones say their guidance, and is dimmed, at 80 columns too."""
    app = make_app(_deleted_store(tmp_path))
    try:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await select(pilot, "f-deploy")
            await settle(pilot)
            row = row_of(app, "f-deploy")
            assert row.rstrip().endswith("deleted"), row
            live = row_of(app, "f-pay-01")
            assert not live.rstrip().endswith("deleted") and "supported" in live, live
            facts = app.main.query_one(FactList)
            strip = facts.render_line(facts.cursor - round(facts.scroll_offset.y))
            word = next(seg for seg in strip if "deleted" in seg.text)
            muted = app.main.query_one(FactList).get_component_rich_style("fact-list--deleted").color
            assert word.style.color == muted, (word.style, muted)  # grey, as the rest of the row
    finally:
        app.store.close()


async def test_a_deleted_fact_reads_deleted_in_the_neighbour_and_path_views(tmp_path):
    """The neighbour view listed f-deploy (deleted at its source) as a live neighbour: only
    a superseded fact was marked (struck). It says `deleted` before the text, dimmed, in
    the neighbour view, over the view of its own neighbours and on the path through it."""
    app = make_app(_deleted_store(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await select(pilot, "f-deploy-freeze")
            await _open(pilot, "n")
            row = next(line for line in screen_text(app).splitlines() if " f-deploy " in line)
            assert "deleted · Production" in row, row
            live = next(line for line in screen_text(app).splitlines() if " f-mid-2 " in line)
            assert "deleted" not in live, live
            await pilot.press("escape")
            await settle(pilot)
            await select(pilot, "f-deploy")
            await _open(pilot, "n")
            head = screen_text(app).splitlines()[1]
            assert "NEIGHBOURS OF f-deploy" in head and head.rstrip().endswith("deleted"), head
            await pilot.press("escape")
            await settle(pilot)
            from synapse_tui.ui.screens.path import PathScreen

            app.push_screen(PathScreen("f-deploy-freeze", "f-deploy"))
            await settle(pilot)
            await settle(pilot)
            seen = screen_text(app)
            assert "deleted · Production deploys" in seen, seen
    finally:
        app.store.close()


async def test_the_list_footer_names_the_pane_keys_while_there_is_a_pane(db):
    """From 100 columns the list's Footer names `⇧↑⇧↓ scroll`; `p` hides the pane, and the
    keys with it (they would scroll nothing)."""
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            footer = await footer_line(pilot, "⇧↑⇧↓ scroll")
            assert "⇧↑⇧↓ scroll" in footer, footer
            await pilot.press("p")
            await settle(pilot)
            await settle(pilot)
            footer = await footer_line(pilot, "? help", absent=("scroll",))
            assert "scroll" not in footer and "? help" in footer, footer
            await pilot.press("p")
            await settle(pilot)
            await settle(pilot)
            footer = await footer_line(pilot, "⇧↑⇧↓ scroll")
            assert "⇧↑⇧↓ scroll" in footer, footer
    finally:
        app.store.close()
