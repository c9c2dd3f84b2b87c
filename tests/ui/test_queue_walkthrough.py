"""The suggestion queues as a walkthrough on a real store found them (issues 39, 40): B
runs the referent finder once per open, R is shown at once and says what it is doing
while it finds, and R lists what the help promises in the order it promises (the replaced
facts best first, then the facts naming a path that is gone)."""

from __future__ import annotations

import asyncio
import shutil
import threading

import pytest

from synapse_tui.core.review import referent, suggestions
from synapse_tui.ui.screens.referent import ReferentScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.core.claude_code_files import git
from tests.core.referent_repo import NOTES, build, write
from tests.ui.helpers import SIZE, imported, make_app, screen_text, settle

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# a later commit adds a new wording of a rule beside the old one (nobody linked them):
# the Replaced? queue's kind, beside the Gone? queue's (`src/auth/login.py`, moved since)
LATER = {
    "notes/mem.md": NOTES["notes/mem.md"]
    + "- Deploys run on Fridays after the standup\n"
    + "- The staging database is refreshed every night at two\n"
}
LATEST = {
    "notes/mem.md": LATER["notes/mem.md"]
    + "- Deploys run on Tuesdays after the standup since March\n"
    + "- The staging database is refreshed every night at three\n"
}


def _store(tmp_path):
    repo = build(tmp_path / "repo", NOTES)
    write(repo, LATER)
    git(repo, "commit", "-qam", "rules", when="2026-04-10T12:00:00Z")
    write(repo, LATEST)
    git(repo, "commit", "-qam", "rules again", when="2026-04-20T12:00:00Z")
    return imported(tmp_path, "memory", "--from", "git-notes", repo / "notes")


def counted_builds(monkeypatch):
    """The real replaced finder, in place of the one the queue builds, its builds counted
    (`.builds`)."""

    class Counted(suggestions.ReplacedFinder):
        builds = 0

        @classmethod
        def build(cls, *args, **kwargs):
            Counted.builds += 1
            return super().build(*args, **kwargs)

    monkeypatch.setattr(suggestions, "ReplacedFinder", Counted)
    return Counted


def held_at_comparing(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """R's finder worker held at its first "comparing" progress line (a line at every
    step): `held` is set once it waits there, and it goes on when the test sets `seen`."""
    monkeypatch.setattr(suggestions, "TOLD_EVERY", 0.0)
    held, seen = threading.Event(), threading.Event()
    real = ReplacedScreen._finding

    def told(self, doing):
        real(self, doing)
        if doing.startswith("comparing") and not seen.is_set():
            held.set()
            seen.wait(10)

    monkeypatch.setattr(ReplacedScreen, "_finding", told)
    return held, seen


async def test_the_gone_queue_runs_the_referent_finder_once_per_open(tmp_path, monkeypatch):
    """B lists the broken referents and its pane names the commit that removed each: one
    run of the real finder gives both (it ran twice: 3.5 s a open on 55,000 facts)."""
    db = _store(tmp_path)
    runs = []
    real = referent.cached_check

    def counted(*args, **kwargs):  # the real finder, counted
        runs.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(referent, "cached_check", counted)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs.clear()
        await pilot.press("B")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, ReferentScreen)
        seen = screen_text(app)
        assert "src/auth/login.py" in seen and "REMOVED BY" in seen and "NEW PATH  src/login.py" in seen
        assert len(runs) == 1, f"the referent finder ran {len(runs)} times for one open"


async def test_the_replaced_queue_lists_replaced_facts_first_as_help_says(tmp_path):
    """R lists what a newer fact probably replaces best first, then the gone paths (each
    scored 1.00: best first alone listed them on top), and help says so, there and in the
    list's help."""
    db = _store(tmp_path)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        told = ""
        for _ in range(12):  # the list's help is long: scroll it as a person would
            told += " ".join(screen_text(app).split())
            await pilot.press("pagedown")
            await settle(pilot)
        assert "R Replaced? queue: facts a newer fact probably replaces, best first, then" in told, told
        await pilot.press("escape", "R")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)
        rows = [line for line in screen_text(app).splitlines() if " → " in line or " gone: " in line]
        kinds = ["gone" if " gone: " in line else "replaced" for line in rows]
        assert kinds[:1] == ["replaced"] and "gone" in kinds, rows
        assert kinds == sorted(kinds, key=lambda k: k == "gone"), rows  # one group, then the other
        scores = [float(next(w for w in line.split() if w[:1].isdigit())) for line in rows if " → " in line]
        assert scores == sorted(scores, reverse=True), rows
        await pilot.press("question_mark")
        await settle(pilot)
        told = " ".join(screen_text(app).split())
        assert "Replaced? queue: replaced facts best first, then facts naming a gone path" in told, told


