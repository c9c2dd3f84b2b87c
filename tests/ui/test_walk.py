"""A newcomer's walk through the browser on a Markdown memory bank read from git, as real
repositories keep one (`memory-bank/activeContext.md`, `memory-bank/progress.md`): every
fact's id is `git-notes:memory-bank/FILE#HASH`, alike for its first 22 characters."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.core.claude_code_files import git
from tests.ui.helpers import audit, imported, make_app, record_notices, row_of, screen_text, select, settle

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BANK = {
    "memory-bank/activeContext.md": (
        "# Active context\n\n"
        "- The payments service retries failed webhooks three times with backoff\n"
        "- The payments service signs every webhook with HMAC\n"
        "- The search index is rebuilt every night from the primary database\n"
    ),
    "memory-bank/progress.md": (
        "# Progress\n\n"
        "- The payments service retries failed webhooks five times with backoff\n"
        "- The payments service signs every outgoing webhook with HMAC-SHA256\n"
        "- The nightly search index rebuild reads the primary database\n"
    ),
}


def _bank(tmp_path):
    """The memory bank in a real git repository, imported as Markdown: the store's path."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name, text in BANK.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "memory bank", when="2026-11-01T12:00:00Z")
    return imported(tmp_path, "bank", "--from", "markdown", root)


def _id_cells(text: str) -> list[str]:
    """The id cell of each row: the first word that is an id or a cut one (`…22b1`)."""
    found = (re.search(r"(?<=\s)(?:git-notes:|…)\S+", line) for line in text.splitlines())
    return [m.group(0) for m in found if m]


async def test_the_views_show_ids_as_the_list_does_not_their_common_start(tmp_path):
    """The neighbour view, the path view and the session log cut an id as the list does
    (`…md#a1b2c3d4e5f6`, the end that tells it apart), not 'git-notes:memory-…' on every
    row, which names no fact."""
    db = _bank(tmp_path)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            ids = app.memory.ids
            first = next(i for i in ids if "activeContext" in i)
            await select(pilot, first)
            await pilot.press("n")
            await settle(pilot)
            rows = screen_text(app).split("fact / entity", 1)[1]
            shown = _id_cells("\n".join(r for r in rows.splitlines() if r.split()[:1] == ["semantic"]))
            assert shown, rows
            assert all(token.startswith("…") for token in shown), shown
            assert all(any(i.endswith(token[1:]) for i in ids) for token in shown), shown
            await pilot.press("p")  # the path to the highlighted neighbour
            await settle(pilot)
            steps = _id_cells(screen_text(app).split("\n", 4)[4])
            assert steps and all(token.startswith("…") for token in steps), steps
            await pilot.press("escape", "escape")
            await settle(pilot)
            await pilot.press("c")  # corroborate: an action for the log
            await settle(pilot)
            await pilot.press("l")
            await settle(pilot)
            logged = _id_cells(screen_text(app).split("before -> after", 1)[1])
            assert logged == ["…" + first[-(len(logged[0]) - 1) :]], logged
    finally:
        app.store.close()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_sorted_by_trust_every_title_stays_over_its_column(app, size):
    """`o` sorts by trust and marks its title `trust▲`: one cell wider than the column, it
    pushed every title after it one cell right of its column."""
    from synapse_tui.ui.widgets.fact_list import ColumnHeader

    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        unsorted = str(app.main.query_one(ColumnHeader).render())
        await pilot.press("o")
        await settle(pilot)
        header = str(app.main.query_one(ColumnHeader).render())
        assert "trust▲" in header
        fact_id = app.main.current_fact_id()
        row = row_of(app, fact_id)
        assert header.index(" id ") + 1 == row.index(fact_id[:4]) == unsorted.index(" id ") + 1
        for title in ("fact", "tier", "guidance"):
            if f" {title}" in unsorted:
                assert header.index(f" {title}") == unsorted.index(f" {title}"), (title, header)


