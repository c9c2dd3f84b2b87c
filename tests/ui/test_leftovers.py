"""Issue 11's leftovers: band colours defined once, screens that talk through the app,
and as-of showing the `deleted` flag as it stood then."""

from __future__ import annotations

from synapse_tui.core.trust import BANDS
from synapse_tui.ui.widgets.fact_detail import FactDetail
from synapse_tui.ui.widgets.fact_list import FactList

from .conftest import settle
from .test_triage import select


def chip_styles(app, region, names):
    """{band name: the style of its chip} as painted inside `region` of the screen."""
    found = {}
    for y, strip in enumerate(app.screen._compositor.render_strips()):  # noqa: SLF001
        if not region.y <= y < region.bottom:
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
        in_list = chip_styles(app, facts.region, set(BANDS))
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
