"""At 80x24, the default of many terminals: what a newcomer could not read there, each as
a pilot test on a real store file. The Replaced? (R) and Gone? (B) queues spent a row on
whole ids, leaving about 15 cells of the fact's text; the detail pane showed one trust
factor at most, and the opinion (b, d, u) and its guidance not at all."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.ui.widgets.fact_detail import FactDetail
from tests.ui.helpers import imported, make_app, screen_text, select, settle

LONG = "claude-code:projects/payments/memory/feedback_testing.md#"  # ids alike but for their ends
OLDER = "the build of the payments service takes 5 minutes on the CI runners"
NEWER = "the build of the payments service takes 3 minutes on the CI runners now"


def _replaced(tmp_path):
    """A newer fact that replaces an older one, both with ids of 65 characters."""
    facts = [
        {"id": f"{LONG}00000003", "text": OLDER, "created_at": "2025-01-01T00:00:00Z", "note": "ci"},
        {"id": f"{LONG}00000004", "text": NEWER, "created_at": "2025-03-01T00:00:00Z", "note": "ci"},
    ]
    return imported(tmp_path, "long", facts)


def _row(app, part: str) -> str:
    """The first line holding `part`, or the whole screen (for the assert to show)."""
    text = screen_text(app)
    return next((line for line in text.splitlines() if part in line), text)


async def test_a_replaced_row_at_80_columns_shows_the_text_not_the_ids(tmp_path):
    """Each row read `0.97  claude-code:projects/payments/memory/feedback_testing.md#00000003
    →…`: no text at all. It names both facts by the ends that tell them apart (as the list's
    id column does), and the text takes the rest; a resize to 120 columns gives the text the
    room, the pane under the list still names both whole."""
    app = make_app(_replaced(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await settle(pilot)
            await settle(pilot)
            row = _row(app, " → ")
            assert "0.97  …0003 → …0004  the build of the payments service takes 5 minutes" in row, row
            assert "laude-code" not in row, row
            assert f"OLDER  {LONG}00000003" in screen_text(app)  # the pane: whole
            await pilot.resize_terminal(120, 30)
            await settle(pilot)
            row = _row(app, " → ")
            assert f"…0003 → …0004  {OLDER}" in row, row  # the whole text, as a person reads it
    finally:
        app.store.close()


async def test_the_replaced_pane_at_80x24_says_why_above_two_long_texts(tmp_path):
    """Two texts of five lines each filled the pane under the list (at most half the
    screen, not scrollable): the score's why and the keys were cut off. The why comes
    first, and the rest scrolls."""
    from textual.containers import VerticalScroll

    long = (
        "the nightly export of the billing ledger to the data warehouse runs at 02:00 UTC from"
        " the replica, takes about forty minutes on a normal day, and pages the on-call"
        " engineer of the payments team when it fails twice in a row, after which the export"
        " is retried by hand from the runbook"
    )
    facts = [
        {"id": "ops#1", "text": long, "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "ops#2",
            "text": long.replace("02:00", "03:30"),
            "created_at": "2025-03-01T00:00:00Z",
            "note": "ops",
        },
    ]
    db = imported(tmp_path, "ops", facts)
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await settle(pilot)
            await settle(pilot)
            seen = screen_text(app)
            assert "why (0.99)" in seen and "'02:00' became" in seen, seen
            assert "y accepts" not in seen  # below: the pane scrolls to it
            app.screen.query_one("#replaced-pane-box", VerticalScroll).scroll_end(animate=False)
            await settle(pilot)
            assert "y accepts · d dismisses" in screen_text(app), screen_text(app)
    finally:
        app.store.close()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_a_gone_row_at_80_columns_shows_the_path_and_the_text(tmp_path):
    """B's rows read `git-notes:mem.md#8a6a1a44418a  src/auth/login.py  The auth flow is in
    `sr…`: the id cut as the list cuts it leaves the fact's text readable beside the path."""
    from tests.core.referent_repo import NOTES, build

    repo = build(tmp_path / "repo", NOTES)
    db = imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("B")
            await settle(pilot)
            await settle(pilot)
            row = _row(app, "src/auth/login.py  ")
            assert "src/auth/login.py  The auth flow is in `src/auth/login.py`" in row, row
            assert "git-notes:" not in row, row
            assert "FACT  git-notes:mem.md#" in screen_text(app)  # the pane: whole
    finally:
        app.store.close()


def _pane_lines(app) -> str:
    """The lines under the list: the pane, as far as the terminal shows it."""
    lines = screen_text(app).splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("▔▔▔"))
    return "\n".join(lines[top + 1 :])


@pytest.mark.parametrize(
    ("fact_id", "shown"),
    [
        # a suspect line above the text
        ("f-pay-01", ["Confidence 0.95", "Freshness 0.89", "Supersession 1.00", "Gate 0.90", "supported"]),
        # a text of four lines at 80 columns
        ("f-long", ["Confidence 0.93", "Freshness 0.61", "Supersession 1.00", "Gate 0.90", "go corroborate"]),
    ],
)
async def test_the_pane_at_80x24_shows_every_factor_and_the_opinion(app, fact_id, shown):
    """The pane under the list (7 lines at 80x24) showed the title, the text, two blank lines
    and `TRUST`: not one factor's value, nor b, d, u. It shows the four factors and the
    opinion with its guidance under the title, and says the rest is below."""
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await select(pilot, fact_id)
        await settle(pilot)
        pane = _pane_lines(app)
        ex = app.main.query_one(FactDetail).explain
        for part in [*shown, f"b {ex.b:.2f}", f"d {ex.d:.2f}", f"u {ex.u:.2f}"]:
            assert part in pane, (part, pane)
        if fact_id == "f-pay-01":  # room for the hint too
            assert "scroll" in pane and "enter" in pane, pane


@pytest.mark.parametrize("size", [(120, 40), (100, 30)])
async def test_a_wider_pane_says_every_factor_and_the_opinion_above_the_rows(app, size):
    """At 120x40 the pane showed each factor's row and reason, and the opinion was below
    them out of sight; at 100x30 the rows of Supersession and Gate were below too. TRUST
    names each factor's value and the opinion's line sits under it; 120x40 keeps every row."""
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-01")
        await settle(pilot)
        pane = _pane_lines(app)
        assert "= Confidence 0.95 × Freshness 0.89 × Supersession 1.00 × Gate 0.90" in pane, pane
        assert "OPINION b 0.67  d 0.00  u 0.33  supported" in pane, pane
        if size == (120, 40):
            for reason in ("4 corroborations against 0", "fresh: last reinforced", "a person accepted it"):
                assert reason in pane, (reason, pane)


def test_replaced_queue_80x24(snap_compare, tmp_path):
    """What the R queue looks like at 80x24 with ids of 65 characters: score, cut ids, text."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await settle(pilot)

    assert snap_compare(make_app(_replaced(tmp_path)), terminal_size=(80, 24), run_before=run_before)