async def test_a_replaced_suggestion_is_one_line_naming_the_newer_by_what_differs(tmp_path):
    """A suggestion of the R queue is one line: the older id whole and the newer without the
    `git-notes:memory-bank/techContext.md` both share (the pane under it names both whole);
    two whole ids took 100 columns and folded every row onto the next line."""

    note = "git-notes:memory-bank/techContext.md#"
    facts = [
        {"id": f"{note}e9055c1b5296", "text": "deploys run on Fridays", "note": "tech"},
        {"id": f"{note}7e492b75c3b1", "text": "deploys run on Tuesdays since March", "note": "tech"},
    ]
    for fact, when in zip(facts, ("2026-01-01T00:00:00Z", "2026-03-05T00:00:00Z"), strict=True):
        fact["created_at"] = when
    db = imported(tmp_path, "bank", facts)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await settle(pilot)
            await settle(pilot)
            rows = [line for line in screen_text(app).splitlines() if " → " in line]
            assert len(rows) == 1, rows
            assert f"{note}e9055c1b5296 → …#7e492b75c3b1  deploys run on Fridays" in rows[0], rows
            assert f"NEWER  {note}7e492b75c3b1" in screen_text(app)  # the pane: whole
    finally:
        app.store.close()


async def test_the_count_title_stands_over_its_numbers(app):
    """F: the counts are right-aligned, and so is their title (it stood over the blanks
    before them, five cells left of the numbers)."""
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        head = next(line for line in lines if " count " in line)
        first = lines[lines.index(head) + 1]
        number = re.search(r"\s(\d[\d,]*) +[█░]", first)
        assert number and head.index("count") + len("count") == number.end(1), (head, first)


def _many(tmp_path, n: int):
    """A store of `n` facts from interchange JSON Lines: its path."""

    facts = [
        {"id": f"f{i:05d}", "text": f"fact number {i}", "created_at": "2026-01-01T00:00:00Z"}
        for i in range(n)
    ]
    return imported(tmp_path, "many", facts)


async def test_a_bulk_asks_with_its_counts_as_every_count_reads(tmp_path):
    """Marking 1,200 facts and pressing v asks about '1,200 marked facts' (the queue bar
    and the status line say 1,200; the question said 1200)."""
    app = make_app(_many(tmp_path, 1200))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("M", "v")
            await settle(pilot)
            seen = " ".join(screen_text(app).split())
            assert "verify 1,200 marked facts (1,1" in seen, seen
            await pilot.press("n")
    finally:
        app.store.close()


async def test_a_slow_undo_says_it_is_under_way_and_holds_the_keys(tmp_path):
    """ctrl+z on a bulk of 28,934 facts took 9 s of a screen that did not change (a second
    ctrl+z meanwhile would undo the action before it too). An undo still running after
    half a second shows the bulk's line, and the triage keys wait until it lands. Here the
    undo waits for the store's lock, held as another of the browser's threads would."""
    from synapse_tui.ui.screens.main import MainScreen

    app = make_app(_many(tmp_path, 30))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("v")  # one fact verified: the action to undo
            await settle(pilot)
            main = app.main
            assert isinstance(main, MainScreen) and app.screen is main
            with app.browser.lock:
                await pilot.press("ctrl+z")
                await pilot.pause(0.9)
                line = " ".join(screen_text(app).split())
                assert "undo · step 1/3" in line and "triage keys wait until it lands" in line, line
                notices = record_notices(app)
                await pilot.press("c")
                await pilot.pause()
                assert notices[-1][1].startswith("corroborate: held while the undo is still running"), notices
            await settle(pilot)
            await settle(pilot)
            after = " ".join(screen_text(app).split())
            assert "step 1/3" not in after and "triage keys wait" not in after, after
            assert [e["action"] for e in audit(tmp_path / "many.db")] == ["verify", "undo"]
    finally:
        app.store.close()