async def test_the_replaced_queue_is_shown_at_once_and_says_what_the_finder_does(tmp_path, monkeypatch):
    """R's screen is up while the finder works, and says how far it is; the replaced facts
    are listed while the repository is still being read for the gone paths. The worker is
    held at two of its words of progress until the test has read the screen."""
    db = _store(tmp_path)
    steps = {
        "reading": (threading.Event(), threading.Event()),
        "checking": (threading.Event(), threading.Event()),
    }
    real = ReplacedScreen._finding

    def told(self, doing):  # the real one, then held until the screen was read
        real(self, doing)
        for word, (held, seen) in steps.items():
            if doing.startswith(word) and not seen.is_set():
                held.set()
                seen.wait(10)

    async def at(pilot, word: str) -> str:
        held, seen = steps[word]
        assert await asyncio.to_thread(held.wait, 10)
        for _ in range(50):
            await pilot.pause(0.02)
            if word in screen_text(app):
                break
        shown = screen_text(app)
        seen.set()
        return shown

    monkeypatch.setattr(ReplacedScreen, "_finding", told)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        shown = await at(pilot, "reading")
        assert isinstance(app.screen, ReplacedScreen)
        assert "finding what was replaced… reading 6 facts" in shown, shown
        shown = await at(pilot, "checking")
        assert " → " in shown and "gone: " not in shown, shown  # listed before the repository is read
        assert "checking the paths facts name against the repository…" in shown, shown
        await settle(pilot)
        await settle(pilot)
        shown = screen_text(app)
        assert " → " in shown and "gone: src/auth/login.py" in shown and "checking" not in shown, shown


async def test_triage_in_the_replaced_queue_catches_the_finder_up_not_builds_it_again(tmp_path, monkeypatch):
    """After d or y the queue is found again by catching the kept finder up (what changed),
    not by building it over every fact again (5.6 s after each key on 55,000 facts)."""
    db = _store(tmp_path)

    counted = counted_builds(monkeypatch)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await settle(pilot)
        first = [s.key for s in app.screen.found]
        assert len(first) == 3 and counted.builds == 1, first
        await pilot.press("d")  # the best replaced suggestion: dismissed
        await settle(pilot)
        await settle(pilot)
        assert [s.key for s in app.screen.found] == first[1:]
        await pilot.press("y")  # the next: accepted (a supersede)
        await settle(pilot)
        await settle(pilot)
        assert [s.key for s in app.screen.found] == first[2:], screen_text(app)
        assert "gone: src/auth/login.py" in screen_text(app)
        assert counted.builds == 1, f"the finder was built {counted.builds} times"


async def test_the_store_is_free_for_the_list_and_pane_while_the_finder_is_built(tmp_path, monkeypatch):
    """While R's finder is built (seconds on a large store) the store's lock is free: the
    list and the pane behind, which read under it, go on (they waited for the whole build).
    The worker is held at its first "comparing" line; another thread takes the lock as
    the pane's reads do."""
    db = _store(tmp_path)
    held, seen = held_at_comparing(monkeypatch)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        assert await asyncio.to_thread(held.wait, 10)

        def read_meanwhile() -> bool:
            if not app.db_lock.acquire(timeout=2):
                return False
            try:
                return len(app.texts([0])) == 1
            finally:
                app.db_lock.release()

        try:
            assert await asyncio.to_thread(read_meanwhile), (
                "the store stayed locked while the finder was built"
            )
        finally:
            seen.set()
        await settle(pilot)
        await settle(pilot)
        assert " → " in screen_text(app)


async def test_a_second_look_while_the_finder_is_built_waits_for_it_not_builds_another(tmp_path, monkeypatch):
    """The queue asked again while its finder is being built (the memory changed, a key
    pressed) waits for that finder instead of building a second one beside it."""
    db = _store(tmp_path)
    held, seen = held_at_comparing(monkeypatch)
    counted = counted_builds(monkeypatch)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        assert await asyncio.to_thread(held.wait, 10)
        app.screen.refresh_view()  # what the app asks of the view when the memory changes
        await pilot.pause(0.2)
        seen.set()
        await settle(pilot)
        await settle(pilot)
        assert " → " in screen_text(app)
        assert counted.builds == 1, f"the finder was built {counted.builds} times"
