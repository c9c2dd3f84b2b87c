"""Snapshot tests (plain `def`, snap_compare): what the browser looks like.

Deterministic: pinned clock, TZ=UTC, textual-dark, no animation, workers awaited.
Update with `pytest tests/ui --snapshot-update` and look at the report before committing.
"""

from __future__ import annotations

from tests.ui.helpers import candidates_listed, make_app, settle


def _app(db):
    return make_app(db)


def _goto(fact_id: str, *keys: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        if fact_id:
            pilot.app.main.go_to_fact(fact_id)
            await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await settle(pilot)

    return run_before


def test_list(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(100, 30), run_before=_goto(""))


def test_detail_disputed(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(100, 50), run_before=_goto("f-deploy", "enter"))


def test_detail_stale_signed(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(100, 50), run_before=_goto("f-sso", "enter"))


def test_help(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(100, 40), run_before=_goto("", "question_mark"))


def test_calibration(snap_compare, db):
    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.action_calibrate()
        await settle(pilot)

    assert snap_compare(_app(db), terminal_size=(100, 50), run_before=run_before)


def test_small_terminal(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(60, 20), run_before=_goto("f-deploy"))


def test_search_error(snap_compare, db):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("slash")
        # typed at once: typed key by key on a busy machine, "tier:auto" could be searched
        # on the way (a debounce apart) and narrow the list before the typo is reached
        pilot.app.main.query_one("#search").insert_text_at_cursor("tier:autox pay")
        error = pilot.app.main.query_one("#search-error")
        for _ in range(100):  # the debounced search answers when it answers, on a busy machine
            if error.display:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        pilot.app.query_one("#search").cursor_blink = False
        await pilot.pause()

    assert snap_compare(_app(db), terminal_size=(100, 30), run_before=run_before)


def test_notice_after_triage(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(100, 30), run_before=_goto("f-deploy", "c"))


def test_supersede_blast_radius(snap_compare, db):
    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.main.go_to_fact("f-pay-02")
        await pilot.pause()
        await pilot.press("s")
        await settle(pilot)
        await pilot.press(*"ledger")
        await candidates_listed(pilot)
        await pilot.press("enter")
        options = pilot.app.screen.query_one("#sup-candidates")
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        options.highlighted = ids.index("f-mid-3")
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(_app(db), terminal_size=(100, 36), run_before=run_before)


def test_paired_200x50(snap_compare, db):
    """The list and the detail pane side by side, on a disputed fact."""
    assert snap_compare(_app(db), terminal_size=(200, 50), run_before=_goto("f-deploy"))


def test_paired_120x40(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(120, 40), run_before=_goto("f-sso"))


def test_stacked_80x24(snap_compare, db):
    """Narrow: the pane under the list; the footer fits 80 columns."""
    assert snap_compare(_app(db), terminal_size=(80, 24), run_before=_goto("f-pay-02"))


def test_suspect_queue_says_why(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(160, 30), run_before=_goto("", "p", "6"))


def test_bulk_confirmation_120x40(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(120, 40), run_before=_goto("", "M", "v"))


def test_bulk_confirmation_80x24(snap_compare, db):
    assert snap_compare(_app(db), terminal_size=(80, 24), run_before=_goto("", "M", "v"))


def test_as_of(snap_compare, db):
    async def run_before(pilot) -> None:
        from synapse_tui.core.base.clock import parse_time

        await settle(pilot)
        pilot.app.set_as_of(parse_time("2026-10-01T00:00:00Z"))
        await settle(pilot)

    assert snap_compare(_app(db), terminal_size=(120, 30), run_before=run_before)


def test_supersede_picker_80x24(snap_compare, db):
    """Every candidate's text shows under its id and reason, however narrow."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.main.go_to_fact("f-pay-02")
        await pilot.pause()
        await pilot.press("s")
        await settle(pilot)
        pilot.app.screen.query_one("#sup-search").cursor_blink = False
        await pilot.pause()

    assert snap_compare(_app(db), terminal_size=(80, 24), run_before=run_before)
