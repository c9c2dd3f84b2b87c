"""Pilot tests of the browser defects of issue 42, each as a user would meet it."""

from __future__ import annotations

import pytest

from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import SIZE, footer_line, record_notices, searched, settle

LONG = "claude-code:projects/payments/memory/feedback_testing.md#"  # an id the list cuts


def _long_ids(tmp_path, extra=()):
    """A store of three facts whose ids differ only in their last characters (LONG and a
    tail), plus `extra`; its path and the facts imported."""
    from tests.cli_run import run
    from tests.helpers import write_jsonl

    facts = [
        {"id": f"{LONG}{tail}", "text": f"fact {n}", "created_at": "2026-11-20T09:00:00Z"}
        for n, tail in enumerate(["a1b2c3d4", "a1b2c3e9", "ffe01234"])
    ] + list(extra)
    db = tmp_path / "long.db"
    run("import", write_jsonl(tmp_path / "long.jsonl", facts), "--db", db)
    return db, facts


async def _type_search(pilot, text: str) -> None:
    await pilot.press("slash")
    pilot.app.main.query_one("#search").insert_text_at_cursor(text)
    await searched(pilot)


async def test_11_an_invalid_filter_lists_nothing_so_nothing_can_be_marked(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        everything = len(app.main.query_one(FactList).order)
        assert everything > 5
        await _type_search(pilot, "is:stal paylane")
        facts = app.main.query_one(FactList)
        assert len(facts.order) == 0
        assert "no facts here" in facts.render_line(0).text
        facts.focus()
        await pilot.press("M")
        await settle(pilot)
        assert not app.browser.marks
        await pilot.press("v")
        await settle(pilot)
        assert not any("verify" in text and "trust" in text for _, text in notices)
        # corrected, the list follows the query again
        box = app.main.query_one("#search")
        box.value = "is:stale"
        await searched(pilot)
        assert 0 < len(facts.order) < everything


async def test_16_undoing_a_bulk_puts_the_cursor_back_where_the_bulk_started(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale
        await settle(pilot)
        facts = app.main.query_one(FactList)
        for _ in range(3):
            await pilot.press("down")
        started = app.main.current_fact_id()
        stale = len(facts.order)
        await pilot.press("M")
        await pilot.press("v")
        await settle(pilot)
        if app.screen is not app.main:  # asked to confirm
            await pilot.press("y")
            await settle(pilot)
        assert len(facts.order) < stale  # verified: they left the Stale queue
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert len(facts.order) == stale
        assert app.main.current_fact_id() == started
        assert facts.cursor == 3


def _footer_keys(app) -> list[tuple[str, str]]:
    from textual.widgets._footer import FooterKey

    from synapse_tui.ui.widgets.footer import KeysFooter

    footer = app.main.query_one(KeysFooter)
    keys = [k for k in footer.query(FooterKey) if k.region.width]
    assert all(k.region.right <= footer.region.right for k in keys)  # nothing cut off
    return [(k.key_display, k.description) for k in keys]


async def test_10_the_footer_shows_the_hidden_keys_that_fit(db):
    from tests.ui.helpers import make_app

    essentials = {("/", "find"), ("?", "help"), ("^p", "cmds")}
    extras = {("l", "log"), ("L", "legend"), ("p", "pane"), ("M", "mark all"), ("q", "quit")}
    # what each width's Footer holds once it has measured the keys that fit (it composes
    # again for them after a layout)
    drawn = {80: essentials, 120: {("l", "log"), ("M", "mark all")}, 200: extras}
    seen = {}
    for width in (80, 120, 200):
        app = make_app(db)
        async with app.run_test(size=(width, 30)) as pilot:
            await settle(pilot)
            await footer_line(pilot, *(f"{key} {words}" for key, words in drawn[width]))
            seen[width] = _footer_keys(app)
        app.store.close()
    assert essentials <= set(seen[80]) and not extras & set(seen[80])
    assert {("l", "log"), ("M", "mark all")} <= set(seen[120])
    assert extras <= set(seen[200])


async def test_12_the_path_view_steps_with_j_k_through_every_stop_without_wrapping(db):
    from synapse_tui.ui.screens.path import PathScreen
    from tests.ui.helpers import harness

    app = harness(db)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.push_screen(PathScreen("f-pay-01", "f-mid-3"))
        await settle(pilot)
        steps = app.screen.query_one("#path-steps")

        def here() -> str:
            return str(steps.get_option_at_index(steps.highlighted).prompt)

        assert here().startswith("● f-pay-01")
        stops = []
        for _ in range(4):
            await pilot.press("j")
            stops.append(here())
        assert stops[0].startswith("● f-pay-02")
        assert stops[1].startswith("◇ ledger")  # the entity is a stop too
        assert stops[2].startswith("● f-mid-3")
        assert stops[3] == stops[2]  # the end: no wrap to the top
        await pilot.press("down")
        assert here().startswith("● f-mid-3")
        for _ in range(5):
            await pilot.press("k")
        assert here().startswith("● f-pay-01")  # the top: no wrap to the end
        await pilot.press("up")
        assert here().startswith("● f-pay-01")
    app.store.close()


async def test_8_calibration_tabs_by_tab_and_numbers_pagedown_scrolls_keys_per_tab(tmp_path):
    from synapse_tui.ui.screens.calibration import CalibrationScreen
    from tests.ui.helpers import make_app, screen_text
    from tests.verdict_stores import verdicts_store

    db = verdicts_store(tmp_path, pairs=60)
    cfg = db.with_name("memory.synapse.toml")
    before = cfg.read_text() if cfg.exists() else None
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        app.push_screen(CalibrationScreen())
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#cal-tabs").active == "freshness"
        assert "w apply B0/s" in screen_text(app)
        await pilot.press("tab")
        await settle(pilot)
        assert screen.query_one("#cal-tabs").active == "verdicts"
        text = screen_text(app)
        assert "apply B0/s" not in text  # the Freshness tab's key is not offered here
        await pilot.press("w")  # ...and does nothing here
        await settle(pilot)
        assert (cfg.read_text() if cfg.exists() else None) == before
        assert not any("wrote" in t for _, t in notices)
        body = screen.query_one("#ver-body")
        await pilot.press("pagedown")
        await settle(pilot)
        assert body.scroll_y > 0
        await pilot.press("1")
        await settle(pilot)
        assert screen.query_one("#cal-tabs").active == "freshness"
        await pilot.press("pagedown")
        await settle(pilot)
        assert screen.query_one("#cal-body").scroll_y > 0
        await pilot.press("2")
        await settle(pilot)
        assert screen.query_one("#cal-tabs").active == "verdicts"
        await pilot.press("shift+tab")
        assert screen.query_one("#cal-tabs").active == "freshness"
    app.store.close()


async def test_9_help_in_the_neighbour_view_and_log_says_what_enter_does_and_lists_triage(app):
    from synapse_tui.ui.screens.help import HelpScreen

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key, enter in (("n", "Walk to the highlighted fact"), ("l", "Jump to the fact")):
            await pilot.press(key)
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            rows = dict(app.screen.rows)
            does = " | ".join(rows.values())
            for generic in ("Cursor left", "Cursor right", "Focus Next", "Copy selected text", "Select"):
                assert generic not in rows.values(), (key, generic)
            assert rows["⏎"].startswith(enter), rows
            for triage in ("c", "x", "v", "a", "s"):  # the log is empty: its Footer shows them later
                assert triage in rows, (key, triage, does)
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)


async def test_13_the_sync_notice_counts_deletions_and_says_it_was_this_browsers_sync(tmp_path):
    import time

    from tests.cli_run import run
    from tests.core.mcp_memory_files import ENTITIES, save
    from tests.ui.helpers import make_app, palette_answered

    memory = save(tmp_path / "memory.jsonl")
    db = tmp_path / "memory.db"
    run("import", "--from", "mcp-memory", memory, "--db", db)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            notices = record_notices(app)
            await settle(pilot)
            # Alice's two observations: one dropped, one added
            alice = {**ENTITIES[0], "observations": ["Speaks French", "Moved to Lyon"]}
            save(memory, [alice, *ENTITIES[1:]])
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*"sync sources")
            await palette_answered(pilot)
            await pilot.press("enter")
            deadline = time.monotonic() + 20
            while not any("sync:" in t for _, t in notices) and time.monotonic() < deadline:
                await settle(pilot, 0.3)
            told = [t for _, t in notices if "sync:" in t or "elsewhere" in t]
            assert told, notices
            assert told[-1].startswith("your sync: "), told
            assert "1 new fact" in told[-1] and "1 fact deleted at the source" in told[-1], told
            assert not any("changed elsewhere" in t for t in told)
    finally:
        app.store.close()


