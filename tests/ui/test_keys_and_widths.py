"""Every key does what it says, at every width.

Each test is a user's keystrokes on the fixture store at a terminal size, asserting what
they would notice (the store's rows, the screen's text)."""

from __future__ import annotations

import pytest

from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import (
    NOW,
    audit,
    db_row,
    footer_line,
    record_notices,
    screen_text,
    searched,
    select,
    settle,
)

SIZES = [(80, 24), (120, 40), (200, 50)]


# -- 1. marks belong to the queue they were made in ---------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_marks_stay_with_their_queue_and_the_key_acts_on_the_row_shown(app, db, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale
        await settle(pilot)
        facts = app.main.query_one(FactList)
        stale = [app.memory.ids[p] for p in facts.order[:2]]
        await pilot.press("space", "space")
        await settle(pilot)
        assert "2 marked" in screen_text(app)  # visible at every width
        await pilot.press("3")  # Disputed
        await settle(pilot)
        shown = app.main.current_fact_id()
        assert shown not in stale
        before = db_row(db, shown)["s"]
        assert "2 marked" not in screen_text(app)  # the marks do not apply here...
        assert "○ 2" in screen_text(app) and "in Stale" in screen_text(app)  # ...and say where
        await pilot.press("x")
        await settle(pilot)
        assert db_row(db, shown)["s"] == before + 1
        assert [r["fact_id"] for r in audit(db)] == [shown]
        await pilot.press("2")  # back in Stale the marks apply again
        await settle(pilot)
        assert "2 marked" in screen_text(app)


async def test_a_bulk_key_names_the_marked_facts_off_screen_before_acting(app, db):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.main.current_fact_id()
        await pilot.press("space", "end")  # the marked fact scrolls out of sight
        await settle(pilot)
        assert first not in screen_text(app)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 marked fact" in screen_text(app) and "not on screen" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert audit(db) == []
        await pilot.press("x", "y")
        await settle(pilot)
        assert [r["fact_id"] for r in audit(db)] == [first]


# -- 2. ctrl+y redoes what the last undo took back, or nothing ----------------------------