async def test_enter_in_the_replaced_queue_opens_the_older_fact_as_help_says(tmp_path):
    """Help in the R queue said `⏎ Select`, and enter did nothing: it opens the older fact
    full screen, help says so, and escape comes back to the queue."""
    from synapse_tui.ui.screens.detail import DetailScreen
    from synapse_tui.ui.screens.replaced import ReplacedScreen

    facts = [
        {"id": "a1", "text": "deploys run on Fridays", "created_at": "2026-01-01T00:00:00Z", "note": "ops"},
        {
            "id": "a2",
            "text": "deploys run on Tuesdays since March",
            "created_at": "2026-03-05T00:00:00Z",
            "note": "ops",
        },
    ]
    db = imported(tmp_path, "ops", facts)
    app = make_app(db)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("R")
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            seen = screen_text(app)
            assert "Open the older fact full screen" in seen and "Select" not in seen, seen
            await pilot.press("escape", "enter")
            await settle(pilot)
            assert isinstance(app.screen, DetailScreen) and app.screen.current_fact_id() == "a1"
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, ReplacedScreen)
    finally:
        app.store.close()


async def test_help_in_the_gone_queue_says_what_the_bulk_keys_do(app):
    """Help in the B queue read `Y  Asks first` and `D  Asks first`: what they do, too."""
    from synapse_tui.ui.screens.help import binding_rows

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        rows = dict(binding_rows(app.screen))
        assert rows["Y"].startswith("Record every marked one as a contradiction"), rows["Y"]
        assert rows["D"].startswith("Dismiss every marked one"), rows["D"]


async def test_calibrating_a_store_of_one_age_warns_before_w(tmp_path):
    """The palette's "Calibrate freshness" on a memory bank written in one commit proposes
    s = 0.00 (IQR of B 0.00006, SPEC 2.2): w would rank every fact by the seconds between
    their writes. The screen says so before w."""
    from synapse_tui.core.trust.calibrate import ONE_AGE
    from synapse_tui.ui.screens.calibration import CalibrationScreen

    app = make_app(_bank(tmp_path))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.push_screen(CalibrationScreen("freshness"))
            await settle(pilot)
            seen = " ".join(screen_text(app).split())
            assert ONE_AGE in seen, seen
    finally:
        app.store.close()


async def test_the_trust_formula_wrapped_in_the_pane_keeps_its_indent(app):
    """At 150 columns the pane beside the list is 47 cells: the formula under TRUST wrapped
    its last word to the pane's edge, `gate` alone under the T of TRUST. The narrow pane
    says the product with its values beside TRUST: wrapped, it stays beside the label."""
    from textual.widgets import Static

    from synapse_tui.ui.widgets.fact_detail import FactDetail

    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        head = app.main.query_one(FactDetail).query_one("#detail-head", Static)
        lines = [head.render_line(y).text.rstrip() for y in range(head.size.height)]
        at = next(i for i, line in enumerate(lines) if line.startswith("TRUST") and "= Confidence" in line)
        formula = [lines[at]]
        while "Gate" not in formula[-1]:
            formula.append(lines[at + len(formula)])
        assert len(formula) > 1, formula  # it wraps at this width
        indent = formula[0].index("=")
        assert all(len(line) - len(line.lstrip()) == indent for line in formula[1:]), formula


async def test_the_session_log_names_a_replacing_fact_as_the_list_does(tmp_path):
    """A supersede's before -> after named the replacing fact by its first 40 characters
    (`superseded by — -> git-notes:memory-bank/activeContext.…`), which every fact of the
    note shares: it names it as the list does."""
    db = _bank(tmp_path)
    app = make_app(db)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await settle(pilot)
            old, new = sorted(i for i in app.memory.ids if "activeContext" in i)[:2]
            app.start_triage("supersede", [old], new)
            await settle(pilot)
            await pilot.press("l")
            await settle(pilot)
            row = next(line for line in screen_text(app).splitlines() if "supersede" in line)
            tail = app.shown_id(new, 18)
            assert tail.startswith("…") and f"-> {tail}" in row, row
    finally:
        app.store.close()