async def test_6_a_key_typed_ahead_acts_on_no_fact_the_user_has_not_seen(app, db):
    from textual import events

    from tests.ui.helpers import audit, select

    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-01")
        # x typed ahead: both keys queued together, as a fast typist's reach the app
        app.post_message(events.Key("n", "n"))
        app.post_message(events.Key("x", "x"))
        await settle(pilot)
        # nothing acted on a fact never drawn; whether `x` met the view before its first paint
        # (a notice then says so) or the list still in front is the machines' race, not asserted
        assert audit(db) == [], notices
        shown = app.screen.current_fact_id()
        assert shown is not None
        await pilot.press("x")  # now it is on screen: it acts
        await settle(pilot)
        assert [(e["action"], e["fact_id"]) for e in audit(db)] == [("contradict", shown)]


async def test_17_counts_a_person_reads_group_thousands(app):
    from synapse_tui.ui.widgets.queue_bar import QueueBar

    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        bar = app.main.query_one(QueueBar)
        bar.update_state(0, [100000, 12386, 3, 0, 1729, None, 7], 1729)
        await pilot.pause()
        text = bar.render().plain
        assert "All 100,000" in text and "1,729 marked" in text and "12,386" in text
        bar.update_state(0, [100000] * 7, 0, (1729, "Stale"))
        assert "1,729 marks in Stale" in bar.render().plain


