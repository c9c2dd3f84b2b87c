"""A factor's reason that wraps keeps its indent on every line, in the pane beside the list
(narrow) and in the full detail view (wide)."""

from __future__ import annotations

from textual.widgets import Static

from synapse_tui.ui.widgets import explain as xp
from synapse_tui.ui.widgets.fact_detail import FactDetail
from tests.ui.helpers import settle


def _reason_lines(pane: FactDetail, app) -> list[list[str]]:
    """Each reason's lines as painted: the line it starts on and its continuations."""
    factors = pane.query_one("#detail-factors", Static)
    lines = [factors.render_line(y).text.rstrip() for y in range(factors.size.height)]
    why = xp.reasons(pane.explain, app.config.review.threshold, app.memory.scores.now)
    found = []
    for reason in why.values():
        start = next(i for i, line in enumerate(lines) if line.strip() and reason.startswith(line.strip()))
        taken, got = [lines[start]], lines[start].strip()
        while len(got) < len(reason):
            taken.append(lines[start + len(taken)])
            got += " " + taken[-1].strip()
        found.append(taken)
    return found


async def test_a_wrapped_reason_keeps_its_indent_in_the_pane(app):
    async with app.run_test(size=(60, 30)) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale: its freshness reason is the longest
        await settle(pilot)
        pane = app.main.query_one(FactDetail)
        found = _reason_lines(pane, app)
        assert any(len(lines) > 1 for lines in found), found  # at 60 columns a reason wraps
        for lines in found:
            indent = len(lines[0]) - len(lines[0].lstrip())
            assert indent >= 4, lines
            for line in lines[1:]:
                assert len(line) - len(line.lstrip()) == indent, lines