async def test_redo_reapplies_the_action_the_last_undo_took_back(app, db):
    async with app.run_test(size=(120, 40)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-unsup")
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("l")  # the session log: undo the accept from there
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert db_row(db, "f-unsup")["tier"] == "auto"
        await select(pilot, "f-pay-03")
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert notices[-1][1].startswith("redo verify f-pay-03"), notices[-1]
        await pilot.press("ctrl+y")  # the accept was undone before a new action: gone
        await settle(pilot)
        assert notices[-1][0] == "error" and "nothing to redo" in notices[-1][1]
        assert db_row(db, "f-unsup")["tier"] == "auto"
        assert [e["action"] for e in audit(db)] == ["accept", "undo", "verify", "undo", "redo"]


async def test_redo_is_refused_when_another_writer_acted_since_the_undo(app, db):
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.review.triage import Triage
    from synapse_tui.core.store.db import Store

    async with app.run_test(size=(120, 40)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        with Store.open(db) as other:  # the CLI, alongside: a new action, then its undo
            cli = Triage(other, Clock(parse_time(NOW)), actor="user:cli")
            cli.apply("contradict", ["f-deploy"])
            cli.undo()
        await pilot.press("ctrl+y")
        await settle(pilot)
        redo = [(severity, m) for severity, m in notices if m.startswith("redo")]  # not the writer's
        assert redo and redo[-1][0] == "error", notices
        assert "f-deploy" not in redo[-1][1]
        assert db_row(db, "f-deploy")["s"] == 3 and audit(db)[-1]["actor"] == "user:cli"


# -- 4. as of T, every view is the store at T ---------------------------------------------

AS_OF = "2026-11-12T12:00:00Z"  # f-dup-a exists, its duplicate f-dup-b not yet


async def _as_of(pilot) -> set[str]:
    """Switch to AS_OF; the ids of the facts created after it."""
    from synapse_tui.core.base.clock import parse_time

    app = pilot.app
    app.set_as_of(parse_time(AS_OF))
    await settle(pilot)
    return {app.memory.ids[i] for i in range(len(app.memory)) if not app.browser.exists[i]}


async def test_as_of_the_neighbour_view_shows_only_facts_that_existed(app):
    from synapse_tui.ui.screens.neighbours import NeighbourScreen

    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        later = await _as_of(pilot)
        await select(pilot, "f-mid-3")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        text = screen_text(app)
        assert "f-pay-02" in text  # a neighbour that existed
        assert not [f for f in later if f in text]


async def test_as_of_the_path_view_goes_only_through_facts_that_existed(app):
    from synapse_tui.ui.screens.path import PathScreen

    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        later = await _as_of(pilot)
        assert "f-pay-01" in later
        app.push_screen(PathScreen("f-pay-02", "f-sso"))
        await settle(pilot)
        text = screen_text(app)
        assert not [f for f in later if f in text], text


async def test_as_of_suspect_reasons_name_only_facts_that_existed(app):
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        later = await _as_of(pilot)
        await pilot.press("6")  # Suspect
        await settle(pilot)
        text = screen_text(app)
        assert "f-dup-b" in later and "exact duplicate of f-dup-b" not in text
        assert not [f for f in later if f in text]


# -- 6. ] and [ walk the queue as it was when the view opened -----------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_brackets_walk_the_queue_as_it_was_when_the_view_opened(app, db, size):
    from synapse_tui.ui.screens.detail import DetailScreen

    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale
        await settle(pilot)
        facts = app.main.query_one(FactList)
        stale = [app.memory.ids[p] for p in facts.order[:4]]
        await pilot.press("enter")
        await settle(pilot)
        seen = []
        for _ in range(3):  # a decision and ] per fact
            assert isinstance(app.screen, DetailScreen)
            seen.append(app.screen.fact_id)
            await pilot.press("v")
            await settle(pilot)
            await pilot.press("right_square_bracket")
            await settle(pilot)
        seen.append(app.screen.fact_id)
        assert seen == stale
        assert stale[3] in screen_text(app)
        assert [r["fact_id"] for r in audit(db)] == stale[:3]
        await pilot.press("left_square_bracket")  # back to a verified fact, out of Stale now
        await settle(pilot)
        assert app.screen.fact_id == stale[2]
        await pilot.press("escape")
        await settle(pilot)
        assert app.browser.view.queue == 1  # still in Stale


# -- 7. after an undo the cursor follows the fact that came back, or stays ----------------


async def test_undoing_a_supersession_puts_the_cursor_on_the_fact_that_came_back(app, db):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-dup-b")
        app.start_triage("supersede", ["f-dup-b"], "f-dup-a")  # what s, a search and y do
        await settle(pilot)
        assert db_row(db, "f-dup-a")["supersedes"] == "f-dup-b"
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert db_row(db, "f-dup-a")["supersedes"] is None
        assert app.main.current_fact_id() == "f-dup-b"


async def test_a_bulk_undo_puts_the_cursor_where_the_bulk_started(app, db):
    """Issue 42 point 16 (it used to stay where the user had moved to since)."""
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        started = app.main.current_fact_id()
        await pilot.press("M", "v")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert len(audit(db)) == 30
        await pilot.press("end", "up", "up")
        await settle(pilot)
        assert app.main.current_fact_id() != started
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert len(audit(db)) == 60
        assert app.main.current_fact_id() == started


# -- 8. the session log: one row per action, every action reachable -----------------------


async def test_the_session_log_has_one_row_per_action_and_reaches_every_one(app, db):
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.review.triage import Triage
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.screens.nav import RowTable

    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        with Store.open(db) as other:  # 35 bulks of 30 facts: 1,050 audit rows
            ids = [r[0] for r in other._conn.execute("SELECT id FROM facts ORDER BY pos")]
            cli = Triage(other, Clock(parse_time(NOW)), actor="user:cli")
            for _ in range(35):
                cli.apply("contradict", ids)
        await pilot.press("l")
        await settle(pilot)
        text = screen_text(app)
        assert "35 actions since the browser opened" in text
        table = app.screen.query_one(RowTable)
        assert table.row_count == 35
        await pilot.press("end")  # the first action of the session is reachable
        await settle(pilot)
        assert "#1 " in screen_text(app) and "30 facts" in screen_text(app)
        await pilot.press("enter")  # a bulk lists its facts
        await settle(pilot)
        assert table.row_count == 35 + 30
        await pilot.press("down", "enter")  # a fact of it opens
        await settle(pilot)
        assert app.main.current_fact_id() == ids[0]


async def test_the_session_log_shows_the_whole_time_and_actor_at_200_columns(app, db):
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.review.triage import Triage
    from synapse_tui.core.store.db import Store

    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        with Store.open(db) as other:
            Triage(other, Clock(parse_time(NOW)), actor="agent:claude-desktop-nightly").apply(
                "verify", ["f-sso"]
            )
        await pilot.press("l")
        await settle(pilot)
        text = screen_text(app)
        assert "agent:claude-desktop-nightly " in text and "2026-12-01T00:00:00Z " in text


# -- 9. the neighbour view: back restores the row, o moves the list's cursor --------------


async def test_walking_back_two_levels_restores_each_highlighted_row(app):
    from synapse_tui.ui.screens.neighbours import NeighbourScreen

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-01")
        await pilot.press("n")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NeighbourScreen)
        await pilot.press("down")
        first = screen.current_fact_id()
        assert first is not None
        await pilot.press("enter")
        await settle(pilot)
        assert screen.fact_id == first
        await pilot.press("down")
        second = screen.current_fact_id()
        assert second is not None
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("backspace")
        await settle(pilot)
        assert screen.fact_id == first and screen.current_fact_id() == second
        await pilot.press("backspace")
        await settle(pilot)
        assert screen.fact_id == "f-pay-01" and screen.current_fact_id() == first


async def test_o_in_the_neighbour_view_moves_the_lists_cursor(app):
    from synapse_tui.ui.screens.detail import DetailScreen

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-01")
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("down")
        chosen = app.screen.current_fact_id()
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.fact_id == chosen
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert app.screen is app.main and app.main.current_fact_id() == chosen


# -- 16. another writer's changes are told, and the log tells them apart ------------------


async def test_another_writer_is_noticed_and_the_log_tells_it_from_the_browser(app, db, tmp_path):
    import json

    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.review.triage import Triage, default_actor
    from synapse_tui.core.store.db import Store

    async with app.run_test(size=(200, 50)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-sso")
        await pilot.press("v")  # the browser's own action
        await settle(pilot)
        new = tmp_path / "new.jsonl"
        fact = {"id": "f-agent-new", "text": "The VPN moved to WireGuard", "created_at": NOW}
        new.write_text(json.dumps(fact) + "\n", encoding="utf-8")
        with Store.open(db) as other:  # the CLI as the same login, and an agent's remember
            Triage(other, Clock(parse_time(NOW)), actor=default_actor()).apply("contradict", ["f-deploy"])
            import_facts(other, parse_file(new), "new.jsonl")
        app.poll_store()  # what the two-second timer does
        await settle(pilot)
        told = [m for _, m in notices if "elsewhere" in m or "another" in m]
        assert told, notices
        assert "1 new fact" in told[-1] and "contradict f-deploy" in told[-1]
        await pilot.press("l")
        await settle(pilot)
        rows = [line for line in screen_text(app).splitlines() if "f-deploy" in line or "f-sso" in line]
        deploy = next(r for r in rows if "f-deploy" in r)
        sso = next(r for r in rows if "f-sso" in r)
        assert "elsewhere" in deploy and "elsewhere" not in sso


# -- 14. the words say what happened ------------------------------------------------------


async def test_after_verify_the_pane_says_reinforced_just_now(app):
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await select(pilot, "f-old-1")
        await pilot.press("v")
        await settle(pilot)
        text = screen_text(app)
        assert "last reinforced just now" in text and "now ago" not in text


async def test_the_uncertain_queue_says_freshest_means_the_score(app):
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("4")  # Uncertain
        await settle(pilot)
        text = screen_text(app)
        assert "freshest first" not in text and "Freshness score first" in text


# -- 5. escape leaves "as of"; the banner says how at 80 columns --------------------------


async def test_escape_leaves_as_of_and_the_banner_says_so_at_80_columns(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _as_of(pilot)
        banner = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("AS OF"))
        assert "esc: back to now" in banner
        await pilot.press("escape")
        await settle(pilot)
        assert app.as_of is None and "AS OF" not in screen_text(app)


# -- 10. the fact text gets room at every width, with a gap before the next column --------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("queue", ["1", "6"])  # All, and Suspect with its why column
async def test_the_fact_text_has_room_and_a_gap_at_every_width(app, size, queue):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press(queue)
        await settle(pilot)
        facts = app.main.query_one(FactList)
        from synapse_tui.ui.widgets.fact_list import Layout

        lay = Layout.for_width(facts.scrollable_content_region.width, facts.id_width, queue == "6")
        assert lay.text >= min(40, size[0] - 47)  # 46 fixed cells and a scrollbar
        if lay.reason:
            assert lay.reason >= 16
        import re

        assert not re.search(r"…\d+(h|d|mo|\.\dy) ", screen_text(app))  # text never touches the age


# -- also: the chosen theme is remembered --------------------------------------------------


async def test_the_chosen_theme_is_remembered(db, tmp_path):
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import load_config
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.app import SynapseApp

    prefs = tmp_path / "ui.json"

    def open_app() -> SynapseApp:
        config = load_config(db.with_name("memory.synapse.toml"))
        return SynapseApp(store=Store.open(db), config=config, clock=Clock(parse_time(NOW)), prefs=prefs)

    first = open_app()
    async with first.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first.theme = "nord"
        await settle(pilot)
    first.store.close()
    second = open_app()
    async with second.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert second.theme == "nord"
    second.store.close()


# -- also: the search box names its keys, and down goes to the list -----------------------


async def test_the_search_box_names_enter_and_escape_and_down_goes_to_the_list(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"payments")
        await searched(pilot)
        footer = await footer_line(pilot, "↵", "esc")
        assert "↵" in footer and "esc" in footer, footer
        await pilot.press("down")
        await settle(pilot)
        assert app.main.query_one(FactList).has_focus
        assert app.main.query_one("#search").value == "payments"  # the results stay


# -- 11. long ids: a short unique prefix in the list, that the boxes accept ----------------

LONG_IDS = [
    "m-d18ff701d9dd",
    "m-d18ff702aaaa",
    "mem0:3f2c9a1e-5b7d-4c1e-9a0b-2d4e6f8a0c1e",
    "mem0:77ab01cd-0000-4000-8000-000000000001",
]


@pytest.fixture
def long_app(tmp_path):
    import json

    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.app import SynapseApp

    src = tmp_path / "long.jsonl"
    texts = ["The TLS certificate renews in March", "The TLS certificate is from Let's Encrypt"]
    texts += ["Backups run at night", "The staging database is wiped weekly"]
    src.write_text(
        "".join(
            json.dumps({"id": i, "text": t, "created_at": "2026-11-01T00:00:00Z"}) + "\n"
            for i, t in zip(LONG_IDS, texts, strict=True)
        ),
        encoding="utf-8",
    )
    db = tmp_path / "long.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
    app = SynapseApp(
        store=Store.open(db), config=Config(), clock=Clock(parse_time(NOW)), theme="textual-dark"
    )
    yield app
    app.store.close()


@pytest.mark.parametrize("size", SIZES)
async def test_long_ids_show_a_short_unique_prefix_that_search_accepts(long_app, size):
    app = long_app
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "m-d18ff701 " in text and "m-d18ff702 " in text and "mem0:3f2c9 " in text
        assert "m-d18f…" not in text
        await pilot.press("slash", *"mem0:3f2c9")
        await searched(pilot)
        assert app.main.current_fact_id() == LONG_IDS[2]
        assert LONG_IDS[2] in screen_text(app) or size[1] < 30  # the whole id in the pane


# -- 12. neighbour rows show where their text differs --------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_neighbour_rows_show_the_part_of_the_text_that_differs(tmp_path, size):
    import json

    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.graph.build import update_graph
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store
    from synapse_tui.ui.app import SynapseApp
    from synapse_tui.ui.screens.neighbours import NeighbourScreen

    stem = "The task to renew the TLS certificate of the payments gateway is owned by"
    owners = ["Ana Souza", "Bo Lindqvist", "Chen Wei", "Dara Okafor", "Eli Navarro"]
    src = tmp_path / "tls.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": f"t-{i}", "text": f"{stem} {o}", "created_at": "2026-11-01T00:00:00Z"}) + "\n"
            for i, o in enumerate(owners)
        ),
        encoding="utf-8",
    )
    db = tmp_path / "tls.db"
    config = Config()
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src), after_insert=lambda c, n: update_graph(c, n, config))
    app = SynapseApp(store=Store.open(db), config=config, clock=Clock(parse_time(NOW)), theme="textual-dark")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, "t-0")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        text = screen_text(app)
        shown = [o for o in owners[1:] if o.split()[0] in text]
        assert len(shown) >= 2, text
    app.store.close()