async def test_7_triage_keys_are_held_with_a_notice_while_a_bulk_runs(app, db):
    from synapse_tui.ui.screens.confirm import ConfirmScreen
    from tests.ui.helpers import audit

    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await pilot.press("M", "v")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        with app.browser.lock:  # the bulk's write waits on the store: it is running
            await pilot.press("y")
            await pilot.pause(0.1)
            assert any("30 facts…" in t for _, t in notices), notices  # it says it is under way
            from tests.ui.helpers import screen_text

            line = next(li for li in screen_text(app).splitlines() if "step 0/3" in li)  # a line, n/N
            assert "verify 30 facts · step 0/3: waiting for the store…" in line, line
            assert "triage keys wait until it lands" in line
            await pilot.press("v")  # a second bulk: held, no second confirm
            await pilot.pause(0.1)
            assert not isinstance(app.screen, ConfirmScreen)
            await pilot.press("ctrl+z")  # an undo of what has not landed: held too
            await pilot.pause(0.1)
            held = [t for _, t in notices if "held while 30 facts are still being changed" in t]
            assert len(held) == 2, notices
        await settle(pilot)
        assert app.main.progress_seen == [
            "verify 30 facts · step 0/3: waiting for the store…",
            "verify 30 facts · step 1/3: writing 30 facts…",
            "verify 30 facts · step 2/3: rescoring 30 facts…",
            "verify 30 facts · step 3/3: repainting the list…",
        ]
        assert "step 3/3" not in screen_text(app)  # landed: the line is gone
        assert {e["batch"] for e in audit(db)} == {1} and len(audit(db)) == 30
        await pilot.press("ctrl+z")  # landed: keys act again
        await settle(pilot)
        assert len(audit(db)) == 60


async def test_17_a_redo_is_listed_in_history_as_a_redo(app):
    from tests.ui.helpers import screen_text, select

    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        for key in ("c", "ctrl+z", "ctrl+y", "enter"):
            await pilot.press(key)
            await settle(pilot)
        history = screen_text(app).split("HISTORY", 1)[1]
        assert "redo" in history and "(redoes #1)" in history and "(undoes #1)" in history
        assert history.count("undoes #1") == 1


async def test_3_the_list_shows_ids_that_tell_facts_apart_and_the_cli_takes_them(tmp_path):
    import json

    from tests.cli_run import run
    from tests.ui.helpers import make_app, row_of

    db, facts = _long_ids(tmp_path)
    for size in ((80, 24), (120, 40)):
        app = make_app(db)
        try:
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                shown = {}
                for fact in facts:
                    row = row_of(app, fact["id"])
                    token = next(t for t in row.split() if t.startswith("…") or t.startswith("claude"))
                    shown[fact["id"]] = token.lstrip("…")
                assert len(set(shown.values())) == 3, shown  # no two rows show the same id
                for fid, token in shown.items():  # typing what you see finds that fact
                    assert json.loads(run("show", db, token, "--json").stdout)["id"] == fid
        finally:
            app.store.close()


