"""The supersede chooser's blast radius when the store fails under it: a failure, never
"the graph is not built".

The failure is real: another program renames a table the blast radius reads (`mentions`)
while the browser is open. The user sees an error notice in plain words naming the store
and the missing table, the chooser says it could not list or check, and `y` writes
nothing. A store whose graph really is not built still says so, in the graph views' words.
The neighbour view reads the graph the same way (`read_graph`) and tells such a failure alike.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.supersede import SupersedeScreen
from tests.ui.helpers import (
    FIXTURES,
    audit,
    db_row,
    errors,
    make_app,
    record_notices,
    said,
    screen_text,
    select,
    settle,
    shown,
)

SIZE = (100, 40)

# what SQLite says of the table renamed by another program, in the server's words
MENTIONS_GONE = "(no such table: mentions: a table renamed or dropped by hand?)"


async def _preview(pilot, old: str, query: str, target: str) -> SupersedeScreen:
    """`s` on `old`, search `query`, preview `target` (enter on it)."""
    await select(pilot, old)
    await pilot.press("s")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SupersedeScreen)
    await pilot.press(*query)
    await settle(pilot, 0.3)  # the search's debounce
    await pilot.press("enter")  # to the candidates
    await settle(pilot)
    options = screen.query_one("#sup-candidates")
    index = next(i for i in range(options.option_count) if options.get_option_at_index(i).id == target)
    options.highlighted = index
    await pilot.press("enter")  # preview
    await settle(pilot)
    return screen


async def test_a_table_gone_under_the_blast_radius_is_told_as_a_store_failure(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
            other.execute("ALTER TABLE mentions RENAME TO mentions_elsewhere")
        await select(pilot, "f-dup-b")
        await pilot.press("s")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, SupersedeScreen)
        gone = f"{db}: the store could not be read or written {MENTIONS_GONE}"
        # the related facts the chooser starts with could not be read: said so, twice
        assert errors(notices, "Could not find the candidates") == [f"Could not find the candidates: {gone}"]
        await shown(pilot, "could not list the candidates:")  # where the words end depends on the
        # store's path, folded at the box's width: the widget's text holds them whole
        assert f"could not list the candidates: {gone}" in said(app), said(app)
        await pilot.press("escape")
        await settle(pilot)
        await _preview(pilot, "f-dup-b", "gateway", "f-dup-a")
        assert errors(notices, "Could not preview") == [f"Could not preview the supersede: {gone}"]
        text = await shown(pilot, "cannot apply: could not be checked:")
        assert "cannot apply: could not be checked:" in text, text
        assert "(no such table: mentions: a table renamed or dropped by hand?)" in said(app), said(app)
        assert "not built" not in text and "isn't built" not in text and "BLAST RADIUS" not in text
        assert not [t for _, t in notices if "built" in t]
        await pilot.press("y")  # refused: nothing was checked
        await settle(pilot)
        assert isinstance(app.screen, SupersedeScreen)
    assert audit(db) == [] and db_row(db, "f-dup-a")["supersedes"] is None


async def test_a_store_without_its_graph_says_the_graph_is_not_built(tmp_path: Path):
    db = tmp_path / "memory.db"
    (tmp_path / "memory.synapse.toml").write_text("")
    with Store.open(db, create=True) as store:  # imported without building the graph
        import_facts(store, parse_file(FIXTURES / "facts.jsonl"), "facts.jsonl")
    app = make_app(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            notices = record_notices(app)
            await settle(pilot)
            await select(pilot, "f-dup-b")
            await pilot.press("s")
            await settle(pilot)
            not_built = "the neighbour graph isn't built for this store yet"
            assert f"no related facts: {not_built}" in screen_text(app)
            await pilot.press("escape")
            await settle(pilot)
            await _preview(pilot, "f-dup-b", "gateway", "f-dup-a")
            text = screen_text(app)
            assert f"BLAST RADIUS unknown: {not_built}" in text
            assert "cannot apply" not in text
            assert [t for s, t in notices if s == "error"] == []  # no failure: nothing to report
            await pilot.press("y")  # the supersede itself needs no graph
            await settle(pilot)
        assert db_row(db, "f-dup-a")["supersedes"] == "f-dup-b"
    finally:
        app.store.close()


async def test_the_neighbour_view_tells_a_table_gone_the_same_way(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-01")
        with sqlite3.connect(db, isolation_level=None) as other:  # another program's change
            other.execute("ALTER TABLE mentions RENAME TO mentions_elsewhere")
        await pilot.press("n")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, NeighbourScreen)
        gone = f"{db}: the store could not be read or written {MENTIONS_GONE}"
        assert errors(notices, "Could not load the neighbours") == [f"Could not load the neighbours: {gone}"]
        await shown(pilot, "the neighbours of f-pay-01")
        assert f"the neighbours of f-pay-01 could not be read: {gone}" in said(app), said(app)
        # read again (as after another writer's commit): the same failure, still on screen,
        # is not told twice
        app.screen.refresh_view()
        await settle(pilot)
        assert errors(notices, "Could not load the neighbours") == [f"Could not load the neighbours: {gone}"]
