"""Constants per kind in the browser (SPEC 14): the History tab shows each kind's decision,
`a` writes the kinds' own B0 and s and records the fit (what an agent is told), ctrl+z puts
the config back, and the detail beside the list says which constants scored a fact."""

from __future__ import annotations

from textual.widgets import Static

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.verdicts import FIT_META
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.calibration import CalibrationScreen
from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.widgets.fact_detail import FactDetail
from tests.core.history_stores import DEFAULTS, generate
from tests.ui.helpers import make_app, screen_text, settle

FEEDBACK = DEFAULTS | {"freshness.b0": -2.6, "freshness.scale": 0.5}
PROJECT = DEFAULTS | {"freshness.b0": -0.8, "freshness.scale": 1.5}


async def test_history_tab_adopts_each_kinds_constants_and_the_pane_names_them(tmp_path):
    kinds = {"feedback": FEEDBACK, "project": PROJECT}
    src, now = generate(tmp_path / "h.jsonl", None, kinds=kinds, days=400, horizon=90, arrivals=3.0)
    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    cfg = db.with_name("memory.synapse.toml")
    app = make_app(db, now=format_time(now))
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.push_screen(CalibrationScreen("history"))
        await settle(pilot)
        for _ in range(80):
            if app.screen.history is not None:
                break
            await settle(pilot, 0.2)
        app.screen.query_one("#his-body").scroll_end(animate=False)
        await settle(pilot)
        text = screen_text(app)
        assert "PER KIND" in text and "feedback" in text and "project" in text and "its own" in text
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "freshness.kind.feedback.b0" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert [k[0] for k in app.config.freshness.kind] == ["feedback", "project"]
        assert app.store.meta(FIT_META)["source"] == "history"
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert not cfg.exists() and app.config.freshness.kind == ()
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        pane = app.main.query_one(FactDetail)
        factors = pane.query_one("#detail-factors", Static)
        painted = " ".join(factors.render_line(y).text.strip() for y in range(factors.size.height))
        assert "(its own, [freshness.kind])" in painted and "kind " in painted, painted
    app.store.close()