async def test_18_y_copies_the_whole_id_of_the_fact_shown(app):
    from tests.ui.helpers import select

    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-deploy-freeze")
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == "f-deploy-freeze"
        assert notices[-1][1] == "copied f-deploy-freeze"
        await pilot.press("n")  # in a view on top: the highlighted neighbour's
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard == app.screen.current_fact_id() != "f-deploy-freeze"


async def test_a_view_without_a_fact_says_so_and_copies_or_changes_nothing(app, db):
    """The path view and a triage move (the palette offers them on any view) on the
    calibration screen, which shows no fact: each says "no fact selected" and does
    nothing. `y` is not offered there (help does not list it: it could never copy a
    fact), and pressing it does nothing."""
    from synapse_tui.ui.screens.calibration import CalibrationScreen
    from synapse_tui.ui.screens.help import binding_rows
    from tests.ui.helpers import audit

    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        app.push_screen(CalibrationScreen())
        await settle(pilot)
        before = audit(db)
        assert "y" not in dict(binding_rows(app.screen))
        await pilot.press("y")
        await settle(pilot)
        assert notices == []
        app.action_path()
        app.action_triage("corroborate")
        await settle(pilot)
        assert [text for _, text in notices] == ["no fact selected"] * 2, notices
        assert app.clipboard == ""
        assert isinstance(app.screen, CalibrationScreen)
        assert audit(db) == before


async def test_17_the_fit_decision_reads_as_words(tmp_path):
    from synapse_tui.ui.screens.calibration import CalibrationScreen
    from tests.ui.helpers import make_app, screen_text
    from tests.verdict_stores import verdicts_store

    db = verdicts_store(tmp_path, pairs=3)
    app = make_app(db)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        app.push_screen(CalibrationScreen("verdicts"))
        await settle(pilot)
        app.screen.query_one("#ver-body").scroll_end(animate=False)
        await settle(pilot)
        text = screen_text(app)
        assert "FITTED CONSTANTS  too few verdicts to fit" in text, text
        assert "too-few" not in text
    app.store.close()


async def test_17_a_review_date_centuries_out_reads_not_within_a_century(tmp_path):
    from tests.cli_run import run
    from tests.helpers import write_jsonl
    from tests.ui.helpers import make_app, screen_text, select

    hot = {"id": "hot", "text": "reinforced a million times", "created_at": "2026-11-20T09:00:00Z"}
    db = tmp_path / "hot.db"
    run(
        "import", write_jsonl(tmp_path / "hot.jsonl", [{**hot, "reinforcement_count": 1_000_000}]), "--db", db
    )
    app = make_app(db)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "hot")
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        assert "REVIEW DUE  not within a century" in text and "9999" not in text
    app.store.close()


async def test_18_the_filtered_list_copies_as_the_score_command_that_lists_it(app, db):
    import json

    from tests.cli_run import run
    from tests.ui.helpers import palette_answered

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _type_search(pilot, "tier:auto trust<0.4")
        shown = {app.memory.ids[p] for p in app.main.query_one(FactList).order}
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"copy this list as")
        await palette_answered(pilot)
        await pilot.press("enter")
        await settle(pilot)
        command = app.clipboard
    assert command == f"synapse-tui score {db} --where 'tier:auto trust<0.4' --limit 0"
    listed = run("score", db, "--where", "tier:auto trust<0.4", "--limit", "0", "--json").stdout
    assert {json.loads(line)["id"] for line in listed.splitlines()} == shown and shown


async def test_17_the_legend_explains_the_narrow_abbreviations(app):
    from tests.ui.helpers import screen_text

    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        text = screen_text(app)
        for short in ("v.low below 96 columns", "mod below 96 columns", "v.hi below 96 columns"):
            assert short in text, short
        assert "TIERS" in text and "hum" in text and "sig" in text