def test_every_filter_help_shows_is_one_the_search_takes():
    """Help's search line names the filters a memory bank needs (`note:`, `is:suggested`),
    and each is one the search box takes, not a typo it explains."""
    from synapse_tui.core.review.query import parse
    from synapse_tui.ui.screens.help import SEARCH_FILTERS, SEARCH_HINT

    assert "note:" in SEARCH_HINT and "is:suggested" in SEARCH_HINT
    for term in SEARCH_FILTERS.split():
        query = parse(term)
        assert len(query.terms) == 1 and not query.words, term


async def test_the_gone_queue_of_a_store_with_no_repository_says_it_checked_nothing(tmp_path):
    """B on a store read from JSON Lines (no repository recorded) said "nothing gone" once
    its notice faded: nothing was checked. The pane says why not."""
    app = make_app(_many(tmp_path, 30))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("B")
            await settle(pilot)
            await settle(pilot)
            seen = " ".join(screen_text(app).split())
            assert "nothing gone" not in seen, seen
            assert "not read: no repository to check referents against" in seen, seen
    finally:
        app.store.close()


async def test_a_long_source_line_wraps_under_itself(tmp_path):
    """The detail view's `source: from git-notes, record ..., by ...; git-notes never
    records: ...` is longer than the screen: its second line began at the left edge,
    under PROVENANCE's P, not under `source:`."""
    from textual.widgets import Static

    from synapse_tui.ui.screens.detail import DetailScreen

    app = make_app(_bank(tmp_path))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, DetailScreen)
            part = app.screen.query_one("#detail-provenance", Static)
            lines = [part.render_line(y).text.rstrip() for y in range(part.size.height)]
            at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("source: from git-notes"))
            assert lines[at].startswith("  source:"), lines[at]
            assert "never records" in lines[at] + lines[at + 1]  # it wraps here
            assert lines[at + 1].startswith("  ") and lines[at + 1].strip(), lines[at : at + 2]
    finally:
        app.store.close()


async def test_neighbours_copied_into_two_files_name_their_files(tmp_path):
    """A memory bank copies AGENTS.md into memory-bank/projectbrief.md: each text keeps its
    hash, so the neighbours of one fact read `…S.md#8a0b755e6db2` and `…f.md#8a0b755e6db2`,
    alike but for one character. The id column takes the room to name the files."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    text = (
        "# Project\n\n- The app analyses stock prices in real time with charts\n"
        "- The app is written in Swift with SwiftUI\n- Indicators include SMA, EMA and MACD\n"
    )
    for name in ("AGENTS.md", "memory-bank/projectbrief.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "copies", when="2026-11-01T12:00:00Z")
    db = imported(tmp_path, "copies", "--from", "markdown", root)
    app = make_app(db)
    try:
        async with app.run_test(size=(150, 40)) as pilot:
            await settle(pilot)
            first = next(i for i in app.memory.ids if i.startswith("git-notes:AGENTS.md#"))
            await select(pilot, first)
            await pilot.press("n")
            await settle(pilot)
            rows = screen_text(app).split("fact / entity", 1)[1].splitlines()
            cells = _id_cells("\n".join(r for r in rows if r.split()[:1] in (["semantic"], ["shares"])))
            assert len(cells) >= 3 and len(set(cells)) == len(cells), cells
            assert all("AGENTS.md#" in c or "projectbrief.md#" in c for c in cells), cells
    finally:
        app.store.close()


async def test_a_search_with_nothing_in_this_queue_says_where_its_facts_are(tmp_path):
    """Searching an id while the Superseded queue is shown listed nothing ("no facts here")
    though the fact was found: only the queue bar's `All 1` said so. The list says where."""
    app = make_app(_many(tmp_path, 30))
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("5", "slash")
            app.main.query_one("#search").insert_text_at_cursor("f00007")
            await settle(pilot, 0.3)
            seen = " ".join(screen_text(app).split())
            assert "no facts here in Superseded: 1 in All (press 1)" in seen, seen
            await pilot.press("escape", "1")
            await settle(pilot)
            assert "no facts here" not in screen_text(app)
    finally:
        app.store.close()
