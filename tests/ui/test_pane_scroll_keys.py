"""shift+↑ / shift+↓ scroll the pane under (or beside) a list, and the Footer names them
as `⇧↑⇧↓ scroll`: only while that pane holds more than it shows. A short pane, a tall
terminal: no keys to offer, no hint; the hint comes and goes as the fact shown or the
terminal's size changes. Pilot tests on real store files."""

from __future__ import annotations

from tests.ui.helpers import footer_line, imported, make_app, screen_text, settle

HINT = "⇧↑⇧↓ scroll"
LONG = (  # two of these fill more than half of 80x24
    "the nightly export of the billing ledger to the data warehouse runs at 02:00 UTC from"
    " the replica, takes about forty minutes on a normal day, and pages the on-call"
    " engineer of the payments team when it fails twice in a row, after which the export"
    " is retried by hand from the runbook"
)


def _queue(tmp_path):
    """Two suggestions: a short pair (the pane fits at 80x24) and a long one (it does not)."""
    facts = [
        {"id": "ops#1", "text": LONG, "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "ops#2",
            "text": LONG.replace("02:00", "03:30"),
            "created_at": "2025-03-01T00:00:00Z",
            "note": "ops",
        },
        {
            "id": "dep#1",
            "text": "Deploys run on Fridays.",
            "created_at": "2025-01-01T00:00:00Z",
            "note": "deploy",
        },
        {
            "id": "dep#2",
            "text": "Deploys run on Tuesdays.",
            "created_at": "2025-03-01T00:00:00Z",
            "note": "deploy",
        },
    ]
    return imported(tmp_path, "ops", facts)


async def _twice(pilot) -> None:
    await settle(pilot)
    await settle(pilot)


async def _on(pilot, app, fact: str) -> None:
    """The queue's cursor on the suggestion about `fact`."""
    for _ in range(3):
        if app.screen.current().fact == fact:
            return
        await pilot.press("down")
        await _twice(pilot)
    assert app.screen.current().fact == fact


async def test_the_queue_offers_the_pane_keys_only_while_its_pane_overflows(tmp_path):
    """The R queue's Footer said `⇧↑⇧↓ scroll` over a pane that showed all of two short
    texts. It says so over the long pair (its border: `⇧↓ more below`), not over the short
    one, and not over the long one once the terminal is tall enough; shift+↓ over the short
    one scrolls nothing and the list keeps its cursor."""
    app = make_app(_queue(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _twice(pilot)
            await pilot.press("R")
            await _twice(pilot)
            await _twice(pilot)
            await _on(pilot, app, "dep#1")
            seen = screen_text(app)
            assert "Deploys run on Tuesdays." in seen and "y accepts · d dismisses" in seen, seen
            footer = await footer_line(pilot, "? help", absent=(HINT,))
            assert HINT not in footer and "more below" not in seen, seen
            assert footer.rstrip().endswith("? help"), footer
            await pilot.press("shift+down")
            await _twice(pilot)
            assert app.screen.current().fact == "dep#1" and app.screen.scrolled_pane().scroll_y == 0
            await _on(pilot, app, "ops#1")
            footer = await footer_line(pilot, HINT)
            assert HINT in footer, footer
            assert "⇧↓ more below" in screen_text(app), screen_text(app)
            await pilot.resize_terminal(120, 60)
            await _twice(pilot)
            await _twice(pilot)
            seen = screen_text(app)
            assert "y accepts · d dismisses" in seen and "more below" not in seen, seen
            footer = await footer_line(pilot, "? help", absent=(HINT,))
            assert HINT not in footer, footer
            await pilot.resize_terminal(80, 24)
            await _twice(pilot)
            await _twice(pilot)
            footer = await footer_line(pilot, HINT)
            assert HINT in footer, footer
    finally:
        app.store.close()


async def test_the_list_footer_names_the_pane_keys_only_while_the_pane_overflows(db):
    """From 100 columns the list's Footer named `⇧↑⇧↓ scroll` whatever the pane held. At
    160x60 the detail pane beside the list shows all of the fact: no keys; at 120x40 it
    does not, and the Footer names them again."""
    app = make_app(db)
    try:
        async with app.run_test(size=(160, 60)) as pilot:
            await _twice(pilot)
            assert app.main.current_fact_id() == "f-pay-01"
            footer = await footer_line(pilot, "? help", "p pane", absent=(HINT,))
            assert HINT not in footer and "? help" in footer and "p pane" in footer, footer
            await pilot.resize_terminal(120, 40)
            await _twice(pilot)
            await _twice(pilot)
            footer = await footer_line(pilot, HINT)
            assert HINT in footer, footer
            await pilot.press("shift+down")
            await _twice(pilot)
            assert app.main.scrolled_pane().scroll_y == 1 and app.main.current_fact_id() == "f-pay-01"
    finally:
        app.store.close()