async def test_17_a_deleted_row_dims_its_band_and_guidance_too(tmp_path):
    from tests.cli_run import run
    from tests.helpers import write_jsonl
    from tests.ui.helpers import make_app

    base = {"text": "the same evidence", "created_at": "2026-11-20T09:00:00Z", "corroborations": 3}
    facts = [{**base, "id": "live"}, {**base, "id": "gone", "deleted": True}]
    db = tmp_path / "d.db"
    run("import", write_jsonl(tmp_path / "d.jsonl", facts), "--db", db)
    app = make_app(db)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        facts_list = app.main.query_one(FactList)
        rows = {app.memory.ids[p]: r for r, p in enumerate(facts_list.order)}
        assert app.memory.scores.band[0] == app.memory.scores.band[1]
        base = facts_list.rich_style

        def styles(fid):
            segs = list(facts_list._render_row(rows[fid], 118, False, base))
            return segs[0].style, segs[-1].style, segs[-1].text.strip()  # band chip, guidance

        live, gone = styles("live"), styles("gone")
        assert (live[2], gone[2]) == ("supported", "deleted")  # the deleted one says so in words
        assert gone[0].color != live[0].color and gone[1].color != live[1].color
    app.store.close()


async def test_4_a_contradiction_says_it_was_recorded_what_moved_and_why_the_guidance_reads_so(app):
    """SPEC 2.1 is kept (r=2, s=0 uncertain; s=1 supported): the toast and the pane say why."""
    from tests.ui.helpers import screen_text, select

    async with app.run_test(size=(200, 60)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-old-2")  # r=2, s=0: uncertain (u = 0.50)
        assert "uncertainty u 0.40 < 0.50" not in screen_text(app)
        await pilot.press("x")
        await settle(pilot)
        text = notices[-1][1]
        assert text.startswith("contradict f-old-2: contradiction recorded; trust"), text
        assert "d 0.00 -> 0.20 (rose), u 0.50 -> 0.40 (fell)" in text, text
        assert (
            "guidance uncertain -> supported: the added evidence lowered uncertainty (u 0.40 < 0.50);"
            " disputed from d >= 0.25, now 0.20"
        ) in text, text
        pane = screen_text(app)
        assert "uncertainty u 0.40 < 0.50; disputed from d >= 0.25, now 0.20" in pane, pane
        await pilot.press("enter")  # full screen: and that evidence against lowers u too
        await settle(pilot)
        assert "0.20; 1 contradiction lowered u too: evidence either way" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("x")  # now d 0.33: disputed, and it says from what
        await settle(pilot)
        assert "guidance supported -> disputed: disbelief d 0.33 >= 0.25" in notices[-1][1]
        await pilot.press("x")
        await settle(pilot)
        assert "still disputed: disbelief d 0.43 >= 0.25" in notices[-1][1]


async def test_3_the_search_box_finds_an_id_as_shown_and_names_the_facts_an_ambiguous_one_names(tmp_path):
    from tests.ui.helpers import make_app, row_of

    versions = "mem0:7f3e9c1a-22b4-4e5c-9a4f-0c1d2e3f4a5b@"
    db, facts = _long_ids(
        tmp_path,
        [{"id": f"{versions}{v}", "text": f"v{v}", "created_at": "2026-11-20T09:00:00Z"} for v in (1, 2)],
    )
    for size in ((80, 24), (120, 40), (200, 50)):
        app = make_app(db)
        try:
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                listed = app.main.query_one(FactList)
                bar = app.main.query_one("SearchBar")
                shown_ids = {  # each id exactly as its row shows it, '…' and all
                    f["id"]: next(t for t in row_of(app, f["id"]).split()[2:] if "…" in t or ":" in t)
                    for f in facts
                }
                for fact in facts:
                    shown = shown_ids[fact["id"]]
                    bar.input.value = shown
                    await searched(pilot)
                    assert [app.memory.ids[p] for p in listed.order] == [fact["id"]], (size, shown)
                    assert bar.error is None
                bar.input.value = "mem0:7f3e9c1a"  # the start of both versions
                await searched(pilot)
                assert {app.memory.ids[p] for p in listed.order} == {f"{versions}1", f"{versions}2"}
                note = bar.error.plain
                assert "'mem0:7f3e9c1a' is ambiguous: it names 2 facts" in note, note
                assert f"{versions}1" in note and f"{versions}2" in note and "type more of the id" in note
        finally:
            app.store.close()


async def test_3_the_path_box_takes_an_id_as_shown_and_answers_an_ambiguous_one(db):
    from synapse_tui.ui.screens.path import PathScreen
    from tests.ui.helpers import harness, screen_text

    app = harness(db)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.push_screen(PathScreen("f-pay-01"))
        await settle(pilot)
        box = app.screen.query_one("#path-to")
        box.value = "f-pay"  # the start of three ids
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        assert "'f-pay' is ambiguous: it names 3 facts (f-pay-01, f-pay-02, f-pay-03)" in text, text
        box.value = "…id-3"  # a tail, as a narrow list shows a long id
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        steps = app.screen.query_one("#path-steps")
        assert str(steps.get_option_at_index(steps.option_count - 1).prompt).startswith("● f-mid-3")
    app.store.close()


def _wcag(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio, computed here from the definition (not the app's helper)."""

    def lum(c):
        r, g, b = (v / 255 for v in c)
        f = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in (r, g, b)]
        return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2]

    high, low = sorted((lum(a), lum(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_17_the_cursor_row_is_highlighted_in_every_cell_and_its_band_reads_at_4_5(db, theme):
    from tests.ui.helpers import make_app

    app = make_app(db)
    app.theme = theme
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        band = app.memory.scores.band
        for focused in (True, False):
            if not focused:
                app.main.query_one("#search").focus()
                await settle(pilot)
            for b in range(5):  # a row of every band, under the cursor
                row = next(r for r, p in enumerate(facts.order) if band[p] == b)
                cursor = facts.get_component_rich_style("fact-list--cursor")
                segments = [s for s in facts._render_row(row, 118, True, facts.rich_style) if s.text]
                under = {s.style.bgcolor.get_truecolor() for s in segments}
                assert len(under) == 1, (theme, b, under)  # one background across the row
                bg = tuple(under.pop())
                plain = tuple((facts.rich_style + cursor).bgcolor.get_truecolor())
                assert bg == plain  # ...the cursor's
                for s in segments:
                    if s.text.strip():
                        ratio = _wcag(tuple(s.style.color.get_truecolor()), bg)
                        assert ratio >= 4.5, (theme, focused, b, s.text, round(ratio, 2))
                if focused:  # ...and off the cursor, the chip on its own colour
                    other = next(r for r, p in enumerate(facts.order) if band[p] == b and r != row)
                    chip = next(
                        s for s in facts._render_row(other, 118, False, facts.rich_style) if s.text.strip()
                    )
                    colours = (chip.style.color.get_truecolor(), chip.style.bgcolor.get_truecolor())
                    ratio = _wcag(*(tuple(c) for c in colours))
                    assert ratio >= 4.5, (theme, b, chip.text, round(ratio, 2))
    app.store.close()


@pytest.mark.parametrize(("width", "when"), [(200, "2026-12-01T09:30:15Z"), (120, "12-01 09:30"), (80, None)])
async def test_17_the_session_log_shows_its_times_whole(db, width, when):
    from tests.ui.helpers import make_app, screen_text, select

    app = make_app(db, now="2026-12-01T09:30:15.123456Z")  # a wall clock's time, fraction and all
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if "#1" in line)
        assert "contradict" in row and "f-deploy" in row and "s 3 -> 4" in row, row
        if when is None:
            assert "09:30" not in row  # no room: no time column
        else:
            assert f" {when} " in row, row
        assert "…" not in row.split("f-deploy")[0], row  # nothing before the fact is cut
    app.store.close()


async def test_17_a_toast_names_a_long_id_as_the_list_does_never_folded_mid_word(tmp_path):
    import json

    from tests.cli_run import run
    from tests.ui.helpers import make_app, select

    db, facts = _long_ids(
        tmp_path, [{"id": "f-deploy-freeze", "text": "short", "created_at": "2026-11-20T09:00:00Z"}]
    )
    for width in (80, 120, 200):
        app = make_app(db)
        try:
            async with app.run_test(size=(width, 30)) as pilot:
                await settle(pilot)
                room = min(60, width // 2) - 4  # a toast's line: 60 cells, at most half the screen
                for fact_id in (f"{LONG}a1b2c3e9", "f-deploy-freeze"):
                    await select(pilot, fact_id)
                    await pilot.press("x")
                    await settle(pilot)
                    toast = list(app._notifications)[-1].message  # noqa: SLF001
                    assert toast.startswith("contradict "), toast
                    assert max(len(word) for word in toast.split()) <= room, (width, toast)
                    named = toast.split()[1].rstrip(":")  # the id as the toast names it...
                    shown = json.loads(run("show", db, named, "--json").stdout)
                    assert shown["id"] == fact_id  # ...names the fact acted on
                    if fact_id == "f-deploy-freeze":
                        assert named == fact_id  # a short id stays whole
        finally:
            app.store.close()


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_18_F_counts_the_list_by_note_tier_source_agent_and_enter_lists_one_value(db, width):
    from tests.ui.helpers import make_app, screen_text

    app = make_app(db)
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(pilot)
        await _type_search(pilot, "tier:auto")  # it counts the list shown, not the store
        listed = {app.memory.ids[p] for p in app.main.query_one(FactList).order}
        app.main.query_one(FactList).focus()
        await pilot.press("F")
        await settle(pilot)
        text = screen_text(app)
        assert f"COUNT BY NOTE  {len(listed)} facts listed" in text, text
        await pilot.press("t")
        await settle(pilot)
        rows = [line.split() for line in screen_text(app).splitlines() if line.startswith(" auto ")]
        assert rows and rows[0][1] == str(len(listed)), rows  # every fact listed is auto
        await pilot.press("a")
        await settle(pilot)
        assert "COUNT BY AGENT" in screen_text(app) and "(none)" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        table = app.screen.query_one("#freq-table")
        values = [g.value for g in app.screen.groups]
        table.move_cursor(row=values.index("n-pay2"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        await settle(pilot, 0.3)
        shown = [app.memory.ids[p] for p in app.main.query_one(FactList).order]
        assert app.main.query_one("#search").value == "tier:auto note:n-pay2"
        assert len(shown) == app.screen.query_one(FactList).order.size >= 1
        assert set(shown) <= listed
    app.store.close()


async def test_18_the_id_column_widens_and_narrows_and_a_column_hides(tmp_path):
    from tests.ui.helpers import make_app, palette_answered, screen_text

    db, facts = _long_ids(tmp_path)
    app = make_app(db)
    async with app.run_test(size=(200, 30)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        assert f"{LONG}a1b2c3d4" not in screen_text(app).split("▏")[0]  # cut at first
        await pilot.press("greater_than_sign")  # beside the pane: the text keeps 60 cells
        assert notices[-1][1] == "id column: 24 cells"
        await pilot.press("p")  # the pane hidden: room for the whole ids
        for _ in range(8):
            await pilot.press("greater_than_sign")
        await settle(pilot)
        assert notices[-1][1] == f"id column: {len(LONG) + 8} cells (the whole ids)"
        rows = [line.split("▏")[0] for line in screen_text(app).splitlines() if "fact 0" in line]
        assert f" {LONG}a1b2c3d4 " in rows[0], rows  # whole, and still the fact's text beside it
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert notices[-1][1] == f"id column: {len(LONG)} cells"
        header = next(line for line in screen_text(app).splitlines() if line.startswith("band"))
        assert " age " in header
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"hide / show age")
        await palette_answered(pilot)
        await pilot.press("enter")
        await settle(pilot)
        header = next(line for line in screen_text(app).splitlines() if line.startswith("band"))
        assert " age " not in header and " guidance" in header, header
        assert notices[-1][1] == "age column hidden"
    app.store.close()


async def test_3_ids_alike_at_both_ends_show_the_end_that_tells_more_of_them_apart(tmp_path):
    """A Markdown folder read from git: ids are `git-notes:FILE#HASH`, one text copied into
    two files has one hash, so no 15-character edge tells every id apart. The rows show
    the hashes, not 'git-notes:memor…' on every row."""
    from tests.ui.helpers import make_app, row_of

    held = {
        "memory-bank/activeContext.md": ["1c2f97f52d20", "73b1866e007a"],
        "memory-bank/progress.md": ["0a81e319e339", "e9055c1b5296"],
        "AGENTS.md": ["1c2f97f52d20"],  # copied from activeContext.md
    }
    facts = [
        {"id": f"git-notes:{f}#{h}", "text": f"{f} {h}", "created_at": "2026-11-20T09:00:00Z"}
        for f, hashes in held.items()
        for h in hashes
    ]
    db, _ = _long_ids(tmp_path, facts)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            shown = [row_of(app, f["id"]).split()[2] for f in facts]
            assert all(token.startswith("…") for token in shown), shown
            assert all(f["id"].endswith(token.lstrip("…")) for f, token in zip(facts, shown, strict=True))
            # a hash in one file alone is told apart; one copied into two files names both
            assert len(set(shown)) == 4 and shown[0] == shown[-1], shown
    finally:
        app.store.close()
